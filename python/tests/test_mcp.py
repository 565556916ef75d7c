"""Scripted MCP servers from Python: the official `mcp` ClientSession in process (no socket), the MCP journal, the
fluent checks, and typed errors for a bad `mcp` section."""
import asyncio

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

import cuecard
from cuecard import assert_that

SCENARIO = {"cuecard": 1, "instant": True, "routes": [{"steps": [{"text": "unused"}]}], "mcp": {"servers": [
    {"name": "weather", "tools": [{"name": "get_forecast", "steps": [
        {"match": {"arguments": {"city": "Paris"}}, "text": "22 °C, sunny"},
        {"progress": [1, 2], "delay_ms": 20, "structured": {"temp_c": 4}},
        {"drop_connection": True}]}]},
    {"name": "notes", "resources": [{"uri": "file:///notes.txt", "text": "milk"}]}]}}


# ANCHOR: in_process
def test_a_client_session_in_process_reaches_every_step_and_the_journal():
    mock = cuecard.MockModel.from_scenario(SCENARIO)

    async def run():
        async with cuecard.mcp.client_streams(mock) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await session.list_tools()
                paris = await session.call_tool("get_forecast", {"city": "Paris"})
                progress = []

                async def on_progress(value, total, message):
                    progress.append((value, total))

                lima = await session.call_tool("get_forecast", {"city": "Lima"}, progress_callback=on_progress)
                with pytest.raises(MCPError, match="Unknown tool: nope"):
                    await session.call_tool("nope", {})
                return paris.content[0].text, lima.structured_content, progress

    assert asyncio.run(run()) == ("22 °C, sunny", {"temp_c": 4}, [(1, 2), (2, 2)])
    entries = mock.mcp_entries()
    assert [e["method"] for e in entries] == ["initialize", "notifications/initialized", "tools/list", "tools/call",
                                              "tools/call", "tools/call", "DELETE"]
    assert [e.get("step") for e in entries if e["method"] == "tools/call"] == [0, 1, None]
    assert mock.mcp_unused_steps() == [{"server": "weather", "tool": "get_forecast", "step": 2}]
    assert_that(mock).mcp_tool_called("get_forecast", times=2).mcp_tool_called(
        "get_forecast", server="weather", arguments={"city": "Paris"}, times=1).mcp_tools_listed("weather")
    with pytest.raises(cuecard.AssertionFailedError, match=r"no_unexpected_mcp_calls\(\) failed") as failure:
        assert_that(mock).no_unexpected_mcp_calls()
    assert "tools/call nope  unmatched" in str(failure.value)
    with pytest.raises(AssertionError, match="weather get_forecast step 2"):
        assert_that(mock).all_mcp_steps_used()
    # The model's journal has none of it.
    assert mock.request_count() == 0
# ANCHOR_END: in_process


def test_a_dropped_connection_ends_the_session_and_a_named_server_answers():
    mock = cuecard.MockModel.from_scenario(SCENARIO)

    async def run():
        async with cuecard.mcp.client_streams(mock, "notes") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return (await session.read_resource("file:///notes.txt")).contents[0].text

    assert asyncio.run(run()) == "milk"
    assert {e["server"] for e in mock.mcp_entries()} == {"notes"}

    async def dropped():
        async with cuecard.mcp.client_streams(mock) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=None) as session:
                await session.initialize()
                await session.call_tool("get_forecast", {"city": "Paris"})
                await session.call_tool("get_forecast", {"city": "Lima"})
                await session.call_tool("get_forecast", {"city": "Rome"})

    with pytest.raises(BaseException) as ended:
        asyncio.run(asyncio.wait_for(dropped(), timeout=5))
    # The session fails its pending call as a closed connection (not a timeout).
    assert "Connection closed" in repr(ended.value), repr(ended.value)
    [dropped_entry] = [e for e in mock.mcp_entries() if e.get("dropped_connection")]
    assert (dropped_entry["arguments"], dropped_entry["step"]) == ({"city": "Rome"}, 2)


def test_a_bad_mcp_section_is_a_typed_error_naming_its_path():
    bad = {"cuecard": 1, "mcp": {"servers": [{"name": "w", "tools": [{"name": "t", "steps": [{"text": "a", "drop_connection": True}]}]}]}}
    with pytest.raises(cuecard.InvalidScenarioError, match=r"mcp\.servers\[0\]\.tools\[0\]\.steps\[0\]"):
        cuecard.MockModel.from_scenario(bad)
    with pytest.raises(cuecard.InvalidScenarioError, match=r"mcp\.servers\[0\]\.tools\[0\]\.steps\[0\]\.delay_ms"):
        cuecard.MockModel.from_scenario({"cuecard": 1, "mcp": {"servers": [{"name": "w", "tools": [
            {"name": "t", "steps": [{"text": "a", "delay_ms": "soon"}]}]}]}})
