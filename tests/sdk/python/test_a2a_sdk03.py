"""The official A2A Python client of the 0.3 line (a2a-sdk 0.3.26; Strands pins <0.4), unmodified, against agents
scripted in a scenario on `cuecard serve` (issue #53): v0.3 method names, `kind` members and kebab-case states,
the last status update `final`. It streams a message, sends one without streaming, follows up an input-required
task, gets and cancels, and maps JSON-RPC errors to its error class."""
import asyncio

import httpx
import pytest

# This file runs in its own venv (requirements-a2a03.txt, tests/run-all.sh): the suite's venv has a2a-sdk 1.x, where
# these 0.3 types do not exist, and skips it there.
try:
    from a2a.client import ClientConfig, ClientFactory
    from a2a.client.errors import A2AClientJSONRPCError
    from a2a.types import Message, Part, Role, TaskIdParams, TaskQueryParams, TaskState, TextPart
except ImportError:
    pytest.skip("a2a-sdk 0.3.x runs in its own venv (requirements-a2a03.txt)", allow_module_level=True)

AGENTS = {"agents": [{"name": "researcher", "steps": [
    {"match": {"text": "weather"}, "text": "Sunny in Paris, 22 degrees."},
    {"state": "input_required", "status": "Which city?"},
    {"text": "Rain in Oslo."},
    {"text": "Kept open", "state": "input_required"},
]}]}


def user(text, **extra):
    return Message(message_id=f"m-{text}", role=Role.user, parts=[Part(root=TextPart(text=text))], **extra)


def test_a2a_sdk_03_streams_sends_follows_up_gets_and_cancels(cuecard):
    cuecard.load({"cuecard": 1, "a2a": AGENTS})

    async def run():
        http = httpx.AsyncClient(timeout=10)
        streaming = await ClientFactory.connect(cuecard.base + "/a2a/researcher",
                                                client_config=ClientConfig(streaming=True, httpx_client=http))
        events = [e async for e in streaming.send_message(user("weather in Paris?"))]
        task, _ = events[-1]
        plain = await ClientFactory.connect(cuecard.base + "/a2a/researcher",
                                            client_config=ClientConfig(streaming=False, httpx_client=http))
        asked, _ = [e async for e in plain.send_message(user("forecast"))][0]
        followed, _ = [e async for e in plain.send_message(user("Oslo", task_id=asked.id))][0]
        got = await plain.get_task(TaskQueryParams(id=asked.id))
        with pytest.raises(A2AClientJSONRPCError) as not_cancelable:
            await plain.cancel_task(TaskIdParams(id=asked.id))
        kept, _ = [e async for e in plain.send_message(user("again"))][0]
        canceled = await plain.cancel_task(TaskIdParams(id=kept.id))
        await http.aclose()
        return task, asked, followed, got, not_cancelable.value, canceled

    task, asked, followed, got, not_cancelable, canceled = asyncio.run(asyncio.wait_for(run(), timeout=20))
    assert task.status.state == TaskState.completed
    assert "".join(p.root.text for a in task.artifacts for p in a.parts) == "Sunny in Paris, 22 degrees."
    assert (asked.status.state, asked.status.message.parts[0].root.text) == (TaskState.input_required, "Which city?")
    assert (followed.id, followed.status.state) == (asked.id, TaskState.completed)
    assert len(got.history) == 2
    assert not_cancelable.error.code == -32002
    assert canceled.status.state == TaskState.canceled
    sends = [(e["method"], e["version"]) for e in cuecard.journal()["a2a"]["entries"] if "message" in e["method"]]
    assert sends == [("message/stream", "0.3"), ("message/send", "0.3"), ("message/send", "0.3"), ("message/send", "0.3")]


def test_a_strands_agent_delegates_to_the_scripted_agent_and_its_own_model_is_scripted_too(cuecard):
    """A Strands agent (strands-agents 1.62) whose model is the scenario's route and whose tool asks a remote agent
    (Strands' `A2AAgent`, over a2a-sdk 0.3) that is the scenario's agent: one file, one server, one journal in
    order — the model asks for the tool, the agent is called, the model answers from its reply."""
    # ANCHOR: delegate
    from strands import Agent, tool
    from strands.agent.a2a_agent import A2AAgent
    from strands.models.openai import OpenAIModel

    cuecard.load({"cuecard": 1, "a2a": AGENTS, "routes": [{"steps": [
        {"tool_calls": [{"name": "ask_researcher", "arguments": {"question": "weather in Paris?"}}]},
        {"text": "The researcher says it is sunny in Paris."},
    ]}]})
    researcher = A2AAgent(endpoint=cuecard.base + "/a2a/researcher")

    @tool
    def ask_researcher(question: str) -> str:
        """Ask the research agent a question."""
        return str(researcher(question))

    model = OpenAIModel(client_args={"base_url": cuecard.openai_url, "api_key": "test-key"}, model_id="gpt-4o")
    orchestrator = Agent(model=model, tools=[ask_researcher], callback_handler=None)
    assert str(orchestrator("What is the weather in Paris?")).strip() == "The researcher says it is sunny in Paris."
    # ANCHOR_END: delegate
    journal = cuecard.journal()
    model_calls = journal["entries"]
    assert len(model_calls) == 2
    tool_result = model_calls[1]["request"]["messages"][-1]
    assert tool_result["role"] == "tool"
    # Strands joins the parts of the streamed artifact (one a chunk) with newlines, as it would a real agent's.
    assert tool_result["content"][0]["text"].replace("\n", "") == "Sunny in Paris, 22 degrees."
    sends = [e for e in journal["a2a"]["entries"] if e["method"] != "card"]
    assert [(e["method"], e["text"], e["after_requests"]) for e in sends] == [
        ("message/stream", "weather in Paris?", 1)]
