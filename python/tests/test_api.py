"""The seed-style scripting API, callables, the journal, threads."""
import threading

import pytest

import cuecard


def test_tool_call_then_text_streams_in_order():
    mock = cuecard.MockModel.that_calls_tool("cancelBooking", {"bookingNumber": "MS-777"}).then_responds(
        "Booking MS-777 is cancelled.")
    first = mock.chat("Cancel MS-777")
    assert first["message"]["tool_calls"] == [{"id": "call_1", "name": "cancelBooking", "arguments": '{"bookingNumber":"MS-777"}'}]
    assert first["finish_reason"] == "tool_calls"
    events = mock.stream("and then?")
    assert [e["text"] for e in events if e["type"] == "text_delta"] == ["Booking", " MS", "-", "777", " is", " cancelled", "."]
    assert events[-1]["type"] == "complete"


def test_streams_exact_tokens_and_fails_after_them():
    mock = cuecard.MockModel.that_streams("Hel", "lo").and_fails("connection_reset")
    events = mock.stream("hi")
    assert [e["type"] for e in events] == ["text_delta", "text_delta", "error"]
    assert events[-1]["error"]["kind"] == "connection_reset"


def test_a_callable_answer_sees_the_request_and_its_exception_passes_unchanged():
    class Boom(Exception):
        pass

    original = Boom("from the callback")

    def answer(request):
        if "boom" in request["messages"][0]["content"][0]["text"]:
            raise original
        return "echo: " + request["messages"][0]["content"][0]["text"]

    mock = cuecard.MockModel.that_responds(answer).then_repeats()
    assert mock.chat("ping")["message"]["text"] == "echo: ping"
    with pytest.raises(Boom) as raised:
        mock.chat("boom")
    assert raised.value is original
    assert mock.entries()[1]["outcome"] == "callback_failed"


def test_exhaustion_and_the_journal():
    mock = cuecard.MockModel.that_responds("only")
    mock.chat("first")
    with pytest.raises(cuecard.ScriptExhaustedError, match="which has 1 step and all were used"):
        mock.chat("second")
    assert mock.request_count() == 2
    assert mock.last_request()["messages"][0]["content"][0]["text"] == "second"
    with pytest.raises(cuecard.RequestCountMismatchError, match="received 2"):
        mock.request()
    with pytest.raises(cuecard.InvalidStateError):
        mock.then_repeats().then_responds("late")


def test_threads_each_take_one_step():
    mock = cuecard.MockModel()
    for i in range(400):
        mock.then_responds(f"answer {i}")
    answers = []
    lock = threading.Lock()

    def worker():
        for _ in range(50):
            text = mock.chat("hi")["message"]["text"]
            with lock:
                answers.append(text)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == sorted(f"answer {i}" for i in range(400))
    assert mock.unused_steps() == []


def test_routes_by_operation_and_model():
    mock = (cuecard.MockModel()
            .route(operation="classify").then_responds("spam").then_repeats()
            .route(model="gpt-4o-mini", on_exhausted="cycle").then_responds("small a").then_responds("small b")
            .route().then_responds("default"))

    def ask(model, operation=None):
        request = {"model": model, "messages": [{"role": "user", "content": "x"}]}
        if operation:
            request["metadata"] = {"operation": operation}
        return mock.chat(request)["message"]["text"]

    assert [ask("gpt-4o", "classify"), ask("gpt-4o-mini"), ask("gpt-4o-mini"), ask("gpt-4o-mini"), ask("gpt-4o")] == [
        "spam", "small a", "small b", "small a", "default"]
    with pytest.raises(cuecard.InvalidArgumentError):
        mock.route(on_exhausted="sometimes")
