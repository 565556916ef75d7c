"""The official `ollama` Python SDK, unmodified, against `cuecard serve`: chat and generate, whole and streamed
(NDJSON), thinking, tool calls with the result sent back, usage counters, errors (the SDK never retries), an error
line mid-stream, a cut stream, an exhausted script, embeddings and the model list."""
import httpx
import ollama
import pytest

from conftest import scenario

MODEL = "qwen3"


def client(cuecard) -> ollama.Client:
    return ollama.Client(host=cuecard.base)


def ask(text="Say hello"):
    return [{"role": "user", "content": text}]


def test_chat_whole_with_usage_and_the_journaled_request(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 5, "output_tokens": 4}}))
    response = client(cuecard).chat(model=MODEL, messages=ask(), options={"temperature": 0, "num_predict": 32})
    assert response.message.role == "assistant"
    assert response.message.content == "Hello, world!"
    assert (response.done, response.done_reason) == (True, "stop")
    assert (response.prompt_eval_count, response.eval_count) == (5, 4)
    [entry] = cuecard.entries()
    request = entry["request"]
    assert (request["model"], request["metadata"]["endpoint"], request.get("stream", False)) == (MODEL, "ollama_chat", False)
    assert (request["temperature"], request["max_tokens"]) == (0.0, 32)


def test_a_stream_is_the_word_like_tokens_then_the_done_line(cuecard):
    cuecard.load(scenario({"text": "Hello, world! Order 12345", "token_delay_ms": 1}))
    chunks = list(client(cuecard).chat(model=MODEL, messages=ask(), stream=True))
    assert [c.message.content for c in chunks[:-1]] == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]
    assert (chunks[-1].done, chunks[-1].message.content) == (True, "")
    assert chunks[-1].eval_count == 8
    assert chunks[-1].total_duration == 7_000_000, "seven token delays of 1 ms, in nanoseconds of the virtual clock"


def test_thinking_comes_in_message_thinking(cuecard):
    step = {"thinking": "The user greets me.", "text": "Hi!"}
    cuecard.load(scenario(step, step))
    response = client(cuecard).chat(model=MODEL, messages=ask("hi"), think=True)
    assert (response.message.thinking, response.message.content) == ("The user greets me.", "Hi!")
    chunks = list(client(cuecard).chat(model=MODEL, messages=ask("hi"), think=True, stream=True))
    assert "".join(c.message.thinking or "" for c in chunks) == "The user greets me."
    assert "".join(c.message.content for c in chunks) == "Hi!"


def test_a_tool_loop_with_the_result_sent_back(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                          {"text": "It is 21 degrees."}))

    def get_weather(city: str) -> str:
        """The weather of a city.

        Args:
            city: the city
        """
        return "21C"

    messages = ask("Weather in Paris?")
    first = client(cuecard).chat(model=MODEL, messages=messages, tools=[get_weather])
    [call] = first.message.tool_calls
    assert (call.function.name, call.function.arguments) == ("get_weather", {"city": "Paris"})
    messages += [first.message, {"role": "tool", "tool_name": "get_weather", "content": get_weather(**call.function.arguments)}]
    final = client(cuecard).chat(model=MODEL, messages=messages, tools=[get_weather])
    assert final.message.content == "It is 21 degrees."
    second = cuecard.entries()[1]["request"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    assert second["messages"][1]["tool_calls"][0]["name"] == "get_weather"
    assert second["messages"][2]["tool_call_id"] == "get_weather"
    assert [t["name"] for t in second["tools"]] == ["get_weather"]


def test_streamed_tool_calls_come_whole(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]}))
    chunks = list(client(cuecard).chat(model=MODEL, messages=ask(), stream=True))
    calls = [c for chunk in chunks for c in (chunk.message.tool_calls or [])]
    assert [(c.function.name, c.function.arguments) for c in calls] == [("a", {"x": 1}), ("b", {})]


def test_generate_whole_and_streamed(cuecard):
    cuecard.load(scenario("Rayleigh scattering.", "Rayleigh scattering."))
    assert client(cuecard).generate(model="llama3.2", prompt="Why is the sky blue?", system="Be brief").response == "Rayleigh scattering."
    pieces = [c.response for c in client(cuecard).generate(model="llama3.2", prompt="Why?", stream=True)]
    assert pieces == ["Rayleigh", " scattering", ".", ""]
    first = cuecard.entries()[0]["request"]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["metadata"]["endpoint"] == "ollama_generate"


def test_errors_are_response_errors_with_the_status_and_never_retried(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited"}}, {"fail": {"kind": "not_found", "message": "model 'x' not found"}}))
    with pytest.raises(ollama.ResponseError) as raised:
        client(cuecard).chat(model=MODEL, messages=ask())
    assert (raised.value.status_code, raised.value.error) == (429, "Rate limit exceeded")
    with pytest.raises(ollama.ResponseError) as raised:
        client(cuecard).chat(model=MODEL, messages=ask())
    assert (raised.value.status_code, raised.value.error) == (404, "model 'x' not found")
    assert len(cuecard.entries()) == 2


def test_a_failure_mid_stream_is_an_error_line_or_a_cut(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "server_error", "message": "model runner crashed"}},
                          {"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    received = []
    with pytest.raises(ollama.ResponseError) as raised:
        for chunk in client(cuecard).chat(model=MODEL, messages=ask(), stream=True):
            received.append(chunk.message.content)
    assert received == ["Partial", " answer"]
    assert (raised.value.error, raised.value.status_code) == ("model runner crashed", -1)
    received = []
    with pytest.raises(httpx.RemoteProtocolError):
        for chunk in client(cuecard).chat(model=MODEL, messages=ask(), stream=True):
            received.append(chunk.message.content)
    assert received == ["Partial", " answer"]


def test_an_exhausted_script_is_a_response_error_naming_it(cuecard):
    cuecard.load(scenario("only"))
    client(cuecard).chat(model=MODEL, messages=ask())
    with pytest.raises(ollama.ResponseError) as raised:
        client(cuecard).chat(model=MODEL, messages=ask("again"))
    assert raised.value.status_code == 422
    assert "script exhausted" in raised.value.error


def test_embeddings_and_the_model_list(cuecard):
    cuecard.load({"cuecard": 1, "routes": [{"match": {"model": "llama3.2"}, "steps": ["x"]}, {"steps": ["y"]}]})
    ollama_client = client(cuecard)
    embedded = ollama_client.embed(model="nomic-embed-text", input=["first", "second"], dimensions=16)
    assert [len(v) for v in embedded.embeddings] == [16, 16]
    assert ollama_client.embed(model="nomic-embed-text", input="first", dimensions=16).embeddings[0] == embedded.embeddings[0]
    assert len(ollama_client.embeddings(model="nomic-embed-text", prompt="first").embedding) == 768
    assert [m.model for m in ollama_client.list().models] == ["llama3.2", "cuecard-mock"]
    assert ollama_client.show("llama3.2").modelinfo == {}
    assert [m.model for m in ollama_client.ps().models] == ["llama3.2", "cuecard-mock"]
