"""openai's `AzureOpenAI` client, unmodified, against `cuecard serve`: deployments as the model, `api-key`, the
`api-version` query, streams, Azure's content-filter error, its string error codes with the SDK's own retries, an
exhausted script, embeddings, and the plain client on the `/openai/v1/` surface."""
import openai
import pytest

from conftest import scenario


def azure(cuecard, **options) -> openai.AzureOpenAI:
    return openai.AzureOpenAI(azure_endpoint=cuecard.base, api_version="2024-10-21", api_key="test-key", **options)


def ask(text="Say hello"):
    return [{"role": "user", "content": text}]


def test_the_deployment_is_the_model_and_the_key_goes_in_api_key(cuecard):
    cuecard.load({"cuecard": 1, "routes": [{"match": {"model": "my-gpt"}, "steps": ["Hello from Azure."]}]})
    response = azure(cuecard).chat.completions.create(model="my-gpt", messages=ask())
    assert (response.choices[0].message.content, response.model) == ("Hello from Azure.", "my-gpt")
    [entry] = cuecard.entries()
    assert entry["raw"]["path"] == "/openai/deployments/my-gpt/chat/completions"
    assert entry["request"]["model"] == "my-gpt"


def test_a_client_bound_to_a_deployment_streams(cuecard):
    cuecard.load(scenario({"text": "Hello, world!"}))
    client = openai.AzureOpenAI(azure_endpoint=cuecard.base, azure_deployment="dep-1", api_version="2024-10-21",
                                api_key="test-key")
    stream = client.chat.completions.create(model="ignored", messages=ask(), stream=True)
    pieces = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]
    assert pieces == ["Hello", ",", " world", "!"]
    assert cuecard.entries()[0]["request"]["model"] == "dep-1"


def test_a_content_filter_is_a_bad_request_with_azures_innererror(cuecard):
    cuecard.load(scenario({"fail": {"kind": "content_filtered"}}))
    with pytest.raises(openai.BadRequestError) as raised:
        azure(cuecard).chat.completions.create(model="my-gpt", messages=ask())
    assert raised.value.code == "content_filter"
    assert raised.value.body["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    assert raised.value.body["innererror"]["content_filter_result"]["hate"]["filtered"] is True


def test_a_rate_limit_with_a_string_code_is_retried_by_the_sdk(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 10}}, "recovered"))
    response = azure(cuecard, max_retries=2).chat.completions.create(model="my-gpt", messages=ask())
    assert response.choices[0].message.content == "recovered"
    assert [e["outcome"] for e in cuecard.entries()] == ["failed", "answered"]
    cuecard.load(scenario({"fail": {"kind": "rate_limited"}}))
    with pytest.raises(openai.RateLimitError) as raised:
        azure(cuecard, max_retries=0).chat.completions.create(model="my-gpt", messages=ask())
    assert raised.value.code == "429"


def test_an_exhausted_script_is_a_422_the_sdk_does_not_retry(cuecard):
    cuecard.load(scenario("only"))
    azure(cuecard).chat.completions.create(model="my-gpt", messages=ask())
    with pytest.raises(openai.UnprocessableEntityError) as raised:
        azure(cuecard).chat.completions.create(model="my-gpt", messages=ask("again"))
    assert raised.value.code == "script_exhausted"
    assert len(cuecard.entries()) == 2


def test_embeddings_on_a_deployment(cuecard):
    cuecard.load(scenario("unused"))
    embedded = azure(cuecard).embeddings.create(model="my-embedder", input=["a", "b"], dimensions=8)
    assert [len(d.embedding) for d in embedded.data] == [8, 8]
    assert embedded.model == "my-embedder"


def test_the_v1_surface_with_the_plain_client(cuecard):
    cuecard.load(scenario("v1 answer", "v1 responses"))
    client = openai.OpenAI(base_url=cuecard.base + "/openai/v1/", api_key="test-key")
    assert client.chat.completions.create(model="gpt-4o", messages=ask()).choices[0].message.content == "v1 answer"
    assert client.responses.create(model="gpt-4o", input="x").output_text == "v1 responses"
