"""The official `google-genai` Python SDK, unmodified, against `cuecard serve`: generate_content whole and streamed,
thinking, function calls and the tool loop with the result sent back, usage, errors (the SDK does not retry unless
told to), a stream cut mid-way, an exhausted script, count_tokens, embed_content and the model list."""
import httpx2
import pytest
from google import genai
from google.genai import errors, types

from conftest import scenario

MODEL = "gemini-2.5-flash"


_KEPT = []


def client(cuecard, **http_options) -> genai.Client:
    # The SDK appends `/v1/models/...` (its default API version is v1) to the base URL, which has no path. A Client
    # closes its HTTP client when it is collected, so each is kept until the session ends.
    made = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=cuecard.base, **http_options))
    _KEPT.append(made)
    return made


def test_text_whole_with_usage_and_the_journaled_request(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 5, "output_tokens": 4}}))
    config = types.GenerateContentConfig(system_instruction="Be terse", temperature=0.0, max_output_tokens=64)
    response = client(cuecard).models.generate_content(model=MODEL, contents="Say hello", config=config)
    assert response.text == "Hello, world!"
    assert response.candidates[0].finish_reason == types.FinishReason.STOP
    usage = response.usage_metadata
    assert (usage.prompt_token_count, usage.candidates_token_count, usage.total_token_count) == (5, 4, 9)
    assert response.model_version == MODEL
    [entry] = cuecard.entries()
    request = entry["request"]
    assert (request["model"], request["metadata"]["endpoint"]) == (MODEL, "gemini_generate")
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert (request["temperature"], request["max_tokens"]) == (0.0, 64)
    assert entry["raw"]["path"] == f"/v1/models/{MODEL}:generateContent"


def test_stream_is_the_word_like_tokens_and_the_last_chunk_finishes(cuecard):
    cuecard.load(scenario({"text": "Hello, world! Order 12345"}))
    chunks = list(client(cuecard).models.generate_content_stream(model=MODEL, contents="Say hello"))
    assert [c.text for c in chunks[:-1]] == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert chunks[-1].usage_metadata.total_token_count > 0


def test_thinking_is_sent_as_thought_parts_only_when_asked_for(cuecard):
    step = {"thinking": "The user greets me.", "text": "Hi!"}
    cuecard.load(scenario(step, step))
    thinking = types.ThinkingConfig(include_thoughts=True)
    response = client(cuecard).models.generate_content(
        model=MODEL, contents="hi", config=types.GenerateContentConfig(thinking_config=thinking))
    parts = response.candidates[0].content.parts
    assert [(p.text, bool(p.thought)) for p in parts] == [("The user greets me.", True), ("Hi!", False)]
    assert response.text == "Hi!"
    assert response.usage_metadata.thoughts_token_count == 5
    plain = client(cuecard).models.generate_content(model=MODEL, contents="hi")
    assert [p.thought for p in plain.candidates[0].content.parts] == [None]
    assert plain.usage_metadata.thoughts_token_count == 5, "thought tokens are counted whether or not they are sent"


def test_a_tool_loop_with_the_result_sent_back(cuecard):
    cuecard.load(scenario(
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}},
                        {"name": "get_weather", "arguments": {"city": "Rome"}}]},
        {"text": "Sunny in both."}))
    declaration = types.FunctionDeclaration(
        name="get_weather", parameters=types.Schema(type="OBJECT", properties={"city": types.Schema(type="STRING")}))
    config = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[declaration])])
    chat = client(cuecard).chats.create(model=MODEL, config=config)
    first = chat.send_message("Weather in Paris and Rome?")
    calls = first.function_calls
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]
    assert first.candidates[0].finish_reason == types.FinishReason.STOP, "a call turn ends with STOP"
    results = [types.Part.from_function_response(name=c.name, response={"temp_c": 21}) for c in calls]
    final = chat.send_message(results)
    assert final.text == "Sunny in both."
    second = cuecard.entries()[1]["request"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool", "tool"]
    assert [c["name"] for c in second["messages"][1]["tool_calls"]] == ["get_weather", "get_weather"]
    assert second["messages"][2]["content"] == [{"type": "text", "text": '{"temp_c":21}'}]
    assert [t["name"] for t in second["tools"]] == ["get_weather"]


def test_a_streamed_function_call_is_one_whole_part(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}]}))
    chunks = list(client(cuecard).models.generate_content_stream(model=MODEL, contents="x"))
    calls = [c for chunk in chunks for c in (chunk.function_calls or [])]
    assert [(c.name, c.args) for c in calls] == [("lookup", {"id": 7})]


def test_errors_raise_the_sdks_classes_and_are_not_retried_by_default(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 10}}, {"fail": {"kind": "server_error"}},
                          "recovered"))
    with pytest.raises(errors.ClientError) as raised:
        client(cuecard).models.generate_content(model=MODEL, contents="x")
    assert (raised.value.code, raised.value.status) == (429, "RESOURCE_EXHAUSTED")
    with pytest.raises(errors.ServerError) as raised:
        client(cuecard).models.generate_content(model=MODEL, contents="x")
    assert (raised.value.code, raised.value.status) == (500, "INTERNAL")
    assert len(cuecard.entries()) == 2, "google-genai makes one attempt unless retry options are set"


def test_with_retry_options_the_sdk_retries_a_503(cuecard):
    cuecard.load(scenario({"fail": {"kind": "unavailable"}}, "recovered"))
    retry = types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.05)
    response = client(cuecard, retry_options=retry).models.generate_content(model=MODEL, contents="x")
    assert response.text == "recovered"
    assert [e["outcome"] for e in cuecard.entries()] == ["failed", "answered"]


def test_a_content_filter_blocks_the_prompt_without_raising(cuecard):
    cuecard.load(scenario({"fail": {"kind": "content_filtered"}}))
    response = client(cuecard).models.generate_content(model=MODEL, contents="x")
    assert response.text is None
    assert response.prompt_feedback.block_reason == types.BlockedReason.SAFETY


def test_a_content_filter_on_a_stream_is_a_blocked_candidate(cuecard):
    cuecard.load(scenario({"fail": {"kind": "content_filtered"}}))
    chunks = list(client(cuecard).models.generate_content_stream(model=MODEL, contents="x"))
    [chunk] = chunks
    [candidate] = chunk.candidates
    assert (candidate.finish_reason, candidate.content, chunk.text) == (types.FinishReason.SAFETY, None, None)
    assert [(r.category, r.blocked) for r in candidate.safety_ratings] == [
        (types.HarmCategory.HARM_CATEGORY_HARASSMENT, True)]
    [entry] = cuecard.entries()
    assert entry["outcome"] == "failed"


def test_a_failure_mid_stream_raises_after_the_text(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "unavailable"}},
                          {"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    received = []
    with pytest.raises(errors.ServerError) as raised:
        for chunk in client(cuecard).models.generate_content_stream(model=MODEL, contents="x"):
            received.append(chunk.text)
    assert received == ["Partial", " answer"]
    assert raised.value.code == 503
    received = []
    with pytest.raises(httpx2.RemoteProtocolError):
        for chunk in client(cuecard).models.generate_content_stream(model=MODEL, contents="x"):
            received.append(chunk.text)
    assert received == ["Partial", " answer"]


def test_an_exhausted_script_is_a_client_error_naming_it(cuecard):
    cuecard.load(scenario("only"))
    client(cuecard).models.generate_content(model=MODEL, contents="x")
    with pytest.raises(errors.ClientError) as raised:
        client(cuecard).models.generate_content(model=MODEL, contents="again")
    assert raised.value.code == 422
    assert "script exhausted" in raised.value.message


def test_count_tokens_embeddings_and_models(cuecard):
    cuecard.load(scenario("unused", "unused"))
    gemini = client(cuecard)
    assert gemini.models.count_tokens(model=MODEL, contents="Hello, world!").total_tokens == 4
    embedded = gemini.models.embed_content(
        model="text-embedding-004", contents=["first", "second"], config=types.EmbedContentConfig(output_dimensionality=8))
    assert [len(e.values) for e in embedded.embeddings] == [8, 8]
    assert embedded.embeddings[0].values != embedded.embeddings[1].values
    again = gemini.models.embed_content(model="text-embedding-004", contents="first",
                                        config=types.EmbedContentConfig(output_dimensionality=8))
    assert again.embeddings[0].values == embedded.embeddings[0].values, "the same text gives the same vector"
    names = [m.name for m in gemini.models.list()]
    assert "models/cuecard-mock" in names
    assert gemini.models.get(model=MODEL).name == f"models/{MODEL}"
    endpoints = [e["request"]["metadata"]["endpoint"] for e in cuecard.entries()]
    assert endpoints == ["gemini_count_tokens", "gemini_embed", "gemini_embed", "gemini_models", "gemini_models"]


def test_a_batch_of_inlined_requests_is_polled_to_success_and_each_answered_by_the_scenario(cuecard):
    cuecard.load(scenario("Paris.", {"fail": {"kind": "bad_request", "message": "bad request"}}))
    sdk = client(cuecard)
    job = sdk.batches.create(model="gemini-2.5-flash", src=[
        {"contents": [{"role": "user", "parts": [{"text": "Capital of France?"}]}], "metadata": {"key": "capital"}},
        {"contents": [{"role": "user", "parts": [{"text": "Broken?"}]}], "metadata": {"key": "broken"}},
    ], config={"display_name": "nightly-eval"})
    assert (job.name, job.state, job.display_name) == ("batches/1", "JOB_STATE_PENDING", "nightly-eval")
    states = [job.state]
    while job.state not in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED", "JOB_STATE_EXPIRED"):
        job = sdk.batches.get(name=job.name)
        states.append(job.state)
    assert states == ["JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"]
    first, second = job.dest.inlined_responses
    assert (first.response.text, first.metadata) == ("Paris.", {"key": "capital"})
    assert (second.response, second.error.code, second.error.message) == (None, 400, "bad request")
    lines = [e for e in cuecard.entries() if e["request"].get("metadata", {}).get("extra")]
    assert [e["request"]["metadata"]["extra"]["custom_id"] for e in lines] == ["capital", "broken"]
    assert lines[0]["request"]["metadata"]["endpoint"] == "gemini_generate"
    cancelled = sdk.batches.create(model="gemini-2.5-flash", src=[{"contents": [{"role": "user",
                                                                                "parts": [{"text": "x"}]}]}])
    sdk.batches.cancel(name=cancelled.name)
    assert sdk.batches.get(name=cancelled.name).state == "JOB_STATE_CANCELLED"
