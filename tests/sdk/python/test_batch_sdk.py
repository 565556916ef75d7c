"""The Files and Batch APIs with the official SDKs, unmodified, against `cuecard serve`: openai-python uploads a
JSONL of requests, makes a batch, polls it through its statuses and downloads the output and error files;
anthropic-python makes a message batch, polls it and reads its results. Each line is answered by the scenario as
if sent alone, and journaled with its batch and custom id."""
import io
import json

import anthropic
import openai
import pytest

from conftest import scenario


def openai_client(cuecard) -> openai.OpenAI:
    return openai.OpenAI(base_url=cuecard.openai_url, api_key="test-key", max_retries=0)


def jsonl(lines) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def chat_line(custom_id, question):
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": question}]}}


def test_an_openai_batch_end_to_end_upload_create_poll_download(cuecard):
    cuecard.load({"cuecard": 1, "routes": [
        {"match": {"request": {"messages": [{"role": "user", "content": "What is 2+2?"}]}}, "steps": ["4"]},
        {"steps": ["An answer.", {"fail": {"kind": "bad_request", "message": "bad line"}}, "Another answer."]},
    ]})
    sdk = openai_client(cuecard)
    lines = [chat_line("q1", "What is 2+2?"), chat_line("q2", "Capital of France?"), chat_line("q3", "Broken?"),
             chat_line("q4", "Colour of the sky?")]
    upload = sdk.files.create(file=("questions.jsonl", io.BytesIO(jsonl(lines))), purpose="batch")
    assert (upload.id, upload.purpose, upload.bytes, upload.filename) == (
        "file-1", "batch", len(jsonl(lines)), "questions.jsonl")
    batch = sdk.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h",
                               metadata={"run": "nightly"})
    assert (batch.status, batch.metadata) == ("validating", {"run": "nightly"})
    statuses = [batch.status]
    while batch.status not in ("completed", "failed", "expired", "cancelled"):
        batch = sdk.batches.retrieve(batch.id)
        statuses.append(batch.status)
    assert statuses == ["validating", "in_progress", "finalizing", "completed"]
    assert (batch.request_counts.total, batch.request_counts.completed, batch.request_counts.failed) == (4, 3, 1)
    output = [json.loads(line) for line in sdk.files.content(batch.output_file_id).text.splitlines()]
    answers = {line["custom_id"]: line["response"]["body"]["choices"][0]["message"]["content"] for line in output}
    assert answers == {"q1": "4", "q2": "An answer.", "q4": "Another answer."}
    [error] = [json.loads(line) for line in sdk.files.content(batch.error_file_id).text.splitlines()]
    assert (error["custom_id"], error["response"]["status_code"]) == ("q3", 400)
    assert error["response"]["body"]["error"]["message"] == "bad line"
    # Each line is journaled once, tied to its batch.
    lines_journaled = [e for e in cuecard.entries() if e["request"].get("metadata", {}).get("extra")]
    assert [e["request"]["metadata"]["extra"] for e in lines_journaled] == [
        {"batch": batch.id, "custom_id": custom_id} for custom_id in ("q1", "q2", "q3", "q4")]
    assert [e["outcome"] for e in lines_journaled] == ["answered", "answered", "failed", "answered"]
    assert [b.id for b in sdk.batches.list()] == [batch.id]
    assert {f.purpose for f in sdk.files.list()} == {"batch", "batch_output"}


def test_an_invalid_input_fails_validation_and_a_cancelled_batch_answers_nothing(cuecard):
    cuecard.load(scenario("unused"))
    sdk = openai_client(cuecard)
    bad = sdk.files.create(file=("bad.jsonl", jsonl([chat_line("a", "x"), chat_line("a", "y")])), purpose="batch")
    batch = sdk.batches.create(input_file_id=bad.id, endpoint="/v1/chat/completions", completion_window="24h")
    batch = sdk.batches.retrieve(batch.id)
    assert batch.status == "failed"
    assert [(e.code, e.line) for e in batch.errors.data] == [("duplicate_custom_id", 2)]
    good = sdk.files.create(file=("good.jsonl", jsonl([chat_line("a", "x")])), purpose="batch")
    batch = sdk.batches.create(input_file_id=good.id, endpoint="/v1/chat/completions", completion_window="24h")
    assert sdk.batches.cancel(batch.id).status == "cancelling"
    assert sdk.batches.retrieve(batch.id).status == "cancelled"
    assert not any(e["request"].get("metadata", {}).get("extra") for e in cuecard.entries())
    with pytest.raises(openai.NotFoundError, match="No batch found"):
        sdk.batches.retrieve("batch_99")
    with pytest.raises(openai.BadRequestError, match="input_file_id"):
        sdk.batches.create(input_file_id="file-99", endpoint="/v1/chat/completions", completion_window="24h")
    assert sdk.files.delete(good.id).deleted is True
    with pytest.raises(openai.NotFoundError):
        sdk.files.retrieve(good.id)


def test_a_scripted_batch_expires_and_a_scripted_upload_is_refused(cuecard):
    cuecard.load({"cuecard": 1, "routes": [
        {"match": {"endpoint": "files"}, "steps": ["accepted", {"fail": {"kind": "bad_request",
                                                                         "message": "file too large"}}]},
        {"match": {"endpoint": "batches"}, "steps": [{"fail": {"kind": "timeout"}}]},
        {"steps": ["unused"]},
    ]})
    sdk = openai_client(cuecard)
    upload = sdk.files.create(file=("q.jsonl", jsonl([chat_line("a", "x")])), purpose="batch")
    with pytest.raises(openai.BadRequestError, match="file too large"):
        sdk.files.create(file=("big.jsonl", b"{}"), purpose="batch")
    batch = sdk.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h")
    statuses = [sdk.batches.retrieve(batch.id).status for _ in range(3)]
    assert statuses == ["in_progress", "expired", "expired"]
    expired = sdk.batches.retrieve(batch.id)
    [line] = [json.loads(line) for line in sdk.files.content(expired.error_file_id).text.splitlines()]
    assert (line["custom_id"], line["error"]["code"]) == ("a", "batch_expired")


def test_an_anthropic_message_batch_end_to_end(cuecard):
    cuecard.load(scenario("Paris.", {"fail": {"kind": "overloaded"}}))
    sdk = anthropic.Anthropic(base_url=cuecard.anthropic_url, api_key="test-key", max_retries=0)
    params = lambda question: {"model": "claude-sonnet-4-5", "max_tokens": 64,  # noqa: E731
                               "messages": [{"role": "user", "content": question}]}
    batch = sdk.messages.batches.create(requests=[{"custom_id": "capital", "params": params("Capital of France?")},
                                                  {"custom_id": "busy", "params": params("Anything?")}])
    assert (batch.processing_status, batch.request_counts.processing) == ("in_progress", 2)
    while batch.processing_status != "ended":
        batch = sdk.messages.batches.retrieve(batch.id)
    assert (batch.request_counts.succeeded, batch.request_counts.errored) == (1, 1)
    results = {result.custom_id: result.result for result in sdk.messages.batches.results(batch.id)}
    assert results["capital"].type == "succeeded"
    assert results["capital"].message.content[0].text == "Paris."
    assert results["busy"].type == "errored"
    assert results["busy"].error.error.type == "overloaded_error"
    assert [b.id for b in sdk.messages.batches.list()] == [batch.id]
    assert sdk.messages.batches.delete(batch.id).type == "message_batch_deleted"
