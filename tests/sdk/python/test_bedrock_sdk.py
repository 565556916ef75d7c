"""boto3's `bedrock-runtime` client, unmodified, against `cuecard serve`: converse and converse_stream (text, a
stream of AWS event-stream frames, a tool round trip, reasoning, usage), botocore's standard retries of a scripted 429
with the journal counting every attempt, an in-stream exception, a cut stream, an exhausted script, and
invoke_model / invoke_model_with_response_stream with an Anthropic body."""
import json

import boto3
import botocore.config
import botocore.exceptions
import pytest
import urllib3.exceptions

from conftest import scenario

MODEL = "anthropic.claude-3-5-haiku-20241022-v1:0"


def bedrock(cuecard, attempts: int = 1):
    # Credentials and a region are required by botocore even though cuecard does not check the signature.
    return boto3.client(
        "bedrock-runtime", endpoint_url=cuecard.base, region_name="us-east-1", aws_access_key_id="test",
        aws_secret_access_key="test",
        config=botocore.config.Config(retries={"mode": "standard", "total_max_attempts": attempts}))


def ask(text="Say hello"):
    return [{"role": "user", "content": [{"text": text}]}]


def test_converse_text_with_usage_and_the_decoded_model_id(cuecard):
    cuecard.load(scenario({"text": "Hello, world!", "usage": {"input_tokens": 5, "output_tokens": 4}}))
    response = bedrock(cuecard).converse(modelId=MODEL, messages=ask(), system=[{"text": "Be terse"}],
                                         inferenceConfig={"maxTokens": 64, "temperature": 0})
    assert response["output"]["message"]["content"] == [{"text": "Hello, world!"}]
    assert response["stopReason"] == "end_turn"
    assert response["usage"] == {"inputTokens": 5, "outputTokens": 4, "totalTokens": 9}
    [entry] = cuecard.entries()
    request = entry["request"]
    assert (request["model"], request["metadata"]["endpoint"]) == (MODEL, "bedrock_converse")
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert (request["max_tokens"], request["temperature"]) == (64, 0.0)
    assert entry["raw"]["path"].endswith("v1%3A0/converse")


def test_converse_stream_events_are_the_word_like_tokens_then_stop_and_metadata(cuecard):
    cuecard.load(scenario({"thinking": "The user greets me.", "text": "Hello, world! Order 12345"}))
    stream = bedrock(cuecard).converse_stream(modelId=MODEL, messages=ask())["stream"]
    events = list(stream)
    texts = [e["contentBlockDelta"]["delta"]["text"] for e in events
             if "contentBlockDelta" in e and "text" in e["contentBlockDelta"]["delta"]]
    assert texts == ["Hello", ",", " world", "!", " Order", " ", "123", "45"]
    reasoning = "".join(e["contentBlockDelta"]["delta"]["reasoningContent"].get("text", "") for e in events
                        if "contentBlockDelta" in e and "reasoningContent" in e["contentBlockDelta"]["delta"])
    assert reasoning == "The user greets me."
    assert list(events[0]) == ["messageStart"]
    assert events[-2] == {"messageStop": {"stopReason": "end_turn"}}
    assert events[-1]["metadata"]["usage"]["outputTokens"] > 0


def test_a_tool_round_trip(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}, "Sunny, 21 C."))
    tool_config = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]}
    client = bedrock(cuecard)
    messages = ask("Weather in Paris?")
    first = client.converse(modelId=MODEL, messages=messages, toolConfig=tool_config)
    assert first["stopReason"] == "tool_use"
    [block] = first["output"]["message"]["content"]
    use = block["toolUse"]
    assert (use["name"], use["input"]) == ("get_weather", {"city": "Paris"})
    messages += [first["output"]["message"],
                 {"role": "user", "content": [{"toolResult": {"toolUseId": use["toolUseId"], "content": [{"json": {"temp_c": 21}}]}}]}]
    final = client.converse(modelId=MODEL, messages=messages, toolConfig=tool_config)
    assert final["output"]["message"]["content"] == [{"text": "Sunny, 21 C."}]
    second = cuecard.entries()[1]["request"]
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]
    assert second["messages"][2]["tool_call_id"] == use["toolUseId"]
    assert [t["name"] for t in second["tools"]] == ["get_weather"]


def test_a_streamed_tool_call_is_a_block_start_and_partial_json_input(cuecard):
    cuecard.load(scenario({"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}]}))
    events = list(bedrock(cuecard).converse_stream(modelId=MODEL, messages=ask())["stream"])
    [start] = [e["contentBlockStart"]["start"]["toolUse"] for e in events if "contentBlockStart" in e]
    assert start["name"] == "lookup"
    text = "".join(e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in events
                   if "contentBlockDelta" in e and "toolUse" in e["contentBlockDelta"]["delta"])
    assert json.loads(text) == {"id": 7}
    assert events[-2] == {"messageStop": {"stopReason": "tool_use"}}


def test_a_scripted_429_is_retried_by_botocore_and_every_attempt_is_journaled(cuecard):
    cuecard.load(scenario({"fail": {"kind": "rate_limited", "retry_after_ms": 1}}, "recovered"))
    response = bedrock(cuecard, attempts=3).converse(modelId=MODEL, messages=ask())
    assert response["output"]["message"]["content"] == [{"text": "recovered"}]
    assert response["ResponseMetadata"]["RetryAttempts"] == 1
    assert [e["outcome"] for e in cuecard.entries()] == ["failed", "answered"]
    cuecard.load(scenario({"fail": {"kind": "overloaded"}}))
    client = bedrock(cuecard)
    with pytest.raises(client.exceptions.ServiceUnavailableException) as raised:
        client.converse(modelId=MODEL, messages=ask())
    assert raised.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503


def test_errors_are_the_modelled_classes(cuecard):
    cuecard.load(scenario({"fail": {"kind": "bad_request", "message": "bad input"}}, {"fail": {"kind": "forbidden"}}))
    client = bedrock(cuecard)
    with pytest.raises(client.exceptions.ValidationException, match="bad input"):
        client.converse(modelId=MODEL, messages=ask())
    with pytest.raises(client.exceptions.AccessDeniedException):
        client.converse(modelId=MODEL, messages=ask())


def test_a_failure_mid_stream_is_an_event_stream_error_after_the_text(cuecard):
    cuecard.load(scenario({"text": "Partial answer", "fail_after": {"kind": "rate_limited"}},
                          {"text": "Partial answer", "fail_after": {"kind": "connection_reset"}}))
    texts = []
    with pytest.raises(botocore.exceptions.EventStreamError) as raised:
        for event in bedrock(cuecard).converse_stream(modelId=MODEL, messages=ask())["stream"]:
            if "contentBlockDelta" in event:
                texts.append(event["contentBlockDelta"]["delta"]["text"])
    assert texts == ["Partial", " answer"]
    assert raised.value.response["Error"]["Code"] == "throttlingException"
    texts = []
    with pytest.raises((urllib3.exceptions.ProtocolError, botocore.exceptions.ResponseStreamingError)):
        for event in bedrock(cuecard).converse_stream(modelId=MODEL, messages=ask())["stream"]:
            if "contentBlockDelta" in event:
                texts.append(event["contentBlockDelta"]["delta"]["text"])
    assert texts == ["Partial", " answer"]


def test_an_exhausted_script_is_a_validation_error_naming_it(cuecard):
    cuecard.load(scenario("only"))
    client = bedrock(cuecard)
    client.converse(modelId=MODEL, messages=ask())
    with pytest.raises(client.exceptions.ValidationException, match="script exhausted"):
        client.converse(modelId=MODEL, messages=ask("again"))


def test_invoke_model_with_an_anthropic_body_whole_and_streamed(cuecard):
    cuecard.load(scenario("Hello, world!", "Hello, world!"))
    body = json.dumps({"anthropic_version": "bedrock-2023-05-31", "max_tokens": 64,
                       "messages": [{"role": "user", "content": "hi"}]})
    client = bedrock(cuecard)
    whole = json.loads(client.invoke_model(modelId=MODEL, body=body)["body"].read())
    assert whole["content"] == [{"type": "text", "text": "Hello, world!"}]
    events = [json.loads(e["chunk"]["bytes"]) for e in client.invoke_model_with_response_stream(modelId=MODEL, body=body)["body"]]
    assert events[0]["type"] == "message_start"
    assert "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta") == "Hello, world!"
    assert events[-1]["type"] == "message_stop"
    assert [e["request"]["metadata"]["endpoint"] for e in cuecard.entries()] == ["bedrock_invoke"] * 2
