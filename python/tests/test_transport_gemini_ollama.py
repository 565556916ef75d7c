"""google-genai and ollama in-process through the cuecard transports (no socket): `cuecard.gemini_client` and
`cuecard.ollama_client`, sync and async, streams, tool calls, errors. CI installs both SDKs (tests/sdk/python)."""
import asyncio

import pytest

import cuecard

genai = pytest.importorskip("google.genai")
ollama = pytest.importorskip("ollama")


def test_gemini_whole_stream_tool_call_and_error():
    mock = (cuecard.MockModel.that_responds({"text": "Hello, world!", "usage": {"input_tokens": 2, "output_tokens": 4}})
            .then_responds("Streamed text.")
            .then_calls_tool("get_weather", {"city": "Paris"})
            .then_fails("rate_limited"))
    client = cuecard.gemini_client(mock)
    reply = client.models.generate_content(model="gemini-2.5-flash", contents="hi")
    assert (reply.text, reply.usage_metadata.total_token_count) == ("Hello, world!", 6)
    pieces = [c.text for c in client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi") if c.text]
    assert pieces == ["Streamed", " text", "."]
    [call] = client.models.generate_content(model="gemini-2.5-flash", contents="weather?").function_calls
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    with pytest.raises(genai.errors.ClientError) as raised:
        client.models.generate_content(model="gemini-2.5-flash", contents="x")
    assert raised.value.code == 429
    assert [e["request"]["metadata"]["endpoint"] for e in mock.entries()] == ["gemini_generate"] * 4
    assert mock.entries()[0]["request"]["model"] == "gemini-2.5-flash"


def test_gemini_async_through_aio():
    mock = cuecard.MockModel.that_responds("async hello")

    async def run():
        client = cuecard.gemini_client(mock)
        return (await client.aio.models.generate_content(model="gemini-2.5-flash", contents="hi")).text

    assert asyncio.run(run()) == "async hello"


def test_ollama_sync_and_async_chat_stream_and_error():
    mock = (cuecard.MockModel.that_responds({"thinking": "Hm.", "text": "Hello, world!"})
            .then_responds("Streamed text.")
            .then_fails("server_error", message="runner crashed")
            .then_responds("async hello"))
    client = cuecard.ollama_client(mock)
    reply = client.chat(model="qwen3", messages=[{"role": "user", "content": "hi"}], think=True)
    assert (reply.message.thinking, reply.message.content) == ("Hm.", "Hello, world!")
    parts = [p.message.content for p in client.chat(model="qwen3", messages=[{"role": "user", "content": "hi"}], stream=True)]
    assert parts == ["Streamed", " text", ".", ""]
    with pytest.raises(ollama.ResponseError) as raised:
        client.chat(model="qwen3", messages=[{"role": "user", "content": "x"}])
    assert (raised.value.status_code, raised.value.error) == (500, "runner crashed")

    async def run():
        return (await cuecard.ollama_client(mock, async_=True).chat(model="qwen3", messages=[{"role": "user", "content": "x"}])).message.content

    assert asyncio.run(run()) == "async hello"
    assert [e["request"]["metadata"]["endpoint"] for e in mock.entries()] == ["ollama_chat"] * 4
