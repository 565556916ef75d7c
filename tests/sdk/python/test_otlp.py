"""OpenTelemetry export: `cuecard serve --otlp-endpoint` sends one span per mocked call to an OTLP/HTTP receiver here,
decoded with the `opentelemetry-proto` package; the official SDKs make the calls, one of them inside a trace of the
test's own (its `traceparent`)."""
import json
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anthropic
import openai
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from conftest import _binary

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


class Receiver(BaseHTTPRequestHandler):
    """Keeps every POST body (an ExportTraceServiceRequest) and answers 200, as a collector's OTLP/HTTP port does."""
    received: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        Receiver.received.append((self.path, self.headers["content-type"], body))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def spans() -> list:
    found = []
    for _, _, body in Receiver.received:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            service = {a.key: a.value.string_value for a in resource.resource.attributes}["service.name"]
            assert service == "cuecard"
            found += [span for scope in resource.scope_spans for span in scope.spans]
    return found


def attributes(span) -> dict:
    def value(v):
        kind = v.WhichOneof("value")
        if kind == "array_value":
            return [value(x) for x in v.array_value.values]
        return getattr(v, kind)
    return {a.key: value(a.value) for a in span.attributes}


@pytest.fixture
def exporting_server(tmp_path):
    Receiver.received = []
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"cuecard": 1, "routes": [{"steps": [
        {"text": "Sunny.", "usage": {"input_tokens": 9, "output_tokens": 2}},
        {"text": "Cloudy."},
        {"fail": {"kind": "rate_limited", "message": "slow down"}},
    ]}]}))
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    process = subprocess.Popen([_binary(), "serve", "--port", "0", "--instant", "--scenario", str(scenario),
                                "--otlp-endpoint", endpoint], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    while not lines or lines[-1].startswith(("OpenAI", "Anthropic", "AI SDK", "admin", "journal", "tests", "scenario")):
        lines.append(process.stdout.readline())
    assert lines[-1].strip() == f"OpenTelemetry:      a span per mocked call to {endpoint}", lines
    base = lines[1].split()[-1]
    yield process, base
    process.terminate()
    process.wait(timeout=10)
    receiver.shutdown()


def test_one_span_per_mocked_call_with_the_genai_attributes_inside_the_callers_trace(exporting_server):
    process, base = exporting_server
    traced = openai.OpenAI(base_url=f"{base}/t/checkout/v1", api_key="test", max_retries=0)
    reply = traced.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "weather?"}],
                                           extra_headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"})
    assert reply.choices[0].message.content == "Sunny."
    claude = anthropic.Anthropic(base_url=base, api_key="test", max_retries=0)
    message = claude.messages.create(model="claude-test-model", max_tokens=100,
                                     messages=[{"role": "user", "content": "and tomorrow?"}])
    assert message.content[0].text == "Sunny.", "the default test has its own copy of the script"
    with pytest.raises(openai.RateLimitError):
        for _ in range(2):
            traced.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "again"}])
    # Admin requests are not mocked calls.
    with urllib.request.urlopen(f"{base}/_cuecard/journal") as journal:
        assert json.load(journal)["count"] == 1, "the default test journaled the Anthropic call only"

    # Batched, not held until the end: the spans arrive while the server runs.
    deadline = time.monotonic() + 10
    while len(spans()) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    found = sorted(spans(), key=lambda s: s.start_time_unix_nano)
    assert len(found) == 4, found
    assert {(path, content_type) for path, content_type, _ in Receiver.received} == {("/v1/traces", "application/x-protobuf")}

    first, claude_span, second, failed = found
    assert first.name == "chat gpt-4o" and first.kind == Span.SPAN_KIND_SERVER
    assert first.trace_id.hex() == TRACE_ID and first.parent_span_id.hex() == PARENT_ID
    assert second.trace_id.hex() != TRACE_ID and second.parent_span_id == b"", "no traceparent: a trace of its own"
    assert {
        "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o", "gen_ai.usage.input_tokens": 9, "gen_ai.usage.output_tokens": 2,
        "gen_ai.response.finish_reasons": ["stop"], "cuecard.test.id": "checkout", "cuecard.route": 0,
        "cuecard.step": 0, "cuecard.outcome": "answered", "http.response.status_code": 200,
        "url.path": "/v1/chat/completions",
    }.items() <= attributes(first).items()
    assert attributes(claude_span)["gen_ai.provider.name"] == "anthropic"
    assert "cuecard.test.id" not in attributes(claude_span)
    assert attributes(second)["cuecard.step"] == 1
    assert attributes(failed)["error.type"] == "rate_limited"
    assert attributes(failed)["http.response.status_code"] == 429
    assert failed.status.code == Status.STATUS_CODE_ERROR and failed.status.message == "slow down"
    assert all(s.end_time_unix_nano >= s.start_time_unix_nano > 0 for s in found)
