"""The official A2A Python client (a2a-sdk 1.x), unmodified, against agents scripted in a scenario on `cuecard serve`
(issue #53): it resolves the hybrid card, streams a message and reads the task, its artifact chunks and its end,
sends without streaming, follows up an input-required task, reads and cancels tasks, and maps a JSON-RPC error code
to its error class. The A2A journal says what each agent received."""
import asyncio

import httpx
import pytest

a2a = pytest.importorskip("a2a")
from a2a.client import ClientConfig, ClientFactory  # noqa: E402
from a2a.types import (CancelTaskRequest, GetTaskRequest, Message, Part, Role, SendMessageRequest,  # noqa: E402
                       TaskState)
from a2a.utils.errors import TaskNotCancelableError, TaskNotFoundError  # noqa: E402

AGENTS = {"agents": [{"name": "researcher", "skills": [{"id": "research", "tags": ["search"]}], "steps": [
    {"match": {"text": "weather"}, "text": "Sunny in Paris, 22 degrees."},
    {"state": "input_required", "status": "Which city?"},
    {"text": "Rain in Oslo."},
    {"text": "Kept open", "state": "input_required"},
]}]}


def user(text, **extra):
    return Message(message_id=f"m-{text}", role=Role.ROLE_USER, parts=[Part(text=text)], **extra)


async def client_for(cuecard, streaming=True):
    http = httpx.AsyncClient(timeout=10)
    factory = ClientFactory(ClientConfig(streaming=streaming, httpx_client=http))
    return await factory.create_from_url(cuecard.base + "/a2a/researcher/"), http


def test_a2a_sdk_streams_sends_follows_up_gets_and_cancels(cuecard):
    cuecard.load({"cuecard": 1, "a2a": AGENTS})

    async def run():
        client, http = await client_for(cuecard)
        events = [e async for e in client.send_message(SendMessageRequest(message=user("weather in Paris?")))]
        kinds = [e.WhichOneof("payload") for e in events]
        task_id = events[0].task.id
        text = "".join(p.text for e in events if e.HasField("artifact_update") for p in e.artifact_update.artifact.parts)
        final = events[-1].status_update.status.state
        # Not streamed: one SendMessage, the task as it ends.
        plain, plain_http = await client_for(cuecard, streaming=False)
        asked = [e async for e in plain.send_message(SendMessageRequest(message=user("forecast")))][0].task
        followed = [e async for e in plain.send_message(SendMessageRequest(message=user("Oslo", task_id=asked.id)))][0].task
        got = await plain.get_task(GetTaskRequest(id=asked.id))
        with pytest.raises(TaskNotCancelableError):
            await plain.cancel_task(CancelTaskRequest(id=asked.id))
        with pytest.raises(TaskNotFoundError):
            await plain.get_task(GetTaskRequest(id="no-such-task"))
        open_task = [e async for e in plain.send_message(SendMessageRequest(message=user("again")))][0].task
        canceled = await plain.cancel_task(CancelTaskRequest(id=open_task.id))
        await http.aclose()
        await plain_http.aclose()
        return (kinds[0], kinds[-1], text, final, task_id, asked.status.state, asked.status.message.parts[0].text,
                followed.id == asked.id, followed.status.state, followed.artifacts[0].parts[0].text,
                len(got.history), canceled.status.state)

    (first, last, text, final, task_id, asked, question, same, followed, answer, history, canceled) = \
        asyncio.run(asyncio.wait_for(run(), timeout=20))
    assert (first, last, text, final) == ("task", "status_update", "Sunny in Paris, 22 degrees.",
                                          TaskState.TASK_STATE_COMPLETED)
    assert (asked, question) == (TaskState.TASK_STATE_INPUT_REQUIRED, "Which city?")
    assert (same, followed, answer, history) == (True, TaskState.TASK_STATE_COMPLETED, "Rain in Oslo.", 2)
    assert canceled == TaskState.TASK_STATE_CANCELED
    entries = cuecard.journal()["a2a"]["entries"]
    sends = [(e["method"], e["version"], e.get("text"), e.get("step")) for e in entries if "Message" in e["method"]]
    assert sends == [("SendStreamingMessage", "1.0", "weather in Paris?", 0), ("SendMessage", "1.0", "forecast", 1),
                     ("SendMessage", "1.0", "Oslo", 2), ("SendMessage", "1.0", "again", 3)]
    assert entries[0]["method"] == "card" and entries[0]["agent"] == "researcher"
    assert task_id == "00000000-0000-4000-8000-000000000001"
