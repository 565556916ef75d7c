"""README example (Python): script a model, call it, check the journal. CI runs it with pytest."""
import cuecard


def test_script_a_model_in_python():
    mock = (cuecard.MockModel.that_fails("rate_limited", retry_after=0.02)
            .then_calls_tool("get_weather", {"city": "Paris"})
            .then_responds("It is 22 °C and sunny in Paris."))

    try:
        mock.chat("Weather in Paris?")
    except cuecard.ProviderError as error:  # what the code under test would retry
        assert (error.status, error.retryable, error.retry_after) == (429, True, 0.02)

    call = mock.chat("Weather in Paris?")["message"]["tool_calls"][0]
    assert (call["id"], call["name"]) == ("call_1", "get_weather")

    events = mock.stream("Weather in Paris?")
    assert [e["text"] for e in events if e["type"] == "text_delta"][:4] == ["It", " is", " ", "22"]
    assert mock.request_count() == 3 and mock.unused_steps() == []
