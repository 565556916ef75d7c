"""The book's guide "Test a retry policy": your code's retry policy against scripted 429s, 529s and a 401,
through the official openai SDK in-process. CI runs it with the binding's suite."""
import openai
import pytest

import cuecard


# ANCHOR: code
# The code under test: ask once, retrying what the provider says is retryable, at most three times in all.
def summarize(client, text: str) -> str:
    for attempt in range(3):
        try:
            reply = client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": f"Summarize: {text}"}],
                extra_headers={"x-cuecard-operation": "summarize"})
            return reply.choices[0].message.content
        except (openai.RateLimitError, openai.InternalServerError):
            if attempt == 2:
                raise
    raise AssertionError("unreachable")
# ANCHOR_END: code


# ANCHOR: test
def test_a_rate_limit_and_an_overload_are_retried_then_the_answer_is_used():
    mock = (cuecard.MockModel.that_fails("rate_limited", retry_after=0.001)
            .then_fails("overloaded")
            .then_responds("A short summary."))
    client = cuecard.openai_client(mock, max_retries=0)  # the SDK's own retries off: we test ours

    assert summarize(client, "a long text") == "A short summary."

    cuecard.assert_that(mock).when_called("summarize").was_called_times(3).and_retried(2)
    assert [e["outcome"] for e in mock.entries()] == ["failed", "failed", "answered"]
    cuecard.assert_that(mock).script_fully_used()


def test_an_authentication_error_is_not_retried():
    mock = cuecard.MockModel.that_fails("unauthorized")
    client = cuecard.openai_client(mock, max_retries=0)

    with pytest.raises(openai.AuthenticationError):
        summarize(client, "a long text")
    cuecard.assert_that(mock).received_requests(1)


def test_three_failures_give_up_with_the_last_error():
    mock = cuecard.MockModel.that_fails("overloaded").then_fails("overloaded").then_fails("overloaded")
    client = cuecard.openai_client(mock, max_retries=0)

    with pytest.raises(openai.InternalServerError) as raised:
        summarize(client, "a long text")
    assert raised.value.status_code == 529
    cuecard.assert_that(mock).when_called("summarize").was_called_times(3).and_observed_failure("overloaded")
# ANCHOR_END: test
