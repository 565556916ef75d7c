"""boto3's bedrock-runtime client in-process through `cuecard.bedrock_client` (botocore's before-send hook, no
socket): converse, converse_stream's event-stream frames, botocore's retry of a 429, an in-stream exception, a cut.
CI installs boto3 (tests/sdk/python)."""
import pytest

import cuecard

boto3 = pytest.importorskip("boto3")
botocore = pytest.importorskip("botocore")


def ask(text="hi"):
    return [{"role": "user", "content": [{"text": text}]}]


def test_converse_and_a_stream_in_process():
    mock = cuecard.MockModel.that_responds("Hello, world!").then_responds({"thinking": "Hm.", "text": "Streamed text."})
    client = cuecard.bedrock_client(mock)
    whole = client.converse(modelId="anthropic.claude-v2:1", messages=ask())
    assert whole["output"]["message"]["content"] == [{"text": "Hello, world!"}]
    events = list(client.converse_stream(modelId="m", messages=ask())["stream"])
    texts = [e["contentBlockDelta"]["delta"].get("text") for e in events if "contentBlockDelta" in e]
    assert [t for t in texts if t] == ["Streamed", " text", "."]
    assert events[-1]["metadata"]["usage"]["totalTokens"] > 0
    assert mock.requests()[0]["model"] == "anthropic.claude-v2:1"


def test_retries_an_in_stream_exception_and_a_cut():
    import botocore.config
    import urllib3.exceptions

    mock = (cuecard.MockModel.that_fails("rate_limited").then_responds("after a retry")
            .then_responds({"text": "Partial answer", "fail_after": {"kind": "server_error"}})
            .then_responds({"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    client = cuecard.bedrock_client(mock, config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": 2}))
    assert client.converse(modelId="m", messages=ask())["output"]["message"]["content"] == [{"text": "after a retry"}]
    with pytest.raises(botocore.exceptions.EventStreamError) as raised:
        list(client.converse_stream(modelId="m", messages=ask())["stream"])
    assert raised.value.response["Error"]["Code"] == "internalServerException"
    with pytest.raises(urllib3.exceptions.ProtocolError):
        list(client.converse_stream(modelId="m", messages=ask())["stream"])
    assert [e["outcome"] for e in mock.entries()][:2] == ["failed", "answered"]


def test_a_whole_replys_scripted_delay_is_waited_once():
    import time

    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [{"text": "late", "delay_ms": 1000}]}]})
    client = cuecard.bedrock_client(mock, instant=False)
    started = time.monotonic()
    assert client.converse(modelId="m", messages=ask())["output"]["message"]["content"] == [{"text": "late"}]
    # Once before the response, not again when botocore reads the body (it was waited twice).
    assert 0.95 <= time.monotonic() - started < 1.9
