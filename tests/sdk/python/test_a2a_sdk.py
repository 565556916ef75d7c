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
from a2a.client.errors import A2AClientError  # noqa: E402
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


def test_a2a_sdk_reads_a_stream_cut_before_the_task_ends_and_raises(cuecard):
    """`cut_after: 4` drops the connection after the task, `working` and two chunks: the client yields those four
    events, then raises its network error — the task never reached a final state."""
    cuecard.load({"cuecard": 1, "a2a": {"agents": [{"name": "writer", "steps": [
        {"text": "A long answer that breaks off", "cut_after": 4}]}]}})

    async def run():
        http = httpx.AsyncClient(timeout=10)
        client = await ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create_from_url(
            cuecard.base + "/a2a/writer")
        seen = []
        with pytest.raises(A2AClientError) as cut:
            async for event in client.send_message(SendMessageRequest(message=user("write"))):
                seen.append(event)
        await http.aclose()
        return seen, cut.value

    seen, cut = asyncio.run(asyncio.wait_for(run(), timeout=20))
    assert [e.WhichOneof("payload") for e in seen] == ["task", "status_update", "artifact_update", "artifact_update"]
    assert "".join(p.text for e in seen[2:] for p in e.artifact_update.artifact.parts) == "A long"
    assert "incomplete chunked read" in str(cut)


def test_a2a_sdk_push_notifications_reach_a_webhook_on_loopback(cuecard):
    """Push notifications with the official client: a webhook given in the client's config hears the task as it
    ends (its token with it), and one registered for an interrupted task (`create_task_push_notification_config`)
    hears it end after the follow-up — each POST a v1.0 `StreamResponse`, the journal naming the webhook."""
    import http.server
    import json
    import queue
    import threading

    from a2a.types import AuthenticationInfo, TaskPushNotificationConfig

    received = queue.Queue()

    class Webhook(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            received.put((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{hook.server_address[1]}"
    cuecard.load({"cuecard": 1, "a2a": {"agents": [{"name": "booker", "push_notifications": True, "steps": [
        {"text": "Booked."},
        {"state": "input_required", "status": "Which day?"},
        {"text": "Booked for Tuesday."},
    ]}]}})

    async def run():
        http_client = httpx.AsyncClient(timeout=10)
        config = TaskPushNotificationConfig(url=url + "/inline", token="tok-1")
        client = await ClientFactory(ClientConfig(streaming=False, httpx_client=http_client,
                                                  push_notification_config=config)).create_from_url(
            cuecard.base + "/a2a/booker")
        booked = [e async for e in client.send_message(SendMessageRequest(message=user("book it")))][0].task
        plain = await ClientFactory(ClientConfig(streaming=False, httpx_client=http_client)).create_from_url(
            cuecard.base + "/a2a/booker")
        asked = [e async for e in plain.send_message(SendMessageRequest(message=user("book Rome")))][0].task
        await plain.create_task_push_notification_config(TaskPushNotificationConfig(
            task_id=asked.id, url=url + "/registered",
            authentication=AuthenticationInfo(scheme="Bearer", credentials="hook-secret")))
        await plain.send_message(SendMessageRequest(message=user("Tuesday", task_id=asked.id))).__anext__()
        await http_client.aclose()
        return booked, asked

    booked, asked = asyncio.run(asyncio.wait_for(run(), timeout=20))
    pushes = sorted([received.get(timeout=10), received.get(timeout=10)], key=lambda push: push[0])
    hook.shutdown()
    (inline_path, inline_headers, inline_body), (registered_path, registered_headers, registered_body) = pushes
    assert inline_path == "/inline" and inline_headers["x-a2a-notification-token"] == "tok-1"
    assert inline_body["task"]["id"] == booked.id
    assert inline_body["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert registered_path == "/registered" and registered_headers["authorization"] == "Bearer hook-secret"
    assert registered_headers["content-type"] == "application/a2a+json"
    assert registered_body["task"]["id"] == asked.id
    assert registered_body["task"]["artifacts"][0]["parts"][0]["text"] == "Booked for Tuesday."
    assert received.empty(), "the interrupted task told no webhook before it ended"
    pushed = [(e["method"], e.get("pushed")) for e in cuecard.journal()["a2a"]["entries"] if e["method"] != "card"]
    assert pushed == [("SendMessage", [url + "/inline"]), ("SendMessage", None),
                      ("CreateTaskPushNotificationConfig", None), ("SendMessage", [url + "/registered"])]
