"""Assertions raise AssertionError with the core's message; the server runs from Python and stops twice."""
import json
import urllib.request

import pytest

import cuecard


def greet(mock):
    return mock.chat({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "metadata": {"operation": "greet"}})


def test_when_called_checks_and_their_failure_message():
    mock = cuecard.MockModel.that_fails("rate_limited").then_responds("Hello")
    with pytest.raises(cuecard.ProviderError):
        greet(mock)
    greet(mock)
    cuecard.assert_that(mock).when_called("greet").was_called_times(2).and_retried(1).and_observed_failure("rate_limited")
    with pytest.raises(AssertionError) as raised:
        cuecard.assert_that(mock).when_called("greet").was_called_times(3)
    assert isinstance(raised.value, cuecard.AssertionFailedError)
    message = str(raised.value)
    assert message.startswith('when_called("greet").was_called_times(3) failed\n  expected: 3 requests\n  actual:   2 requests')
    assert "failed rate_limited 429" in message
    cuecard.assert_that(mock).script_fully_used()


def test_server_context_manager():
    mock = cuecard.MockModel.that_responds("Over the wire.")
    with cuecard.Server(mock) as server:
        assert server.openai_base_url.startswith("http://127.0.0.1:") and server.openai_base_url.endswith("/v1")
        body = json.dumps({"model": "claude", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(server.anthropic_base_url + "/v1/messages", data=body,
                                         headers={"content-type": "application/json"})
        reply = json.load(urllib.request.urlopen(request))
        assert reply["content"] == [{"type": "text", "text": "Over the wire."}]
        server.stop()
    assert mock.request()["metadata"]["endpoint"] == "messages"


def test_the_openai_sdk_against_the_server_started_from_python():
    openai = pytest.importorskip("openai")
    mock = cuecard.MockModel.that_fails("rate_limited", retry_after=0.001).then_responds("Over loopback.")
    with cuecard.Server(mock, instant=True) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=2)
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "Over loopback."
    assert [entry["outcome"] for entry in mock.entries()] == ["failed", "answered"]
