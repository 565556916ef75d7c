"""Assertions raise AssertionError with the core's message; the server runs from Python and stops twice."""
import json
import time
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


def test_a_server_sends_a_span_per_call_to_its_otlp_endpoint():
    import http.server, threading
    posts = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            posts.append((self.path, self.headers["content-type"], self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    mock = cuecard.MockModel.that_responds("traced")
    with cuecard.Server(mock, instant=True, otlp_endpoint=f"http://127.0.0.1:{receiver.server_address[1]}") as server:
        body = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(server.openai_base_url + "/chat/completions", data=body,
                                         headers={"content-type": "application/json"})
        assert json.load(urllib.request.urlopen(request))["choices"][0]["message"]["content"] == "traced"
        # Batched on the exporter's thread within a second: one protobuf export naming the call ("chat gpt-4o").
        deadline = time.monotonic() + 5
        while not posts and time.monotonic() < deadline:
            time.sleep(0.02)
    receiver.shutdown()
    assert [(path, content_type) for path, content_type, _ in posts] == [("/v1/traces", "application/x-protobuf")]
    assert b"chat gpt-4o" in posts[0][2] and b"gen_ai.provider.name" in posts[0][2]
    with pytest.raises(cuecard.InvalidArgumentError, match="is not an http:// URL"):
        cuecard.Server(mock, otlp_endpoint="https://collector:4318")


def test_the_openai_sdk_against_the_server_started_from_python():
    openai = pytest.importorskip("openai")
    mock = cuecard.MockModel.that_fails("rate_limited", retry_after=0.001).then_responds("Over loopback.")
    with cuecard.Server(mock, instant=True) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=2)
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "Over loopback."
    assert [entry["outcome"] for entry in mock.entries()] == ["failed", "answered"]
