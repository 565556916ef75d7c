"""The official `openai` Python SDK, unmodified, against `cuecard serve`: Chat Completions, Responses, legacy
completions, embeddings, models; streaming, tool calls, usage, finish reasons, errors and the SDK's own retries."""
import json

import openai
import pytest

from conftest import scenario


def client(cuecard, **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", **options)


def ask(text="Say hello"):
    return [{"role": "user", "content": text}]


def outcomes(cuecard):
    return [entry["outcome"] for entry in cuecard.entries()]


def test_legacy_completions_whole_streamed_and_refused(cuecard):
    cuecard.load(scenario("This is a test.", "Once upon a time.", {"fail": {"kind": "rate_limited"}}))
    sdk = client(cuecard, max_retries=0)
    whole = sdk.completions.create(model="gpt-3.5-turbo-instruct", prompt="Say this is a test", max_tokens=7)
    assert (whole.object, whole.id, whole.choices[0].text, whole.choices[0].finish_reason) == (
        "text_completion", "cmpl-1", "This is a test.", "stop")
    assert whole.usage.completion_tokens == 5
    chunks = list(sdk.completions.create(model="gpt-3.5-turbo-instruct", prompt="Tell a story", stream=True,
                                         stream_options={"include_usage": True}))
    assert "".join(c.choices[0].text for c in chunks if c.choices) == "Once upon a time."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage.completion_tokens == 5
    with pytest.raises(openai.RateLimitError):
        sdk.completions.create(model="gpt-3.5-turbo-instruct", prompt="again")
    with pytest.raises(openai.BadRequestError, match="one prompt per request"):
        sdk.completions.create(model="gpt-3.5-turbo-instruct", prompt=["a", "b"])
    entries = cuecard.entries()
    assert [e["request"]["metadata"]["endpoint"] for e in entries[:2]] == ["completions", "completions"]
    assert entries[0]["request"]["messages"] == [{"role": "user", "content": [{"type": "text",
                                                                                "text": "Say this is a test"}]}]


def test_text_whole_with_estimated_usage(cuecard):
    cuecard.load(scenario({"text": "Hello, world!"}, usage="estimate"))
    response = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask())
    assert response.choices[0].message.content == "Hello, world!"
    assert response.choices[0].finish_reason == "stop"
    assert (response.id, response.model, response.object) == ("chatcmpl-1", "gpt-4o", "chat.completion")
    assert (response.usage.prompt_tokens, response.usage.completion_tokens, response.usage.total_tokens) == (2, 4, 6)
    [entry] = cuecard.entries()
    assert entry["request"]["messages"][0]["content"] == [{"type": "text", "text": "Say hello"}]
    assert entry["request"]["metadata"]["endpoint"] == "chat_completions"


def test_streamed_chunks_are_exactly_the_word_like_tokens(cuecard):
    cuecard.load(scenario({"text": "Hello, world! Order 12345"}))
    stream = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask(), stream=True)
    pieces = [chunk.choices[0].delta.content for chunk in stream if chunk.choices and chunk.choices[0].delta.content]
    assert pieces == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]


def test_tool_calls_whole_and_streamed(cuecard):
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    cuecard.load(scenario({"tool_calls": [call]}, {"tool_calls": [call, {"name": "get_time", "arguments": {}}]}))
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    whole = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask("Weather?"), tools=tools)
    [tool_call] = whole.choices[0].message.tool_calls
    assert (tool_call.id, tool_call.function.name) == ("call_1", "get_weather")
    assert json.loads(tool_call.function.arguments) == {"city": "Paris"}
    assert whole.choices[0].finish_reason == "tool_calls"
    with client(cuecard).chat.completions.stream(model="gpt-4o", messages=ask("Weather?"), tools=tools) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    calls = final.choices[0].message.tool_calls
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [
        ("call_2", "get_weather", {"city": "Paris"}),
        ("call_3", "get_time", {}),
    ]
    assert final.choices[0].finish_reason == "tool_calls"
    assert cuecard.entries()[0]["request"]["tools"][0]["name"] == "get_weather"


def test_stream_helper_and_the_include_usage_chunk(cuecard):
    cuecard.load(scenario({"text": "Streaming works.", "usage": {"input_tokens": 7, "output_tokens": 3}}))
    with client(cuecard).chat.completions.stream(
        model="gpt-4o", messages=ask(), stream_options={"include_usage": True}
    ) as stream:
        deltas = [event.delta for event in stream if event.type == "content.delta"]
        final = stream.get_final_completion()
    # Like the real API, the first chunk carries the role with an empty content.
    assert deltas == ["", "Streaming", " works", "."]
    assert final.choices[0].message.content == "Streaming works."
    assert (final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.total_tokens) == (7, 3, 10)


def test_finish_reason_length(cuecard):
    cuecard.load(scenario({"text": "cut short", "finish_reason": "length"}))
    response = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask())
    assert response.choices[0].finish_reason == "length"


def test_finish_reason_length_cuts_the_answer_at_max_completion_tokens(cuecard):
    step = {"text": "one two three four five", "finish_reason": "length"}
    cuecard.load({"cuecard": 1, "routes": [{"steps": [step, step]}]})
    whole = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask(), max_completion_tokens=3)
    assert (whole.choices[0].message.content, whole.choices[0].finish_reason) == ("one two three", "length")
    # The SDK's stream helper refuses a completion cut by the length limit, and keeps it on the error.
    with pytest.raises(openai.LengthFinishReasonError) as raised:
        with client(cuecard).chat.completions.stream(model="gpt-4o", messages=ask(), max_tokens=2) as stream:
            stream.get_final_completion()
    final = raised.value.completion
    assert (final.choices[0].message.content, final.choices[0].finish_reason) == ("one two", "length")


def test_429_with_retry_after_ms_is_retried_by_the_sdk(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 1}}, {"text": "Recovered."}))
    response = client(cuecard, max_retries=2).chat.completions.create(model="gpt-4o", messages=ask())
    assert response.choices[0].message.content == "Recovered."
    assert outcomes(cuecard) == ["failed", "answered"]


def test_401_is_an_authentication_error_after_one_attempt(cuecard):
    cuecard.load(scenario({"fail": {"kind": "unauthorized", "message": "Incorrect API key provided"}}))
    with pytest.raises(openai.AuthenticationError) as raised:
        client(cuecard, max_retries=2).chat.completions.create(model="gpt-4o", messages=ask())
    assert raised.value.status_code == 401
    assert raised.value.code == "invalid_api_key"
    assert raised.value.request_id == "req_1"
    assert outcomes(cuecard) == ["failed"]


def test_500_twice_then_success(cuecard):
    fail = {"fail": {"kind": "server_error", "retry_after_ms": 1}}
    cuecard.load(scenario(fail, fail, {"text": "Third time lucky."}))
    response = client(cuecard, max_retries=2).chat.completions.create(model="gpt-4o", messages=ask())
    assert response.choices[0].message.content == "Third time lucky."
    assert outcomes(cuecard) == ["failed", "failed", "answered"]


def test_a_script_marked_not_retryable_is_not_retried(cuecard):
    cuecard.load(scenario({"fail": {"kind": "server_error", "retryable": False}}, {"text": "never"}))
    with pytest.raises(openai.InternalServerError):
        client(cuecard, max_retries=2).chat.completions.create(model="gpt-4o", messages=ask())
    assert outcomes(cuecard) == ["failed"]


def test_a_cut_stream_raises_the_transport_error_after_the_tokens(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    stream = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask(), stream=True)
    received = []
    with pytest.raises(openai.APIConnectionError) as raised:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                received.append(chunk.choices[0].delta.content)
    # openai 3.x wraps the transport's broken-body error; there is no status, and it is not retried.
    assert "peer closed connection" in str(raised.value.__cause__)
    assert received == ["Partial", " answer"]
    assert outcomes(cuecard) == ["failed_after_tokens"]


def test_an_error_event_mid_stream_raises_api_error(cuecard):
    cuecard.load(scenario({"text": "Partial", "fail_after": {"kind": "server_error", "message": "boom mid-stream"}}))
    stream = client(cuecard).chat.completions.create(model="gpt-4o", messages=ask(), stream=True)
    with pytest.raises(openai.APIError) as raised:
        list(stream)
    assert "boom mid-stream" in str(raised.value)


def test_an_exhausted_script_surfaces_at_once_with_its_code(cuecard):
    # A 422: a bug of the test, which no client retries (not even those that ignore x-should-retry).
    cuecard.load(scenario({"text": "only one"}))
    client(cuecard).chat.completions.create(model="gpt-4o", messages=ask())
    with pytest.raises(openai.UnprocessableEntityError) as raised:
        client(cuecard, max_retries=2).chat.completions.create(model="gpt-4o", messages=ask())
    assert raised.value.code == "script_exhausted"
    assert outcomes(cuecard) == ["answered", "exhausted"]


def test_responses_whole_and_the_stream_helper(cuecard):
    cuecard.load(scenario({"text": "Hi there!"}, {"text": "Streamed reply."},
                          {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}))
    response = client(cuecard).responses.create(model="gpt-4.1", input="Hello")
    assert response.output_text == "Hi there!"
    assert response.status == "completed"
    with client(cuecard).responses.stream(model="gpt-4.1", input="Hello") as stream:
        deltas = [event.delta for event in stream if event.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert deltas == ["Streamed", " reply", "."]
    assert final.output_text == "Streamed reply."
    with client(cuecard).responses.stream(model="gpt-4.1", input="Weather?") as stream:
        final = stream.get_final_response()
    [call] = [item for item in final.output if item.type == "function_call"]
    assert (call.name, json.loads(call.arguments), call.call_id) == ("get_weather", {"city": "Oslo"}, "call_1")
    assert [e["request"]["metadata"]["endpoint"] for e in cuecard.entries()] == ["responses"] * 3


def test_embeddings_are_deterministic_through_the_sdk_default_base64(cuecard):
    first = client(cuecard).embeddings.create(model="text-embedding-3-small", input=["alpha", "beta"])
    again = client(cuecard).embeddings.create(model="text-embedding-3-small", input=["alpha", "beta"])
    assert [len(d.embedding) for d in first.data] == [1536, 1536]
    assert first.data[0].embedding == again.data[0].embedding
    assert first.data[0].embedding != first.data[1].embedding
    assert abs(sum(v * v for v in first.data[0].embedding) - 1.0) < 1e-4


def test_models_list(cuecard):
    cuecard.load({"cuecard": 1, "routes": [{"match": {"model": "gpt-4o-mini"}, "steps": [{"text": "a"}]},
                                           {"steps": [{"text": "b"}]}]})
    ids = [m.id for m in client(cuecard).models.list()]
    assert ids == ["gpt-4o-mini", "cuecard-mock"]


def test_a_steps_rate_limit_headers_reach_the_sdk(cuecard):
    cuecard.load(scenario({"text": "Hello", "headers": {"x-ratelimit-remaining-requests": 0,
                                                        "x-ratelimit-reset-tokens": "6m0s"}}))
    raw = client(cuecard).chat.completions.with_raw_response.create(model="gpt-4o", messages=ask())
    assert raw.headers["x-ratelimit-remaining-requests"] == "0"
    assert raw.headers["x-ratelimit-reset-tokens"] == "6m0s"
    assert raw.parse().choices[0].message.content == "Hello"


def test_contracts_warn_answers_and_keeps_the_violation(cuecard):
    cuecard.load({"cuecard": 1, "contracts": "warn", "routes": [{"steps": ["Fine."]}]})
    messages = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "x"}]
    reply = client(cuecard).chat.completions.create(model="gpt-4o", messages=messages)
    assert reply.choices[0].message.content == "Fine."
    [entry] = cuecard.entries()
    assert entry["outcome"] == "answered"
    assert entry["raw"]["contract_violation"]["rule"] == "C1"
    assert entry["raw"]["contract_violation"]["param"] == "messages.[1].role"


def test_a_scripted_refusal_reaches_parse_and_the_responses_stream_as_a_refusal(cuecard):
    import pydantic

    class Answer(pydantic.BaseModel):
        word: str

    step = {"refusal": "I can't help with that."}
    cuecard.load({"cuecard": 1, "routes": [{"steps": [step, step, step]}]})
    parsed = client(cuecard).chat.completions.parse(model="gpt-4o", messages=ask(), response_format=Answer)
    message = parsed.choices[0].message
    assert (message.refusal, message.parsed, message.content) == ("I can't help with that.", None, None)
    with client(cuecard).chat.completions.stream(model="gpt-4o", messages=ask(), response_format=Answer) as stream:
        kinds = {event.type for event in stream}
        final = stream.get_final_completion()
    assert "refusal.delta" in kinds and final.choices[0].message.refusal == "I can't help with that."
    with client(cuecard).responses.stream(model="gpt-4o", input="hi") as stream:
        deltas = [event.delta for event in stream if event.type == "response.refusal.delta"]
        response = stream.get_final_response()
    assert "".join(deltas) == "I can't help with that."
    assert response.output[0].content[0].type == "refusal"


def test_rate_limit_headers_on_every_reply_and_an_enforced_limit_the_sdk_waits_out(cuecard):
    # 60,000 tokens a minute drain one a millisecond: the first request reserves 59,992 (its 6 characters over
    # four, rounded up, plus max_tokens), so the second, reserving 102, overflows by 94 and is told to wait 94 ms.
    limits = {"requests_per_minute": 100, "tokens_per_minute": 60_000, "enforce": True}
    cuecard.load(scenario("One.", "Two.", rate_limits=limits))
    first = client(cuecard).chat.completions.with_raw_response.create(
        model="gpt-4o", messages=ask("Say hi"), max_tokens=59_990)
    assert first.headers["x-ratelimit-limit-tokens"] == "60000"
    assert first.headers["x-ratelimit-remaining-tokens"] == "8"
    assert first.headers["x-ratelimit-remaining-requests"] == "99"
    assert first.headers["x-ratelimit-reset-requests"] == "600ms"
    second = client(cuecard, max_retries=1).chat.completions.with_raw_response.create(
        model="gpt-4o", messages=ask("Say hi"), max_tokens=100)
    assert second.parse().choices[0].message.content == "Two."
    [_, refused, _] = cuecard.entries()
    assert refused["outcome"] == "failed" and refused["error"]["retry_after_ms"] == 94
    assert "tokens per min (TPM): Limit 60000" in refused["error"]["message"]
    with pytest.raises(openai.RateLimitError) as raised:
        client(cuecard, max_retries=0).chat.completions.create(model="gpt-4o", messages=ask("Say hi"), max_tokens=60_000)
    assert int(raised.value.response.headers["retry-after-ms"]) > 59_000
    assert raised.value.response.headers["x-ratelimit-remaining-tokens"] == "0"
    assert raised.value.code == "rate_limit_exceeded"


def test_stored_responses_are_retrieved_listed_and_deleted(cuecard):
    cuecard.load(scenario("Stored answer.", "Not stored."))
    sdk = client(cuecard)
    made = sdk.responses.create(model="gpt-4o", input="Remember this.", instructions="Be brief.")
    again = sdk.responses.retrieve(made.id)
    assert (again.id, again.status, again.output_text) == (made.id, "completed", "Stored answer.")
    assert again.model_dump() == made.model_dump()
    items = sdk.responses.input_items.list(made.id)
    assert [item.content[0].text for item in items.data] == ["Remember this."]
    unstored = sdk.responses.create(model="gpt-4o", input="Forget this.", store=False)
    with pytest.raises(openai.NotFoundError, match=f"Response with id '{unstored.id}' not found"):
        sdk.responses.retrieve(unstored.id)
    assert sdk.responses.delete(made.id) is None
    with pytest.raises(openai.NotFoundError):
        sdk.responses.retrieve(made.id)
    cuecard.load(scenario("A synchronous answer."))
    synchronous = sdk.responses.create(model="gpt-4o", input="x")
    with pytest.raises(openai.BadRequestError, match="Only responses created with background: true"):
        sdk.responses.cancel(synchronous.id)


def test_a_background_response_is_queued_then_polled_to_completion_or_cancelled(cuecard):
    cuecard.load(scenario("Done in the background.", "Never delivered."))
    sdk = client(cuecard)
    queued = sdk.responses.create(model="gpt-4o", input="Take your time.", background=True)
    assert (queued.status, queued.background, queued.output) == ("queued", True, [])
    statuses = [sdk.responses.retrieve(queued.id).status for _ in range(2)]
    assert statuses == ["in_progress", "completed"]
    assert sdk.responses.retrieve(queued.id).output_text == "Done in the background."
    second = sdk.responses.create(model="gpt-4o", input="Another.", background=True)
    assert sdk.responses.cancel(second.id).status == "cancelled"
    assert sdk.responses.retrieve(second.id).status == "cancelled"
