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
