"""The book's example (Python): script a model, call it, check what happened. CI runs it with pytest."""
import pytest

import cuecard


def test_script_a_model_in_python():
    mock = (cuecard.MockModel.that_fails("rate_limited", retry_after=0.02)
            .then_calls_tool("get_weather", {"city": "Paris"})
            .then_responds("It is 22 °C and sunny in Paris."))
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Weather in Paris?"}],
               "metadata": {"operation": "weather"}}

    with pytest.raises(cuecard.ProviderError) as failure:  # what the code under test would retry
        mock.chat(request)
    assert (failure.value.status, failure.value.retryable, failure.value.retry_after) == (429, True, 0.02)

    call = mock.chat(request)["message"]["tool_calls"][0]
    assert (call["id"], call["name"]) == ("call_1", "get_weather")

    events = mock.stream(request)
    assert [e["text"] for e in events if e["type"] == "text_delta"][:4] == ["It", " is", " ", "22"]

    (cuecard.assert_that(mock).when_called("weather")
     .was_called_times(3).and_retried(2).and_observed_failure(cuecard.ProviderError))
    cuecard.assert_that(mock).last_request().has_last_user_message_containing("Paris")
    cuecard.assert_that(mock).script_fully_used()
