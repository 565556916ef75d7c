"""The book's guide "Test an evaluation pipeline that uses the Batch API": a pipeline uploads its questions as a
JSONL file, runs them as one batch, polls until the batch ends, downloads the answers and scores them. The test
scripts what the model answers to each line, one failing, and checks the score, what was sent and that every
line was answered once. CI runs it."""
import io
import json

import openai

import cuecard


# ANCHOR: code
# The code under test: score a model on questions with expected answers, through the Batch API.
def evaluate(client, questions: dict[str, tuple[str, str]], model: str = "gpt-4o-mini") -> dict:
    lines = [{"custom_id": qid, "method": "POST", "url": "/v1/chat/completions",
              "body": {"model": model, "messages": [{"role": "user", "content": question}]}}
             for qid, (question, _) in questions.items()]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    upload = client.files.create(file=("eval.jsonl", io.BytesIO(data)), purpose="batch")
    batch = client.batches.create(input_file_id=upload.id, endpoint="/v1/chat/completions",
                                  completion_window="24h")
    while batch.status not in ("completed", "failed", "expired", "cancelled"):
        batch = client.batches.retrieve(batch.id)  # a real pipeline sleeps between polls
    if batch.status != "completed":
        raise RuntimeError(f"batch {batch.id} ended {batch.status}")
    answers = {}
    for line in client.files.content(batch.output_file_id).text.splitlines():
        record = json.loads(line)
        answers[record["custom_id"]] = record["response"]["body"]["choices"][0]["message"]["content"]
    correct = [qid for qid, (_, expected) in questions.items() if answers.get(qid, "").strip() == expected]
    return {"correct": len(correct), "answered": len(answers), "failed": batch.request_counts.failed}
# ANCHOR_END: code


# ANCHOR: test
def test_the_pipeline_scores_the_answers_and_counts_the_failed_line():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [
        # Each line is answered as if sent alone, so routes match on its question.
        {"match": {"request": {"messages": [{"role": "user", "content": "2+2?"}]}}, "steps": ["4"]},
        {"match": {"request": {"messages": [{"role": "user", "content": "Capital of France?"}]}},
         "steps": ["Lyon"]},
        {"match": {"request": {"messages": [{"role": "user", "content": "Largest planet?"}]}},
         "steps": [{"fail": {"kind": "server_error"}}]},
    ]})
    client = cuecard.openai_client(mock, max_retries=0)

    score = evaluate(client, {"add": ("2+2?", "4"), "capital": ("Capital of France?", "Paris"),
                              "planet": ("Largest planet?", "Jupiter")})

    assert score == {"correct": 1, "answered": 2, "failed": 1}
    lines = [e for e in mock.entries() if e["request"].get("metadata", {}).get("extra")]
    assert [e["request"]["metadata"]["extra"]["custom_id"] for e in lines] == ["add", "capital", "planet"]
    assert [e["outcome"] for e in lines] == ["answered", "answered", "failed"]
    assert all(e["request"]["model"] == "gpt-4o-mini" for e in lines)
    cuecard.assert_that(mock).batch_held(3).batch_lines_answered()  # the failure was a step too
# ANCHOR_END: test


def test_a_batch_that_expires_is_reported():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [
        {"match": {"endpoint": "batches"}, "steps": [{"fail": {"kind": "timeout"}}]},
        {"steps": ["never used"]},
    ]})
    client = cuecard.openai_client(mock, max_retries=0)
    try:
        evaluate(client, {"q": ("Anything?", "x")})
    except RuntimeError as error:
        assert str(error) == "batch batch_1 ended expired"
    else:
        raise AssertionError("an expired batch must be reported")
    assert not [e for e in mock.entries() if e["request"].get("metadata", {}).get("extra")]
