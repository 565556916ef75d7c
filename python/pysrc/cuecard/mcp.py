"""In-process MCP: the stream pair an `mcp.ClientSession` takes, answered by a mock's scripted MCP server (the `mcp`
section of its scenario) with no socket and no child process.

Each message the session writes is POSTed to the mock's `/mcp` (or `/mcp/{server}`) through the same wire face as
the HTTP transports, so sessions, progress, errors and the journal are exactly what `cuecard serve` gives::

    async with cuecard.mcp.client_streams(mock) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("get_forecast", {"city": "Paris"})
    assert_that(mock).mcp_tool_called("get_forecast", times=1)
"""
from __future__ import annotations

import json
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Optional

__all__ = ["client_streams"]


def _messages(reply: dict) -> list:
    """The JSON-RPC messages of a reply: its JSON body, or the `data` of each SSE event."""
    if reply["kind"] == "full":
        body = reply["body"]
        return [json.loads(body)] if body.strip() else []
    messages = []
    for frame in reply["frames"]:
        for line in frame["data"].splitlines():
            if line.startswith("data:") and line[5:].strip():
                messages.append(json.loads(line[5:]))
    return messages


def _delays(reply: dict) -> list:
    """The wait before each message of a reply, in seconds."""
    if reply["kind"] == "full":
        return [reply["delay_ms"] / 1000]
    return [frame["delay_ms"] / 1000 for frame in reply["frames"]]


@asynccontextmanager
async def client_streams(mock: Any, server: Optional[str] = None, *, instant: Optional[bool] = None
                         ) -> AsyncIterator[tuple[Any, Any]]:
    """`(read_stream, write_stream)` for `mcp.ClientSession`, answered by `mock`'s MCP server `server` (the first
    when None). Scripted delays are waited out unless `instant` (by default the mock's own setting). A step that drops
    the connection closes the read stream, as a broken transport does. Needs the `mcp` package."""
    import anyio
    from mcp import types
    from mcp.shared.message import SessionMessage

    # mcp 2.x validates with a type adapter; 1.x with the JSONRPCMessage root model.
    adapter = getattr(types, "jsonrpc_message_adapter", None)
    validate = adapter.validate_python if adapter is not None else types.JSONRPCMessage.model_validate
    path = "/mcp" if server is None else f"/mcp/{server}"
    to_client, read_stream = anyio.create_memory_object_stream(16)
    write_stream, from_client = anyio.create_memory_object_stream(16)
    session: list[str] = []

    async def pump() -> None:
        async with from_client, to_client:
            async for outgoing in from_client:
                body = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
                headers = [("content-type", "application/json"), ("accept", "application/json, text/event-stream")]
                if session:
                    headers.append(("mcp-session-id", session[-1]))
                # Instant replies (core's decision, at each message) carry no delay.
                reply = mock.handle_http("POST", path, headers, body, instant=instant)
                if reply["kind"] == "abort":
                    await anyio.sleep(reply["delay_ms"] / 1000)
                    return  # the connection dropped: the session sees its streams end
                minted = dict(reply["headers"]).get("mcp-session-id")
                if minted:
                    session.append(minted)
                for delay, message in zip(_delays(reply), _messages(reply)):
                    if delay:
                        await anyio.sleep(delay)
                    await to_client.send(SessionMessage(validate(message)))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump)
        try:
            async with write_stream:
                yield read_stream, write_stream
        finally:
            if session:
                mock.handle_http("DELETE", path, [("mcp-session-id", session[-1])], b"")
            tasks.cancel_scope.cancel()
