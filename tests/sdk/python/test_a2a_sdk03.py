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
    from a2a.client.errors import A2AClientHTTPError, A2AClientJSONRPCError
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


def test_a2a_sdk_03_reads_a_stream_cut_before_the_task_ends_and_raises(cuecard):
    """`cut_after: 4`: the 0.3 client yields the task, `working` and two artifact chunks (no update `final`), then
    raises its HTTP error (503, the broken chunked body)."""
    cuecard.load({"cuecard": 1, "a2a": {"agents": [{"name": "writer", "steps": [
        {"text": "A long answer that breaks off", "cut_after": 4}]}]}})

    async def run():
        http = httpx.AsyncClient(timeout=10)
        client = await ClientFactory.connect(cuecard.base + "/a2a/writer",
                                             client_config=ClientConfig(streaming=True, httpx_client=http))
        seen = []
        with pytest.raises(A2AClientHTTPError) as cut:
            async for task, update in client.send_message(user("write")):
                seen.append((task.status.state, type(update).__name__))
        await http.aclose()
        return seen, cut.value

    seen, cut = asyncio.run(asyncio.wait_for(run(), timeout=20))
    assert seen == [(TaskState.submitted, "NoneType"), (TaskState.working, "TaskStatusUpdateEvent"),
                    (TaskState.working, "TaskArtifactUpdateEvent"), (TaskState.working, "TaskArtifactUpdateEvent")]
    assert cut.status_code == 503 and "incomplete chunked read" in str(cut)


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


def test_a_real_agent_is_recorded_through_cuecard_record_and_replayed_without_it(cuecard, tmp_path):
    """A partner agent nobody here wrote — a Strands agent served by Strands' own `A2AServer` (over a2a-sdk 0.3's
    server), its model scripted on `cuecard serve` — recorded once through `cuecard record --upstream a2a=URL` by
    the a2a-sdk 0.3 client, then replayed by `cuecard serve` on the recording alone: the client gets the same
    answers, streamed and not, and the partner's model is not asked again."""
    import subprocess
    import threading

    import uvicorn
    from strands import Agent
    from strands.multiagent.a2a import A2AServer
    from strands.models.openai import OpenAIModel

    from conftest import _binary, _serve

    cuecard.load({"cuecard": 1, "routes": [{"steps": [
        {"text": "Booked Paris for Tuesday."}, {"text": "Rome is full; Wednesday instead?"}]}]})
    model = OpenAIModel(client_args={"base_url": cuecard.openai_url, "api_key": "test-key"}, model_id="gpt-4o")
    partner = Agent(name="Trip Planner", description="Books trips", model=model, callback_handler=None)
    a2a_server = A2AServer(partner, host="127.0.0.1", port=0)
    config = uvicorn.Config(a2a_server.to_starlette_app(), host="127.0.0.1", port=0, log_level="warning")
    web = uvicorn.Server(config)
    thread = threading.Thread(target=web.run, daemon=True)
    thread.start()
    while not web.started:
        thread.join(0.05)
    port = web.servers[0].sockets[0].getsockname()[1]

    recording = tmp_path / "partner-a2a.yaml"
    recorder = subprocess.Popen([_binary(), "record", "--upstream", f"a2a=http://127.0.0.1:{port}", "--out",
                                 str(recording), "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env={k: v for k, v in __import__("os").environ.items() if k != "CI"})
    proxy = recorder.stdout.readline().split("http://")[1].split()[0].rstrip("/")

    async def conversation(base):
        http = httpx.AsyncClient(timeout=10)
        answers = []
        for streaming, text in [(True, "Book Paris"), (False, "Book Rome")]:
            client = await ClientFactory.connect(base, client_config=ClientConfig(streaming=streaming, httpx_client=http))
            task, _ = [e async for e in client.send_message(user(text))][-1]
            said = "".join(p.root.text for a in task.artifacts or [] for p in a.parts)
            answers.append((task.status.state, said))
        await http.aclose()
        return answers

    try:
        live = asyncio.run(asyncio.wait_for(conversation(f"http://{proxy}/a2a"), timeout=30))
    finally:
        recorder.terminate()
        said = recorder.communicate(timeout=10)[1]
        web.should_exit = True
        thread.join(10)
    assert "4 exchange(s) recorded" in said, said  # two cards (a client each) and two messages
    assert [state for state, _ in live] == [TaskState.completed, TaskState.completed]
    assert "Booked Paris for Tuesday." in live[0][1] and "Wednesday" in live[1][1], live
    model_calls = len(cuecard.entries())
    assert model_calls == 2, "the partner's model answered each message once"
    text = recording.read_text()
    assert "a2a:" in text and "name: Trip-Planner" in text and "description: Books trips" in text, text

    replay = _serve("--scenario", str(recording))
    try:
        replayed = asyncio.run(asyncio.wait_for(conversation(replay.base + "/a2a"), timeout=30))
        unused = replay.journal()["a2a"]
    finally:
        replay.process.terminate()
        replay.process.wait(timeout=10)
    assert replayed == live
    assert len(cuecard.entries()) == model_calls, "the replay did not need the partner or its model"
    assert [e["text"] for e in unused["entries"] if e["method"] != "card"] == ["Book Paris", "Book Rome"]
