"""Tramai's observer from Python: a small engine reports its calls; the assertions judge them."""
import json

import pytest

import cuecard


def run_structured(mock, observer, operation):
    """A miniature engine: provider retries on retryable failures, then up to 3 structured-parse attempts."""
    for _ in range(3):
        for attempt in range(4):
            call = observer.on_call_started(operation, model="gpt-4o", attempt=attempt)
            request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Analyze"}], "metadata": {"operation": operation}}
            try:
                response = mock.chat(request)
            except cuecard.ProviderError as error:
                call.on_provider_failure(error)
                call.on_engine_event("tramai.retry.scheduled", {"retry_index": attempt})
                call.on_call_completed(None)
                if not error.retryable:
                    raise
                continue
            call.on_provider_response(response)
            break
        try:
            value = json.loads(response["message"]["text"])
        except ValueError:
            call.on_structured_parse_failure(response["message"]["text"], "Structured output failed validation")
            call.on_call_completed(False)
            continue
        call.on_call_completed(True)
        return value
    raise RuntimeError("repair exhausted")


def test_retry_then_parse_success():
    mock = cuecard.MockModel.that_fails("rate_limited").then_responds("not json").then_responds('{"total": 3}')
    observer = cuecard.RecordingObserver()
    assert run_structured(mock, observer, "analyze") == {"total": 3}
    (cuecard.assert_that(mock).with_observer(observer).when_called("analyze")
     .was_called_times(3).and_retried(2).and_observed_failure("rate_limited").and_observed_parse_failure()
     .and_parsed_successfully().emitted_provider("mock"))
    records = observer.call_records()
    assert records[0]["engine_events"][0]["name"] == "tramai.retry.scheduled"
    assert [r["parse_success"] for r in records] == [None, False, True]


def test_a_non_retryable_failure_with_the_failure_check():
    mock = cuecard.MockModel.that_fails("unauthorized")
    observer = cuecard.RecordingObserver()
    with pytest.raises(cuecard.ProviderError):
        run_structured(mock, observer, "analyze")
    check = cuecard.assert_that(mock).with_observer(observer).when_called("analyze")
    check.was_called_times(1).and_retried(0).and_failed_with("unauthorized")
    with pytest.raises(AssertionError, match="and_parsed_successfully"):
        check.and_parsed_successfully()
