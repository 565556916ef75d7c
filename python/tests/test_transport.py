"""The official SDKs in-process through the cuecard transports (no socket): sync and async, streaming, errors and
the SDKs' own retries. Skipped where the SDKs are not installed; CI installs them."""
import asyncio
import json

import pytest

import cuecard

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")


def test_openai_sync_text_stream_and_retry():
    mock = cuecard.MockModel.that_fails("rate_limited", retry_after=0.001).then_responds("Hello, world!").then_responds(
        "Streamed text.")
    client = cuecard.openai_client(mock, max_retries=2)
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "Hello, world!"
    stream = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    tokens = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert tokens == ["Streamed", " text", "."]
    assert [e["outcome"] for e in mock.entries()] == ["failed", "answered", "answered"]
    assert mock.entries()[0]["request"]["metadata"]["endpoint"] == "chat_completions"


def test_openai_errors_and_a_cut_stream():
    mock = cuecard.MockModel.that_fails("unauthorized").then_responds("Partial answer").and_fails("connection_reset")
    client = cuecard.openai_client(mock, max_retries=2)
    with pytest.raises(openai.AuthenticationError):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    stream = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    received = []
    http = cuecard.transport._http_module_of(openai.DefaultHttpxClient)
    with pytest.raises((openai.APIConnectionError, http.RemoteProtocolError)) as raised:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                received.append(chunk.choices[0].delta.content)
    assert received == ["Partial", " answer"]
    # As over a real socket: openai 3.x (httpx2) wraps the broken-body error in APIConnectionError; openai 2.x
    # (httpx) lets the transport's own RemoteProtocolError through.
    error = raised.value
    cause = error.__cause__ if isinstance(error, openai.APIConnectionError) else error
    assert "peer closed connection" in str(cause)
    assert mock.request_count() == 2


def test_a_reset_before_headers_is_retried_as_a_connection_error():
    mock = cuecard.MockModel.that_fails("connection_reset").then_responds("after the reset")
    client = cuecard.openai_client(mock, max_retries=1)
    reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "after the reset"


def test_openai_async_tool_call():
    mock = cuecard.MockModel.that_calls_tool("get_weather", {"city": "Paris"})

    async def main():
        client = cuecard.openai_client(mock, async_=True)
        return await client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "weather?"}])

    reply = asyncio.run(main())
    call = reply.choices[0].message.tool_calls[0]
    assert (call.function.name, json.loads(call.function.arguments)) == ("get_weather", {"city": "Paris"})


def test_anthropic_sync_stream_helper_and_async():
    mock = cuecard.MockModel.that_responds({"thinking": "Plan.", "text": "Hi there!"}).then_responds("Async hello.")
    client = cuecard.anthropic_client(mock)
    with client.messages.stream(model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]) as stream:
        text = list(stream.text_stream)
        final = stream.get_final_message()
    assert text == ["Hi", " there", "!"]
    assert [b.type for b in final.content] == ["thinking", "text"]

    async def main():
        client = cuecard.anthropic_client(mock, async_=True)
        return await client.messages.create(model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}])

    assert asyncio.run(main()).content[0].text == "Async hello."


def test_a_plain_httpx_client_streams_from_the_mock():
    httpx = pytest.importorskip("httpx")
    mock = cuecard.MockModel.that_responds("via httpx").then_responds({"thinking": "hm", "text": "streamed"})
    client = httpx.Client(transport=cuecard.transport_for(httpx, mock), base_url="http://cuecard.invalid")
    reply = client.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert reply.headers["content-type"] == "application/json"
    assert reply.json()["choices"][0]["message"]["content"] == "via httpx"
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with client.stream("POST", "/v1/messages", json=body) as streamed:
        events = [line[len("event: "):] for line in streamed.iter_lines() if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert "content_block_delta" in events


def test_scripted_delays_are_waited_in_real_time_when_not_instant():
    import time

    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [
        {"text": "one two three", "ttft_ms": 60, "token_delay_ms": 40}]}]})
    client = cuecard.openai_client(mock, instant=False)
    started = time.monotonic()
    stream = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    tokens = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert tokens == ["one", " two", " three"]
    assert time.monotonic() - started >= 0.14  # 60 ms to the first token, then two of 40 ms


def test_a_transport_follows_the_mocks_instant_setting_unless_told():
    import time

    import httpx

    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "instant": True, "on_exhausted": "repeat_last",
                                            "routes": [{"steps": [{"text": "late", "delay_ms": 3000}]}]})
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    started = time.monotonic()
    for transport in (cuecard.transport_for(httpx, mock), cuecard.async_transport_for(httpx, mock)):
        if isinstance(transport, httpx.AsyncBaseTransport):
            async def post():
                async with httpx.AsyncClient(transport=transport, base_url="http://cuecard.invalid") as http:
                    return await http.post("/v1/chat/completions", json=body)
            reply = asyncio.run(post())
        else:
            reply = httpx.Client(transport=transport, base_url="http://cuecard.invalid").post(
                "/v1/chat/completions", json=body)
        assert reply.json()["choices"][0]["message"]["content"] == "late"
    assert time.monotonic() - started < 2.5  # the mock is instant: neither waited its scripted 3 s
    paced = cuecard.MockModel.from_scenario({"cuecard": 1, "instant": True,
                                             "routes": [{"steps": [{"text": "late", "delay_ms": 150}]}]})
    started = time.monotonic()
    with httpx.Client(transport=cuecard.transport_for(httpx, paced, instant=False),
                      base_url="http://cuecard.invalid") as http:
        http.post("/v1/chat/completions", json=body)
    assert time.monotonic() - started >= 0.14  # told not to be instant: the scripted 150 ms are waited


def _delivered_mock(**delivery):
    step = {"text": "Grüße aus Köln — 東京 🌧️", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Köln"}}]}
    return cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [step] * 2}], "delivery": delivery})


def test_a_delivery_setting_reaches_the_sdk_as_the_same_seeded_reads_in_process():
    import httpx
    mock = _delivered_mock(seed=3, max_chunk_bytes=7, keepalives=True)
    body = {"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with httpx.Client(transport=cuecard.transport_for(httpx, mock, instant=True), base_url="http://cuecard.invalid") as http:
        with http.stream("POST", "/v1/chat/completions", json=body) as response:
            reads = list(response.iter_raw())
            seed = response.headers["x-cuecard-delivery-seed"]
    # Each write of the delivery is one read, cut inside UTF-8 sequences too: as the wire server sends them.
    assert len(reads) > 20 and max(map(len, reads)) <= 7
    assert any(_splits_a_character(b"".join(reads[:i])) for i in range(1, len(reads)))
    assert b": keep-alive\n\n" in b"".join(reads)
    assert int(seed) == mock.entries()[0]["delivery_seed"]
    # The SDK reads the same cuts to the same message.
    final = cuecard.openai_client(mock).chat.completions.create(
        model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    chunks = list(final)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Grüße aus Köln — 東京 🌧️"
    assert mock.entries()[1]["delivery_seed"] != mock.entries()[0]["delivery_seed"]


def _splits_a_character(prefix: bytes) -> bool:
    try:
        prefix.decode()
        return False
    except UnicodeDecodeError:
        return True
