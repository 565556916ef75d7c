"""The official `openai` Python SDK's realtime clients, unmodified, against `cuecard serve` over WebSocket:
`client.realtime.connect()` (text, audio with its transcript, a tool round trip, a server-VAD turn from spoken
audio, an error event, a dropped socket) and the Responses API's WebSocket mode (`client.responses.connect()`),
and the OpenAI Agents SDK's `RealtimeSession` running a tool. Each session's messages are in the journal."""
import asyncio
import base64
import ssl
import struct

import openai
import pytest
import websockets

from conftest import scenario

pytest.importorskip("agents")

WEATHER = {"type": "function", "name": "get_weather", "description": "The weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


def spoken(text: str, rate: int = 24000) -> bytes:
    """cuecard's deterministic voice (realtime spec §5.2): each UTF-8 byte a 20 ms square wave of amplitude
    64·(b+1). Written here from the spec, so the test checks the server against the rule, not against itself."""
    per_byte = rate // 50
    out = bytearray()
    for byte in text.encode():
        amplitude = 64 * (byte + 1)
        out += b"".join(struct.pack("<h", amplitude if i % 8 < 4 else -amplitude) for i in range(per_byte))
    return bytes(out)


def text_of(audio: bytes, rate: int = 24000) -> str:
    """The text cuecard's voice speaks in `audio` (the inverse of `spoken`)."""
    per_byte = rate // 50 * 2
    return bytes(struct.unpack_from("<h", audio, i)[0] // 64 - 1 for i in range(0, len(audio), per_byte)).decode()


def client(cuecard) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=20))


async def events_until(connection, last: str) -> list:
    seen = []
    async for event in connection:
        seen.append(event)
        if event.type == last:
            return seen
    raise AssertionError(f"the socket ended before {last}: {[e.type for e in seen]}")


def socket_events(cuecard) -> list:
    return cuecard.journal().get("sockets", [])


def test_realtime_text_and_a_tool_round_trip(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                          "It is sunny in Paris."))

    async def converse():
        async with client(cuecard).realtime.connect(model="gpt-realtime") as connection:
            await connection.session.update(session={"type": "realtime", "output_modalities": ["text"],
                                                     "instructions": "Be brief.", "tools": [WEATHER]})
            await connection.conversation.item.create(
                item={"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather?"}]})
            await connection.response.create()
            first = await events_until(connection, "response.done")
            call = first[-1].response.output[0]
            await connection.conversation.item.create(
                item={"type": "function_call_output", "call_id": call.call_id, "output": '{"sky":"clear"}'})
            await connection.response.create()
            second = await events_until(connection, "response.done")
            return first, call, second

    first, call, second = run(converse())
    assert [e.type for e in first][:2] == ["session.created", "conversation.created"]
    assert (call.type, call.name, call.arguments, call.status) == ("function_call", "get_weather",
                                                                   '{"city":"Paris"}', "completed")
    text = "".join(e.delta for e in second if e.type == "response.output_text.delta")
    assert text == "It is sunny in Paris."
    assert second[-1].response.usage.output_tokens > 0
    # Each response took a step: the second request carries the tool's output back.
    first_request, second_request = [e["request"] for e in cuecard.entries()]
    assert first_request["metadata"]["endpoint"] == "realtime"
    assert second_request["messages"][0] == {"role": "system", "content": [{"type": "text", "text": "Be brief."}]}
    assert second_request["messages"][-1]["tool_call_id"] == call.call_id
    client_events = [e["type"] for e in socket_events(cuecard) if e["direction"] == "client"]
    assert client_events == ["open", "session.update", "conversation.item.create", "response.create",
                             "conversation.item.create", "response.create", "close"]


def test_realtime_audio_answers_carry_the_voice_and_its_transcript(cuecard):
    cuecard.load(scenario("Hello there."))

    async def converse():
        async with client(cuecard).realtime.connect(model="gpt-realtime") as connection:
            await connection.session.update(session={"type": "realtime", "output_modalities": ["audio"]})
            await connection.response.create()
            return await events_until(connection, "response.done")

    events = run(converse())
    audio = b"".join(base64.b64decode(e.delta) for e in events if e.type == "response.output_audio.delta")
    transcript = next(e.transcript for e in events if e.type == "response.output_audio_transcript.done")
    assert transcript == "Hello there."
    assert text_of(audio) == "Hello there."
    done = events[-1].response
    assert done.output[0].content[0].type == "output_audio" and done.output[0].content[0].transcript == transcript


def test_a_server_vad_turn_from_spoken_audio_is_transcribed_and_answered(cuecard):
    cuecard.load(scenario("I heard you."))

    async def converse():
        async with client(cuecard).realtime.connect(model="gpt-realtime") as connection:
            await connection.session.update(session={
                "type": "realtime", "output_modalities": ["text"],
                "audio": {"input": {"transcription": {"model": "gpt-4o-mini-transcribe"},
                                    "turn_detection": {"type": "server_vad", "silence_duration_ms": 200}}}})
            silence = bytes(960 * 10)
            for chunk in (silence, spoken("What time is it?"), silence, silence):
                await connection.input_audio_buffer.append(audio=base64.b64encode(chunk).decode())
            return await events_until(connection, "response.done")

    events = run(converse())
    types = [e.type for e in events]
    assert types.index("input_audio_buffer.speech_started") < types.index("input_audio_buffer.speech_stopped") \
        < types.index("input_audio_buffer.committed") < types.index("response.created")
    started = next(e for e in events if e.type == "input_audio_buffer.speech_started")
    # Speech began after 200 ms of silence; the default 300 ms of prefix padding takes the start back to 0.
    assert started.audio_start_ms == 0
    completed = next(e for e in events if e.type == "conversation.item.input_audio_transcription.completed")
    assert completed.transcript == "What time is it?"
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "I heard you."
    # The spoken words are the user's turn of the request the response answered.
    assert cuecard.entries()[0]["request"]["messages"][-1]["content"][0]["text"] == "What time is it?"


def test_errors_are_events_with_the_real_codes_and_the_session_stays_usable(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited"}}, "Recovered."))

    async def converse():
        async with client(cuecard).realtime.connect(model="gpt-realtime") as connection:
            await connection.session.update(session={"output_modalities": ["text"]})  # no session.type
            await connection.input_audio_buffer.commit()
            await connection.response.create(event_id="ask-1")
            failed = await events_until(connection, "response.done")
            await connection.response.create()
            recovered = await events_until(connection, "response.done")
            return failed, recovered

    failed, recovered = run(converse())
    errors = [e.error for e in failed if e.type == "error"]
    assert [(e.code, e.param) for e in errors] == [("missing_required_parameter", "session.type"),
                                                   ("input_audio_buffer_commit_empty", None),
                                                   ("rate_limit_exceeded", None)]
    assert errors[2].event_id == "ask-1"
    assert failed[-1].response.status == "failed"
    assert recovered[-1].response.status == "completed"


def test_a_dropped_socket_ends_the_sdk_iteration_with_an_error(cuecard):
    cuecard.load(scenario({"text": "Cut short", "fail_after": {"kind": "connection_reset"}}))

    async def converse():
        async with client(cuecard).realtime.connect(model="gpt-realtime") as connection:
            await connection.session.update(session={"type": "realtime", "output_modalities": ["text"]})
            await connection.response.create()
            seen = []
            with pytest.raises(websockets.exceptions.ConnectionClosedError) as closed:
                async for event in connection:
                    seen.append(event.type)
            return seen, closed.value

    seen, closed = run(converse())
    assert "response.output_text.delta" in seen and "response.done" not in seen
    assert closed.rcvd is None  # no close frame: a cut connection (1006)


def test_the_responses_websocket_mode_chains_responses_on_one_socket(cuecard):
    cuecard.load(scenario("First answer.", "Second answer."))

    async def converse():
        async with client(cuecard).responses.connect() as connection:
            await connection.response.create(model="gpt-5", input="hi", store=False)
            first = await events_until(connection, "response.completed")
            response_id = first[-1].response.id
            await connection.response.create(model="gpt-5", input="more", store=False,
                                              previous_response_id=response_id)
            second = await events_until(connection, "response.completed")
            await connection.response.create(model="gpt-5", input="x", store=False, previous_response_id="resp_x")
            error = await events_until(connection, "error")
            return first, second, error

    first, second, error = run(converse())
    assert first[-1].response.output_text == "First answer."
    assert second[-1].response.output_text == "Second answer."
    assert second[-1].response.previous_response_id == first[-1].response.id
    assert all(e.sequence_number is not None for e in first)
    assert error[-1].error.code == "previous_response_not_found"
    entries = cuecard.entries()
    assert [e["request"]["metadata"]["extra"]["transport"] for e in entries] == ["websocket", "websocket"]


def test_the_agents_sdk_realtime_session_runs_a_tool(cuecard):
    from agents import function_tool
    from agents.realtime import RealtimeAgent, RealtimeRunner

    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                          "Sunny in Paris."))
    calls = []

    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        calls.append(city)
        return "sunny"

    agent = RealtimeAgent(name="assistant", instructions="Answer about the weather.", tools=[get_weather])
    url = cuecard.openai_url.replace("http://", "ws://") + "/realtime?model=gpt-realtime"

    async def converse():
        runner = RealtimeRunner(agent, config={"model_settings": {"output_modalities": ["text"]}})
        session = await runner.run(model_config={"url": url, "api_key": "test-key"})
        async with session:
            await session.send_message("Weather in Paris?")
            kinds = []
            async for event in session:
                kinds.append(event.type)
                if event.type == "tool_end":
                    tool_output = event.output
                if event.type == "agent_end" and "tool_end" in kinds:
                    return kinds, tool_output
                if event.type == "error":
                    raise AssertionError(f"realtime error: {event.error}")

    kinds, tool_output = run(converse())
    assert calls == ["Paris"]
    assert tool_output == "sunny"
    # The second response answered after the tool's output went back as a function_call_output item.
    second = cuecard.entries()[1]["request"]
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["content"][0]["text"] == "sunny"


def test_google_genai_live_over_wss_text_tools_spoken_audio_and_a_close(tls_server):
    from google import genai
    from google.genai import errors, types

    tls_server.load(scenario("Hello from Gemini.", {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                             "It is sunny.", "I heard you.", {"fail": {"kind": "bad_request", "message": "Bad turn."}}))
    # google-genai always connects with wss: and its own SSL context: trust the server's test CA in it.
    trusted = ssl.create_default_context(cafile=tls_server.ca)
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(
        base_url=tls_server.anthropic_url.replace("http://", "https://"), async_client_args={"ssl": trusted}))
    weather = types.Tool(function_declarations=[types.FunctionDeclaration(
        name="get_weather", description="The weather in a city.",
        parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}))])
    config = types.LiveConnectConfig(response_modalities=["TEXT"], tools=[weather],
                                     input_audio_transcription=types.AudioTranscriptionConfig())

    async def converse():
        async with client.aio.live.connect(model="gemini-live-2.5-flash", config=config) as session:
            await session.send_client_content(turns=types.Content(role="user", parts=[types.Part(text="hi")]))
            first = [m async for m in session.receive()]
            await session.send_client_content(turns=types.Content(role="user", parts=[types.Part(text="weather?")]))
            second = []
            async for message in session.receive():
                second.append(message)
                if message.tool_call:
                    call = message.tool_call.function_calls[0]
                    await session.send_tool_response(function_responses=[
                        types.FunctionResponse(id=call.id, name=call.name, response={"output": "sunny"})])
            await session.send_realtime_input(audio=types.Blob(data=spoken("hello", 16000),
                                                               mime_type="audio/pcm;rate=16000"))
            await session.send_realtime_input(audio_stream_end=True)
            third = [m async for m in session.receive()]
            await session.send_client_content(turns=types.Content(role="user", parts=[types.Part(text="again")]))
            with pytest.raises(errors.APIError) as closed:
                async for _ in session.receive():
                    pass
            return first, second, third, closed.value

    first, second, third, closed = run(converse())
    assert "".join(m.text or "" for m in first) == "Hello from Gemini."
    assert first[-1].server_content.turn_complete and first[-1].usage_metadata.total_token_count > 0
    call = next(m.tool_call.function_calls[0] for m in second if m.tool_call)
    assert (call.id, call.name, call.args) == ("call_1", "get_weather", {"city": "Paris"})
    assert "".join(m.text or "" for m in second) == "It is sunny."
    assert third[0].server_content.input_transcription.text == "hello"
    assert "".join(m.text or "" for m in third) == "I heard you."
    # A failed turn closes the socket with Gemini's code and reason, which the SDK raises.
    assert (closed.code, closed.details) == (1007, "Bad turn.")
    entries = tls_server.entries()
    assert [e["request"]["metadata"]["endpoint"] for e in entries] == ["gemini_live"] * 5
    assert entries[1]["request"]["messages"][-1]["content"][0]["text"] == "weather?"


def test_google_genai_live_go_away_announces_the_end_and_the_socket_closes(tls_server):
    from google import genai
    from google.genai import errors, types

    tls_server.load(scenario({"text": "Wrapping up.", "go_away_ms": 10000}))
    trusted = ssl.create_default_context(cafile=tls_server.ca)
    client = genai.Client(api_key="test-key", http_options=types.HttpOptions(
        base_url=tls_server.anthropic_url.replace("http://", "https://"), async_client_args={"ssl": trusted}))

    async def converse():
        config = types.LiveConnectConfig(response_modalities=["TEXT"])
        async with client.aio.live.connect(model="gemini-live-2.5-flash", config=config) as session:
            await session.send_realtime_input(text="hi")
            turn = [m async for m in session.receive()]
            after = []
            with pytest.raises(errors.APIError) as closed:
                async for message in session.receive():
                    after.append(message)
            return turn, after, closed.value

    turn, after, closed = run(converse())
    assert "".join(m.text or "" for m in turn) == "Wrapping up."
    assert [m.go_away.time_left for m in after if m.go_away] == ["10s"]
    assert closed.code == 1000
