"""The official `anthropic` Python SDK, unmodified, against `cuecard serve`: Messages whole and streamed,
thinking, tool use, usage, errors (401, 429, 529) and the SDK's own retries, mid-stream failures, token counts; and
`AnthropicVertex`, which sends the same bodies to Vertex AI's `:rawPredict` and `:streamRawPredict` paths."""
import anthropic
import pytest

from conftest import scenario


def client(cuecard, **options) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=cuecard.anthropic_url, api_key="test-key", **options)


def ask(text="Say hello"):
    return [{"role": "user", "content": text}]


def outcomes(cuecard):
    return [entry["outcome"] for entry in cuecard.entries()]


def test_text_whole(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 5, "output_tokens": 4}}))
    message = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, system="Be brief.",
                                              messages=ask())
    assert [block.type for block in message.content] == ["text"]
    assert message.content[0].text == "Hello, world!"
    assert (message.stop_reason, message.model, message.id) == ("end_turn", "claude-test-model", "msg_1")
    assert (message.usage.input_tokens, message.usage.output_tokens) == (5, 4)
    [entry] = cuecard.entries()
    assert entry["request"]["messages"][0] == {"role": "system", "content": [{"type": "text", "text": "Be brief."}]}
    assert entry["request"]["metadata"]["endpoint"] == "messages"


def test_count_tokens_is_the_input_the_same_message_reports(cuecard):
    cuecard.load(scenario("Sunny."))
    sdk = client(cuecard)
    conversation = [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "Checking."},
                    {"role": "user", "content": [{"type": "text", "text": "In Celsius, please."}]}]
    counted = sdk.messages.count_tokens(model="claude-test-model", system="You are terse.", messages=conversation)
    sent = sdk.messages.create(model="claude-test-model", max_tokens=50, system="You are terse.",
                               messages=conversation)
    assert counted.input_tokens == sent.usage.input_tokens > 0
    count, message = cuecard.entries()
    assert count["request"]["metadata"]["endpoint"] == "anthropic_count_tokens"
    assert count["request"]["messages"] == message["request"]["messages"]
    with pytest.raises(anthropic.BadRequestError, match="request.messages must be an array, found null"):
        sdk.messages.count_tokens(model="claude-test-model", messages=None)  # type: ignore[arg-type]


def vertex(cuecard) -> anthropic.AnthropicVertex:
    # An access token is given, so the client needs no Google credentials (nor google-auth).
    return anthropic.AnthropicVertex(region="us-east5", project_id="test-project", access_token="test-token",
                                     base_url=cuecard.anthropic_url + "/v1")


def test_claude_on_vertex_whole_streamed_and_counted(cuecard):
    cuecard.load(scenario({"text": "Hello from Vertex."}, {"text": "Streamed, too."}))
    sdk = vertex(cuecard)
    message = sdk.messages.create(model="claude-sonnet-4@20250514", max_tokens=64, messages=ask())
    assert (message.content[0].text, message.model, message.stop_reason) == (
        "Hello from Vertex.", "claude-sonnet-4@20250514", "end_turn")
    with sdk.messages.stream(model="claude-sonnet-4@20250514", max_tokens=64, messages=ask("Again")) as stream:
        assert list(stream.text_stream) == ["Streamed", ",", " too", "."]
    counted = sdk.messages.count_tokens(model="claude-sonnet-4@20250514", messages=ask())
    assert counted.input_tokens == message.usage.input_tokens > 0
    whole, streamed, count = cuecard.entries()
    assert [e["request"]["metadata"]["endpoint"] for e in (whole, streamed, count)] == [
        "messages", "messages", "anthropic_count_tokens"]
    assert whole["request"]["model"] == "claude-sonnet-4@20250514"
    assert ("stream" in whole["request"], streamed["request"]["stream"]) == (False, True)
    assert streamed["raw"]["path"].endswith("/models/claude-sonnet-4@20250514:streamRawPredict")
    assert whole["raw"]["path"].endswith(
        "/projects/test-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict")


def test_claude_on_vertex_requires_anthropic_version(cuecard):
    cuecard.load(scenario("unused"))
    import httpx2
    reply = httpx2.post(cuecard.anthropic_url + "/v1/projects/p/locations/l/publishers/anthropic/models/c:rawPredict",
                        json={"max_tokens": 5, "messages": ask()})
    assert reply.status_code == 400
    assert reply.json()["error"]["message"].startswith(
        "request.anthropic_version is required on Vertex AI (as `vertex-2023-10-16`)")
    [entry] = cuecard.entries()
    assert entry["outcome"] == "rejected"


def test_streamed_text_deltas_are_exactly_the_word_like_tokens(cuecard):
    cuecard.load(scenario({"text": "Hello, world! Order 12345"}))
    events = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=ask(), stream=True)
    pieces = [e.delta.text for e in events if e.type == "content_block_delta" and e.delta.type == "text_delta"]
    assert pieces == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]


def test_thinking_then_text_through_the_stream_helper(cuecard):
    cuecard.load(scenario({"thinking": "The user greets me.", "text": "Hi there!"}))
    with client(cuecard).messages.stream(model="claude-test-model", max_tokens=2048, messages=ask(),
                                         thinking={"type": "enabled", "budget_tokens": 1024}) as stream:
        text = list(stream.text_stream)
        final = stream.get_final_message()
    assert text == ["Hi", " there", "!"]
    assert [block.type for block in final.content] == ["thinking", "text"]
    assert final.content[0].thinking == "The user greets me."
    assert final.content[1].text == "Hi there!"
    assert final.stop_reason == "end_turn"


def test_tool_use_whole_and_streamed(cuecard):
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    cuecard.load(scenario({"text": "Checking.", "tool_calls": [call]}, {"tool_calls": [call]}))
    tools = [{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}}]
    message = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=ask(), tools=tools)
    assert [b.type for b in message.content] == ["text", "tool_use"]
    # Anthropic-looking ids (toolu_01...), numbered by the mock's counter as call_1 is everywhere else.
    assert (message.content[1].name, message.content[1].input, message.content[1].id) == (
        "get_weather", {"city": "Paris"}, "toolu_010000000000000000000001")
    assert message.stop_reason == "tool_use"
    with client(cuecard).messages.stream(model="claude-test-model", max_tokens=100, messages=ask(), tools=tools) as stream:
        final = stream.get_final_message()
    assert [(b.type, b.name, b.input) for b in final.content] == [("tool_use", "get_weather", {"city": "Paris"})]
    assert final.stop_reason == "tool_use"


def test_tool_results_are_journaled_as_tool_messages(cuecard):
    cuecard.load(scenario({"text": "It is sunny."}))
    client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=[
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_9", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_9", "content": "22C sunny"}]},
    ])
    messages = cuecard.entries()[0]["request"]["messages"]
    assert messages[1]["tool_calls"] == [{"id": "call_9", "name": "get_weather", "arguments": '{"city":"Paris"}'}]
    assert messages[2]["role"] == "tool" and messages[2]["tool_call_id"] == "call_9"


def test_a_tool_use_id_the_mock_sent_comes_back_as_its_call_id(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}, "It is sunny."))
    tools = [{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}}]
    first = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=ask(), tools=tools)
    use = first.content[0]
    client(cuecard).messages.create(model="claude-test-model", max_tokens=100, tools=tools, messages=ask() + [
        {"role": "assistant", "content": [use.model_dump()]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "22C"}]},
    ])
    messages = cuecard.entries()[1]["request"]["messages"]
    assert messages[1]["tool_calls"][0]["id"] == "call_1"
    assert messages[2]["tool_call_id"] == "call_1"


def test_finish_reason_length_is_max_tokens(cuecard):
    cuecard.load(scenario({"text": "cut", "finish_reason": "length"}))
    message = client(cuecard).messages.create(model="claude-test-model", max_tokens=1, messages=ask())
    assert message.stop_reason == "max_tokens"


def test_429_then_success_with_the_sdk_retry(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 1}}, {"text": "Recovered."}))
    message = client(cuecard, max_retries=2).messages.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert message.content[0].text == "Recovered."
    assert outcomes(cuecard) == ["failed", "answered"]


def test_529_is_overloaded(cuecard):
    cuecard.load(scenario({"fail": {"kind": "overloaded"}}))
    with pytest.raises(anthropic.OverloadedError) as raised:
        client(cuecard, max_retries=0).messages.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert raised.value.status_code == 529
    assert raised.value.body["error"]["type"] == "overloaded_error"
    assert raised.value.request_id == "req_1"


def test_529_retried_then_success(cuecard):
    cuecard.load(scenario({"fail": {"kind": "overloaded", "retry_after_ms": 1}}, {"text": "Back."}))
    message = client(cuecard, max_retries=2).messages.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert message.content[0].text == "Back."
    assert outcomes(cuecard) == ["failed", "answered"]


def test_401_after_one_attempt(cuecard):
    cuecard.load(scenario({"fail": {"kind": "unauthorized"}}))
    with pytest.raises(anthropic.AuthenticationError):
        client(cuecard, max_retries=2).messages.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert outcomes(cuecard) == ["failed"]


def test_error_event_mid_stream_is_a_status_error_with_status_200(cuecard):
    cuecard.load(scenario({"text": "Partial", "fail_after": {"kind": "overloaded"}}))
    with pytest.raises(anthropic.APIStatusError) as raised:
        with client(cuecard).messages.stream(model="claude-test-model", max_tokens=100, messages=ask()) as stream:
            list(stream.text_stream)
    assert raised.value.status_code == 200
    assert raised.value.body["error"]["type"] == "overloaded_error"


def test_a_cut_stream_raises_the_transport_error(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    received = []
    with pytest.raises(Exception) as raised:
        with client(cuecard).messages.stream(model="claude-test-model", max_tokens=100, messages=ask()) as stream:
            for text in stream.text_stream:
                received.append(text)
    assert not isinstance(raised.value, anthropic.APIStatusError)
    assert received == ["Partial", " answer"]


def test_contracts_strict_answers_a_broken_tool_loop_as_the_api_does(cuecard):
    cuecard.load({"cuecard": 1, "contracts": "strict", "routes": [{"steps": ["Fine."]}]})
    messages = [{"role": "user", "content": "weather?"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                                   "input": {}}]},
                {"role": "user", "content": "never mind"}]
    with pytest.raises(anthropic.BadRequestError) as raised:
        client(cuecard, max_retries=0).messages.create(model="claude-test-model", max_tokens=100, messages=messages)
    assert raised.value.status_code == 400
    assert raised.value.body["error"]["message"] == (
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. "
        "Each `tool_use` block must have a corresponding `tool_result` block in the next message.")
    [entry] = cuecard.entries()
    assert (entry["outcome"], entry["rule"]) == ("contract_violation", "A1")
    # The same loop, answered: accepted, and the script goes on.
    messages[2]["content"] = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]
    reply = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=messages)
    assert reply.content[0].text == "Fine."


def test_a_scripted_refusal_stops_with_refusal(cuecard):
    cuecard.load({"cuecard": 1, "routes": [{"steps": [{"refusal": "I can't help with that."}] * 2}]})
    message = client(cuecard).messages.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert (message.stop_reason, message.content[0].text) == ("refusal", "I can't help with that.")
    with client(cuecard).messages.stream(model="claude-test-model", max_tokens=100, messages=ask()) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "refusal"


def test_anthropic_rate_limit_headers_reach_the_sdk_with_reset_times_on_the_virtual_clock(cuecard):
    cuecard.load(scenario("Hello.", rate_limits={"requests_per_minute": 50, "tokens_per_minute": 40_000}))
    raw = client(cuecard).messages.with_raw_response.create(model="claude-test-model", max_tokens=100, messages=ask())
    assert raw.headers["anthropic-ratelimit-requests-limit"] == "50"
    assert raw.headers["anthropic-ratelimit-requests-remaining"] == "49"
    assert raw.headers["anthropic-ratelimit-requests-reset"] == "2026-01-01T00:00:02Z"
    assert raw.headers["anthropic-ratelimit-tokens-remaining"] == str(40_000 - 100 - 3)
    assert raw.parse().content[0].text == "Hello."
    assert "x-ratelimit-limit-requests" not in raw.headers


def test_a_streamed_thinking_block_sent_back_intact_passes_and_an_edited_one_is_refused(cuecard):
    thinking_on = {"type": "enabled", "budget_tokens": 1024}
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    cuecard.load({"cuecard": 1, "contracts": "strict", "routes": [{"steps": [
        {"thinking": "The user wants the weather in Paris.", "tool_calls": [call]}, "Sunny."]}]})
    with client(cuecard).messages.stream(model="claude-test-model", max_tokens=2048, thinking=thinking_on,
                                         messages=ask("Weather in Paris?")) as stream:
        first = stream.get_final_message()
    thinking, tool_use = first.content
    assert thinking.signature.startswith("Y3VlY2FyZC1")

    def loop(blocks):
        return ask("Weather in Paris?") + [
            {"role": "assistant", "content": blocks},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use.id, "content": "sunny"}]}]

    edited = thinking.model_dump()
    edited["thinking"] = "The user wants the weather in Rome."
    with pytest.raises(anthropic.BadRequestError) as raised:
        client(cuecard, max_retries=0).messages.create(model="claude-test-model", max_tokens=2048,
                                                        thinking=thinking_on, messages=loop([edited, tool_use]))
    assert raised.value.body["error"]["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"
    # What the SDK gave back, as it gave it: accepted.
    reply = client(cuecard).messages.create(model="claude-test-model", max_tokens=2048, thinking=thinking_on,
                                            messages=loop(first.content))
    assert reply.content[0].text == "Sunny."
    assert [e["outcome"] for e in cuecard.entries()] == ["answered", "contract_violation", "answered"]
