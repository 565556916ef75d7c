"""An OpenAI-compatible provider's own SDK against `cuecard serve`: Mistral's `mistralai` (not a Stainless client; its
own SSE reader and models) calls the Chat Completions endpoint at `server_url`, whole, streamed, with tools, and
raises its own error class. The other OpenAI-compatible providers (DeepSeek, Groq, OpenRouter, Together, Fireworks,
vLLM) are the same endpoint under `base_url` (`docs/concepts/wire.md`, "OpenAI-compatible providers")."""
import pytest
from mistralai.client import Mistral
from mistralai.client import errors

from conftest import scenario

MODEL = "mistral-small-latest"


def client(cuecard) -> Mistral:
    return Mistral(api_key="test-key", server_url=cuecard.openai_url.removesuffix("/v1"))


def ask(text="Say hello"):
    return [{"role": "user", "content": text}]


def test_complete_whole_and_streamed(cuecard):
    cuecard.load(scenario({"text": "Bonjour !", "usage": {"input_tokens": 3, "output_tokens": 2}},
                          {"text": "Hello, world!"}))
    sdk = client(cuecard)
    reply = sdk.chat.complete(model=MODEL, messages=ask(), temperature=0.1)
    assert reply.choices[0].message.content == "Bonjour !"
    assert (reply.choices[0].finish_reason, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (
        "stop", 3, 2)
    pieces = [event.data.choices[0].delta.content for event in sdk.chat.stream(model=MODEL, messages=ask("Again"))
              if event.data.choices and event.data.choices[0].delta.content]
    assert pieces == ["Hello", ",", " world", "!"]
    whole, streamed = cuecard.entries()
    assert whole["raw"]["path"] == streamed["raw"]["path"] == "/v1/chat/completions"
    assert (whole["request"]["model"], whole["request"]["temperature"]) == (MODEL, 0.1)


def test_a_tool_call(cuecard):
    cuecard.load(scenario({"tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Lyon"}}]}))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    reply = client(cuecard).chat.complete(model=MODEL, messages=ask("Weather in Lyon?"), tools=tools)
    [call] = reply.choices[0].message.tool_calls
    assert (call.id, call.function.name, call.function.arguments, reply.choices[0].finish_reason) == (
        "call_1", "get_weather", '{"city":"Lyon"}', "tool_calls")


def test_a_failure_is_the_sdks_error(cuecard):
    cuecard.load(scenario({"fail": {"kind": "unauthorized", "message": "bad key"}}))
    with pytest.raises(errors.SDKError, match="bad key") as raised:
        client(cuecard).chat.complete(model=MODEL, messages=ask())
    assert raised.value.status_code == 401
