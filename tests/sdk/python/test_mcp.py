"""The official Python `mcp` client (the 2.x SDK: `ClientSession` and the probing `Client`) against cuecard's scripted
MCP servers, over stdio (`cuecard mcp`) and Streamable HTTP (`cuecard serve` at /mcp); then two agent frameworks
end to end, where the model's scripted tool call goes through the MCP mock and both show in one journal."""
import asyncio
import json
import pathlib
import subprocess

import pytest
from conftest import _binary

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

WEATHER = {"name": "weather", "instructions": "Weather tools", "tools": [
    {"name": "get_forecast", "description": "Forecast for a city",
     "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
     "steps": [
         {"match": {"arguments": {"city": "Paris"}}, "text": "22 °C, sunny"},
         {"structured": {"temp_c": 4}, "text": "4 °C"},
         {"is_error": True, "text": "city not found"},
         {"error": {"code": -32603, "message": "backend down"}},
         {"progress": [0.5, 1.0], "delay_ms": 40, "text": "done"}]}],
    "resources": [{"uri": "file:///notes.txt", "text": "remember the milk"}],
    "prompts": [{"name": "summarize", "arguments": [{"name": "topic", "required": True}],
                 "messages": [{"role": "user", "text": "Summarize {{topic}}"}]}]}


def mcp_scenario(*model_steps, servers=(WEATHER,)) -> dict:
    return {"cuecard": 1, "routes": [{"steps": list(model_steps) or [{"text": "unused"}]}],
            "mcp": {"servers": list(servers)}}


async def exercise(session: ClientSession) -> list:
    """Every kind of tool step, a resource and a prompt, through one session; returns what came back."""
    init = await session.initialize()
    assert (init.protocol_version, init.server_info.name, init.instructions) == ("2025-11-25", "weather", "Weather tools")
    assert [t.name for t in (await session.list_tools()).tools] == ["get_forecast"]
    seen = [(await session.call_tool("get_forecast", {"city": "Paris"})).content[0].text]
    structured = await session.call_tool("get_forecast", {"city": "Oslo"})
    seen.append((structured.content[0].text, structured.structured_content))
    failed = await session.call_tool("get_forecast", {"city": "Atlantis"})
    seen.append((failed.is_error, failed.content[0].text))
    with pytest.raises(MCPError, match="backend down") as error:
        await session.call_tool("get_forecast", {"city": "Rome"})
    seen.append(error.value.error.code)
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, total))

    done = await session.call_tool("get_forecast", {"city": "Lima"}, progress_callback=on_progress)
    seen.append((done.content[0].text, progress))
    with pytest.raises(MCPError, match="all 5 of its steps were used"):
        await session.call_tool("get_forecast", {"city": "Kyiv"})
    seen.append((await session.read_resource("file:///notes.txt")).contents[0].text)
    seen.append((await session.get_prompt("summarize", {"topic": "cats"})).messages[0].content.text)
    return seen


EXPECTED = ["22 °C, sunny", ("4 °C", {"temp_c": 4}), (True, "city not found"), -32603,
            ("done", [(0.5, 1.0), (1.0, 1.0)]), "remember the milk", "Summarize cats"]


def test_the_official_client_over_stdio(tmp_path):
    path = tmp_path / "weather.json"
    path.write_text(json.dumps(mcp_scenario()))
    journal = tmp_path / "journal.json"
    # The SDK starts the server with a reduced environment: the scenario comes from the arguments.
    params = StdioServerParameters(command=_binary(), args=["mcp", "--scenario", str(path), "--journal", str(journal)])

    async def run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                return await exercise(session)

    assert asyncio.run(run()) == EXPECTED
    entries = json.loads(journal.read_text())["entries"]
    methods = [e["method"] for e in entries]
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"]
    calls = [e for e in entries if e["method"] == "tools/call"]
    assert [(c["arguments"]["city"], c.get("step"), c["outcome"]) for c in calls] == [
        ("Paris", 0, "answered"), ("Oslo", 1, "answered"), ("Atlantis", 2, "answered"), ("Rome", 3, "answered"),
        ("Lima", 4, "answered"), ("Kyiv", None, "exhausted")]
    assert all(e["transport"] == "stdio" for e in entries)


def test_the_stdio_server_writes_only_protocol_lines_and_exits_at_the_end_of_stdin(tmp_path):
    path = tmp_path / "weather.json"
    path.write_text(json.dumps(mcp_scenario()))
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "get_forecast", "arguments": {"city": "Paris"}}},
    ]
    stdin = "".join(json.dumps(line) + "\r\n" for line in lines) + "not json\n"
    done = subprocess.run([_binary(), "mcp", "--scenario", str(path), "--instant"], input=stdin, capture_output=True,
                          text=True, timeout=10)
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    # The notification is not answered; the bad line gets a parse error with a null id.
    assert [(o.get("id"), "result" in o) for o in out] == [(0, True), (1, True), (None, False)]
    assert out[0]["result"]["protocolVersion"] == "2025-03-26"
    assert out[2]["error"]["code"] == -32700


def test_the_official_client_over_streamable_http(cuecard):
    cuecard.load(mcp_scenario())
    url = cuecard.base + "/mcp"

    async def run():
        async with streamable_http_client(url) as (read, write, *_):
            async with ClientSession(read, write) as session:
                return await exercise(session)

    assert asyncio.run(run()) == EXPECTED
    mcp = cuecard.journal()["mcp"]
    methods = [e["method"] for e in mcp["entries"]]
    # After initializing, the client tries the GET stream (answered 405), concurrently with its next request.
    assert methods.count("GET") == 1
    methods.remove("GET")
    assert methods[:3] == ["initialize", "notifications/initialized", "tools/list"]
    # The client ends its session with DELETE when it leaves.
    assert methods[-1] == "DELETE" and mcp["entries"][-1]["session"] == "cuecard-mcp-1"
    assert {e["session"] for e in mcp["entries"] if e["method"] != "initialize"} == {"cuecard-mcp-1"}
    assert mcp["unused_steps"] == []


async def exercise_modern(client) -> list:
    """The same steps through the 2.x `Client` in the stateless 2026-07-28 revision (no initialize, no session)."""
    assert client.protocol_version == "2026-07-28"
    assert [t.name for t in (await client.list_tools()).tools] == ["get_forecast"]
    seen = [(await client.call_tool("get_forecast", {"city": "Paris"})).content[0].text]
    structured = await client.call_tool("get_forecast", {"city": "Oslo"})
    seen.append((structured.content[0].text, structured.structured_content))
    failed = await client.call_tool("get_forecast", {"city": "Atlantis"})
    seen.append((failed.is_error, failed.content[0].text))
    with pytest.raises(MCPError, match="backend down") as error:
        await client.call_tool("get_forecast", {"city": "Rome"})
    seen.append(error.value.error.code)
    seen.append((await client.call_tool("get_forecast", {"city": "Lima"})).content[0].text)
    seen.append((await client.read_resource("file:///notes.txt")).contents[0].text)
    seen.append((await client.get_prompt("summarize", {"topic": "cats"})).messages[0].content.text)
    return seen


MODERN_EXPECTED = ["22 °C, sunny", ("4 °C", {"temp_c": 4}), (True, "city not found"), -32603, "done",
                   "remember the milk", "Summarize cats"]


@pytest.mark.parametrize("mode", ["auto", "2026-07-28"])
def test_the_2_x_client_speaks_the_stateless_revision_over_http(cuecard, mode):
    """`auto` probes `server/discover` and adopts 2026-07-28; the revision string adopts it directly."""
    from mcp.client import Client

    cuecard.load(mcp_scenario())

    async def run():
        async with Client(cuecard.base + "/mcp/weather", mode=mode) as client:
            return await exercise_modern(client)

    assert asyncio.run(asyncio.wait_for(run(), timeout=10)) == MODERN_EXPECTED
    entries = cuecard.journal()["mcp"]["entries"]
    methods = [e["method"] for e in entries]
    assert "initialize" not in methods and ("server/discover" in methods) == (mode == "auto")
    assert {e.get("revision") for e in entries} == {"2026-07-28"}
    assert {e.get("session") for e in entries} == {None}, "the stateless revision keeps no session"


def test_the_2_x_client_speaks_the_stateless_revision_over_stdio(tmp_path):
    from mcp.client import Client

    scenario = tmp_path / "mcp.json"
    scenario.write_text(json.dumps(mcp_scenario()))
    params = StdioServerParameters(command=_binary(), args=["mcp", "--scenario", str(scenario)])

    async def run():
        async with Client(params, mode="auto") as client:
            return await exercise_modern(client)

    assert asyncio.run(asyncio.wait_for(run(), timeout=10)) == MODERN_EXPECTED


def test_the_2_x_client_in_legacy_mode_still_initializes(cuecard):
    from mcp.client import Client

    cuecard.load(mcp_scenario())

    async def run():
        async with Client(cuecard.base + "/mcp/weather", mode="legacy") as client:
            return client.protocol_version, [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(asyncio.wait_for(run(), timeout=5)) == ("2025-11-25", ["get_forecast"])
    entries = cuecard.journal()["mcp"]["entries"]
    assert entries[0]["method"] == "initialize" and "revision" not in entries[0]


# ANCHOR: agent
def agent_scenario() -> dict:
    """The model asks for the forecast, the agent calls it over MCP, the model answers from the result."""
    return mcp_scenario({"tool_calls": [{"name": "get_forecast", "arguments": {"city": "Paris"}}]},
                        {"text": "It is 22 °C and sunny in Paris."})


def assert_one_story(cuecard):
    """The model's two requests and the MCP call between them, in one journal."""
    journal = cuecard.journal()
    [call] = [e for e in journal["mcp"]["entries"] if e["method"] == "tools/call"]
    assert (call["name"], call["arguments"], call["after_requests"]) == ("get_forecast", {"city": "Paris"}, 1)
    assert journal["count"] == 2
    tool_message = journal["entries"][1]["request"]["messages"][-1]
    assert "22 °C, sunny" in json.dumps(tool_message, ensure_ascii=False)


def test_openai_agents_calls_the_scripted_tool_over_mcp(cuecard):
    from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
    from agents.mcp import MCPServerStreamableHttp
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    cuecard.load(agent_scenario())

    async def run():
        async with MCPServerStreamableHttp(params={"url": cuecard.base + "/mcp"}) as server:
            model = OpenAIChatCompletionsModel("gpt-4o", AsyncOpenAI(base_url=cuecard.openai_url, api_key="test-key"))
            agent = Agent(name="forecaster", instructions="Use the tools.", model=model, mcp_servers=[server])
            return (await Runner.run(agent, "Weather in Paris?")).final_output

    assert asyncio.run(run()) == "It is 22 °C and sunny in Paris."
    assert_one_story(cuecard)
    first_request = cuecard.entries()[0]["request"]
    assert [t["name"] for t in first_request["tools"]] == ["get_forecast"]
# ANCHOR_END: agent


def test_pydantic_ai_calls_the_scripted_tool_over_mcp(cuecard):
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    cuecard.load(agent_scenario())
    model = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(base_url=cuecard.openai_url, api_key="test-key"))
    agent = Agent(model, toolsets=[MCPToolset(cuecard.base + "/mcp")])
    assert agent.run_sync("Weather in Paris?").output == "It is 22 °C and sunny in Paris."
    assert_one_story(cuecard)


def test_an_mcp_recording_replays_to_the_official_client_over_stdio_and_http(cuecard):
    """`tests/recordings/mcp-weather.yaml`, written by `cuecard record -- COMMAND` from a live MCP session: the client
    gets the recorded tools, results (a tool error too), resource and prompt, over stdio and over HTTP."""
    recording = pathlib.Path(__file__).resolve().parents[2] / "recordings" / "mcp-weather.yaml"

    async def exercise_recorded(session):
        await session.initialize()
        tools = [t.name for t in (await session.list_tools()).tools]
        paris = await session.call_tool("get_forecast", {"city": "Paris"})
        atlantis = await session.call_tool("get_forecast", {"city": "Atlantis"})
        notes = (await session.read_resource("file:///notes.txt")).contents[0].text
        prompt = (await session.get_prompt("summarize", {"topic": "rain"})).messages[0].content.text
        return tools, paris.content[0].text, atlantis.is_error, notes, prompt

    expected = (["get_forecast"], "22 °C, sunny", True, "Bring an umbrella on Fridays.", "Summarize rain in one line.")

    async def over_stdio():
        params = StdioServerParameters(command=_binary(), args=["mcp", "--scenario", str(recording)])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                return await exercise_recorded(session)

    async def over_http():
        async with streamable_http_client(cuecard.base + "/mcp") as (read, write, *_):
            async with ClientSession(read, write) as session:
                return await exercise_recorded(session)

    assert asyncio.run(asyncio.wait_for(over_stdio(), timeout=10)) == expected
    import urllib.request
    put = urllib.request.Request(cuecard.base + "/_cuecard/scenario", data=recording.read_bytes(), method="PUT",
                                 headers={"content-type": "application/yaml"})
    with urllib.request.urlopen(put, timeout=10) as loaded:
        assert json.loads(loaded.read())["ok"]
    assert asyncio.run(asyncio.wait_for(over_http(), timeout=10)) == expected


CONFIRMING = {"name": "files", "tools": [{"name": "delete", "steps": [
    {"input_required": {
        "confirm": {"method": "elicitation/create", "params": {"message": "Delete 3 files?", "requestedSchema": {
            "type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}},
        "summary": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize the files"}}],
            "maxTokens": 50}}}},
    {"match": {"input_responses": {"confirm": {"action": "accept", "content": {"ok": True}}}},
     "text": "Deleted 3 files."},
    {"match": {"input_responses": {"confirm": {"action": "decline"}}}, "text": "Kept them."}]}]}


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_the_2_x_client_answers_a_tools_questions_and_retries(cuecard, answer):
    """2026-07-28 multi-round-trip requests: the tool's step asks the client (an elicitation and a sampling request);
    the SDK runs its callbacks and retries with their answers, which pick the step that answers it."""
    from mcp import types
    from mcp.client import Client

    cuecard.load(mcp_scenario(servers=(CONFIRMING,)))
    asked = []

    async def elicit(context, params):
        asked.append(params.message)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"ok": True})
        return types.ElicitResult(action="decline")

    async def sample(context, params):
        asked.append(params.messages[0].content.text)
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="3 logs"),
                                         model="test-model")

    async def run():
        async with Client(cuecard.base + "/mcp/files", mode="2026-07-28", elicitation_callback=elicit,
                          sampling_callback=sample) as client:
            return (await client.call_tool("delete", {"dir": "/tmp"})).content[0].text

    said = asyncio.run(asyncio.wait_for(run(), timeout=10))
    assert said == ("Deleted 3 files." if answer == "accept" else "Kept them.")
    assert sorted(asked) == ["Delete 3 files?", "Summarize the files"]
    calls = [e for e in cuecard.journal()["mcp"]["entries"] if e["method"] == "tools/call"]
    assert [c["result"]["resultType"] for c in calls] == ["input_required", "complete"]
    # The retry is journaled with what the client answered, the sampling result as the SDK sent it.
    responses = calls[1]["input_responses"]
    assert responses["confirm"]["action"] == answer
    assert responses["summary"]["content"]["text"] == "3 logs" and responses["summary"]["model"] == "test-model"
