"""The official `cohere` Python SDK (`ClientV2`), unmodified, against `cuecard serve`'s `POST /v2/chat`: whole and
streamed answers, thinking, tool calls and their round trip, usage, a refused request, a failure the SDK retries,
and a failure in the middle of a stream."""
import cohere
import pytest

from conftest import scenario

# cohere 7 reads pydantic models through a deprecated attribute on every parse.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MODEL = "command-a-03-2025"


def client(cuecard, **options) -> cohere.ClientV2:
    return cohere.ClientV2(api_key="test-key", base_url=cuecard.anthropic_url, **options)


def ask(text="Say hello"):
    return [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}]


def test_chat_whole_with_usage(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 5, "output_tokens": 4}}))
    reply = client(cuecard).chat(model=MODEL, messages=ask(), temperature=0.2, p=0.9, max_tokens=50)
    assert [part.type for part in reply.message.content] == ["text"]
    assert reply.message.content[0].text == "Hello, world!"
    assert reply.finish_reason == "COMPLETE"
    assert (reply.usage.tokens.input_tokens, reply.usage.tokens.output_tokens) == (5, 4)
    assert reply.id == "00000000-0000-4000-8000-000000000001"
    [entry] = cuecard.entries()
    request = entry["request"]
    assert request["metadata"]["endpoint"] == "cohere_chat"
    assert (request["model"], request["temperature"], request["top_p"], request["max_tokens"]) == (MODEL, 0.2, 0.9, 50)
    assert [m["role"] for m in request["messages"]] == ["system", "user"]


def test_chat_stream_yields_the_word_like_tokens_then_message_end(cuecard):
    cuecard.load(scenario({"thinking": "A greeting.", "text": "Hello, world! Order 12345"}))
    events = list(client(cuecard).chat_stream(model=MODEL, messages=ask()))
    types = [event.type for event in events]
    assert types[0] == "message-start" and types[-1] == "message-end"
    thinking = [e.delta.message.content.thinking for e in events
                if e.type == "content-delta" and e.delta.message.content.thinking is not None]
    text = [e.delta.message.content.text for e in events
            if e.type == "content-delta" and e.delta.message.content.text is not None]
    assert "".join(thinking) == "A greeting."
    assert text == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]
    assert types.count("content-start") == types.count("content-end") == 2
    assert events[-1].delta.finish_reason == "COMPLETE"
    assert events[-1].delta.usage.tokens.output_tokens > 0


def test_a_tool_call_and_its_result_round_trip(cuecard):
    call = {"tool_calls": [{"id": "call_weather", "name": "get_weather", "arguments": {"city": "Paris"}}]}
    cuecard.load(scenario(call, {"text": "It is 22 degrees in Paris."}))
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather by city",
                                               "parameters": {"type": "object",
                                                              "properties": {"city": {"type": "string"}}}}}]
    sdk = client(cuecard)
    messages = ask("Weather in Paris?")
    first = sdk.chat(model=MODEL, messages=messages, tools=tools)
    assert first.finish_reason == "TOOL_CALL"
    [tool_call] = first.message.tool_calls
    assert (tool_call.id, tool_call.function.name, tool_call.function.arguments) == (
        "call_weather", "get_weather", '{"city":"Paris"}')
    messages += [{"role": "assistant", "tool_calls": first.message.tool_calls},
                 {"role": "tool", "tool_call_id": tool_call.id,
                  "content": [{"type": "document", "document": {"data": {"temperature": 22}}}]}]
    streamed = list(sdk.chat_stream(model=MODEL, messages=messages, tools=tools))
    assert "".join(e.delta.message.content.text for e in streamed if e.type == "content-delta") == (
        "It is 22 degrees in Paris.")
    first_request, second_request = (entry["request"] for entry in cuecard.entries())
    assert first_request["tools"][0]["name"] == "get_weather"
    tool_result = second_request["messages"][-1]
    assert (tool_result["role"], tool_result["tool_call_id"]) == ("tool", "call_weather")
    assert tool_result["content"] == [{"type": "text", "text": '{"temperature":22}'}]
    assert second_request["messages"][-2]["tool_calls"][0]["id"] == "call_weather"


def test_a_streamed_tool_call_arrives_in_pieces(cuecard):
    cuecard.load(scenario({"tool_calls": [{"id": "call_1", "name": "lookup", "arguments": {"q": "cuecard docs"}}]}))
    events = list(client(cuecard).chat_stream(model=MODEL, messages=ask("Look it up")))
    [start] = [e for e in events if e.type == "tool-call-start"]
    assert (start.delta.message.tool_calls.id, start.delta.message.tool_calls.function.name) == ("call_1", "lookup")
    arguments = "".join(e.delta.message.tool_calls.function.arguments for e in events if e.type == "tool-call-delta")
    assert arguments == '{"q":"cuecard docs"}'
    assert [e.type for e in events][-2:] == ["tool-call-end", "message-end"]
    assert events[-1].delta.finish_reason == "TOOL_CALL"


def test_a_rate_limit_is_retried_by_the_sdk_then_answered(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 10}}, {"text": "After the wait."}))
    reply = client(cuecard).chat(model=MODEL, messages=ask())
    assert reply.message.content[0].text == "After the wait."
    assert [entry["outcome"] for entry in cuecard.entries()] == ["failed", "answered"]


def test_failures_raise_the_sdks_own_classes(cuecard):
    cuecard.load(scenario({"fail": {"kind": "unauthorized", "message": "invalid api token"}}))
    with pytest.raises(cohere.UnauthorizedError) as raised:
        client(cuecard).chat(model=MODEL, messages=ask())
    assert raised.value.body["message"] == "invalid api token"
    assert raised.value.body["id"] == "req_1"
    cuecard.load(scenario("unused"))
    with pytest.raises(cohere.BadRequestError, match="is not system, user, assistant or tool"):
        client(cuecard).chat(model=MODEL, messages=[{"role": "chatbot", "content": "hi"}])


def test_a_failure_mid_stream_ends_the_message_with_error(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "server_error",
                                                                    "message": "the model crashed"}}))
    events = list(client(cuecard).chat_stream(model=MODEL, messages=ask()))
    text = [e.delta.message.content.text for e in events if e.type == "content-delta"]
    assert text == ["Partial", " answer"]
    assert (events[-1].type, events[-1].delta.finish_reason, events[-1].delta.error) == (
        "message-end", "ERROR", "the model crashed")
    assert [entry["outcome"] for entry in cuecard.entries()] == ["failed_after_tokens"]
