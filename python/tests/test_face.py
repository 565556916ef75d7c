"""Regressions of the binding before it sat on the core's face: hostile data, wrong types, accessors, settings,
collectors, and every check of the core in the fluent chain."""
import asyncio
import json
import subprocess
import sys

import pytest

import cuecard
from cuecard import _cuecard
from cuecard.verify import MethodCheck, RequestCheck, Verification


def nested(depth):
    value = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_deep_cyclic_and_non_json_data_is_a_typed_error_not_a_crash():
    deep = {"model": "m", "messages": [{"role": "user", "content": "x"}], "metadata": {"extra": nested(20_000)}}
    with pytest.raises(cuecard.InvalidArgumentError, match="nested deeper than 128 levels") as raised:
        cuecard.MockModel.that_responds("x").chat(deep)
    assert raised.value.context["argument"] == "request"
    loop = {"items": []}
    loop["items"].append(loop)
    with pytest.raises(cuecard.InvalidArgumentError, match=r"invalid arguments at items\[0\]: the data contains itself"):
        cuecard.MockModel().then_calls_tool("f", loop)
    with pytest.raises(cuecard.InvalidArgumentError, match="invalid arguments at x: NaN is not a JSON number"):
        cuecard.MockModel().then_calls_tool("f", {"x": float("nan")})
    with pytest.raises(cuecard.InvalidArgumentError, match="found set"):
        cuecard.MockTool("t", result={1, 2})
    with pytest.raises(cuecard.InvalidArgumentError, match="keys must be text"):
        cuecard.MockModel.from_scenario({1: "x"})
    with pytest.raises(cuecard.InvalidArgumentError, match="does not fit in 64 bits"):
        cuecard.MockModel().then_calls_tool("f", {"x": 2**70})


def test_lone_surrogates_are_invalid_utf8():
    with pytest.raises(cuecard.InvalidUtf8Error, match="not valid Unicode"):
        cuecard.MockModel.that_responds("x").chat("bad \ud800 text")


def test_wrong_types_name_the_argument_and_what_was_expected():
    with pytest.raises(cuecard.InvalidArgumentError,
                       match="invalid answer: expected a str, a step dict, or a callable of the request, found int"):
        cuecard.MockModel.that_responds(123)
    with pytest.raises(cuecard.InvalidArgumentError, match="invalid retry_after: expected a number of seconds >= 0, found str"):
        cuecard.MockModel().then_fails("rate_limited", retry_after="soon")
    with pytest.raises(cuecard.InvalidArgumentError, match="invalid failure at kind: unknown variant `rate_limit`, expected one of `rate_limited`"):
        cuecard.MockModel().then_fails("rate_limit")
    with pytest.raises(cuecard.InvalidArgumentError, match=r"invalid tokens at \[1\]: invalid type: integer `5`"):
        cuecard.MockModel.that_streams("a", 5)
    with pytest.raises(cuecard.InvalidArgumentError, match="on_exhausted \"sometimes\" is not one of fail, repeat_last, cycle"):
        cuecard.MockModel().route(on_exhausted="sometimes")
    with pytest.raises(cuecard.InvalidArgumentError, match="invalid settings at instnat: unknown field `instnat`"):
        cuecard.MockModel(instnat=True)


def test_an_unusable_computed_answer_is_callback_failed_without_rust_type_names():
    mock = cuecard.MockModel.that_responds(lambda request: 42)
    with pytest.raises(cuecard.CallbackFailedError) as raised:
        mock.chat("hi")
    message = str(raised.value)
    assert message.startswith("a computed answer must be a text or a step object: invalid computed answer: invalid type: integer `42`")
    assert "StepSpec" not in message and "serde" not in message
    assert mock.entries()[0]["outcome"] == "callback_failed"
    bad_data = cuecard.MockModel.that_responds(lambda request: {"text": float("inf")})
    with pytest.raises(cuecard.CallbackFailedError, match="inf is not a JSON number"):
        bad_data.chat("hi")


def test_accessors_are_methods_and_journaled_text_is_readable():
    mock = cuecard.MockModel.that_responds("a").then_responds("b")
    mock.chat({"model": "m", "messages": [{"role": "system", "content": "Be brief."},
                                          {"role": "user", "content": [{"type": "text", "text": "Hel"},
                                                                       {"type": "text", "text": "lo"}]}]})
    assert mock.request_count() == 1
    assert mock.user_message_text() == "Hello"
    assert cuecard.message_text(mock.last_request()["messages"][1]) == "Hello"
    assert [cuecard.message_text(m) for m in mock.requests()[0]["messages"]] == ["Be brief.", "Hello"]
    assert mock.was_called_with(lambda r: r["model"] == "m")
    assert not mock.was_called_with(lambda r: r["model"] == "other")
    mock.chat("again")
    with pytest.raises(cuecard.RequestCountMismatchError, match="received 2"):
        mock.user_message_text()
    assert mock.counts()["answered"] == 2


def test_settings_on_the_constructor_and_the_builder():
    mock = cuecard.MockModel(instant=True, provider_id="primary", capabilities=["tools"], seed=7)
    assert mock.instant and mock.provider_id == "primary"
    assert mock.settings()["capabilities"] == ["tools"] and mock.settings()["seed"] == 7
    mock.then_responds("Hello, world!").with_token_usage(10, 4).with_default_delay(250)
    response, error, delay_ms = mock.chat_timed("hi")
    assert response["usage"] == {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    assert (error, delay_ms) == (None, 250)
    assert asyncio.run(cuecard.MockModel.that_responds("x").configure(instant=True).with_default_delay(5000).achat("hi"))[
        "message"]["text"] == "x", "instant mode does not wait"
    from_file = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": ["x"]}]}, instant=True)
    assert from_file.instant


def test_from_scenario_takes_yaml_text_like_json_text():
    yaml_mock = cuecard.MockModel.from_scenario("cuecard: 1\nroutes:\n  - steps: [Hello from YAML]\n")
    assert yaml_mock.chat("hi")["message"]["text"] == "Hello from YAML"
    json_mock = cuecard.MockModel.from_scenario('{"cuecard": 1, "routes": [{"steps": ["Hello from JSON"]}]}')
    assert json_mock.chat("hi")["message"]["text"] == "Hello from JSON"
    with pytest.raises(cuecard.NotFoundError, match="cannot read"):
        cuecard.MockModel.from_scenario("no-such-file.json")


def test_the_stream_collectors_return_the_text_and_raise_the_scripted_error():
    mock = cuecard.MockModel.that_responds("Hello, world!").then_streams("Part", "ial").and_fails("server_error")
    assert mock.stream_text("hi") == "Hello, world!"
    with pytest.raises(cuecard.ProviderError) as raised:
        mock.stream_text("again")
    assert raised.value.kind == "server_error"
    later = cuecard.MockModel.that_streams("a", "b").and_fails("overloaded")
    with pytest.raises(cuecard.ProviderError, match="Overloaded"):
        asyncio.run(later.astream_text("hi"))


def test_tramai_checks_take_exception_classes_as_well_as_kind_names():
    class UpstreamTimeout(TimeoutError):
        pass

    mock = cuecard.MockModel.that_responds("{}")
    observer = cuecard.RecordingObserver()
    first = observer.on_call_started("analyze", attempt=0)
    first.on_provider_failure(UpstreamTimeout("read timed out"))
    first.on_call_completed(None)
    second = observer.on_call_started("analyze", attempt=1)
    second.on_provider_response(mock.chat({"model": "m", "messages": [], "metadata": {"operation": "analyze"}}))
    second.on_call_completed(True)
    check = cuecard.assert_that(mock).with_observer(observer).when_called("analyze")
    check.and_observed_failure(UpstreamTimeout).and_observed_failure(TimeoutError).and_observed_failure(OSError)
    check.and_observed_failure("UpstreamTimeout").and_retried(1).and_parsed_successfully()
    with pytest.raises(AssertionError, match=r"and_observed_failure\(\"ValueError\"\) failed"):
        check.and_observed_failure(ValueError)
    scripted = cuecard.MockModel.that_fails("rate_limited")
    with pytest.raises(cuecard.ProviderError):
        scripted.chat({"model": "m", "messages": [], "metadata": {"operation": "x"}})
    cuecard.assert_that(scripted).when_called("x").and_failed_with(cuecard.ProviderError).and_failed_with("rate_limited")


def test_the_fluent_chain_has_every_check_of_the_core():
    methods = {name for cls in (Verification, MethodCheck, RequestCheck) for name in vars(cls) if not name.startswith("_")}
    missing = [name for name in _cuecard.check_names() if name not in methods]
    assert missing == [], f"the Python chain lacks {missing}"


def test_request_checks_from_python():
    mock = cuecard.MockModel.that_responds("ok").then_responds("ok")
    mock.chat({"model": "gpt-4o", "messages": [{"role": "system", "content": "You are terse."},
                                               {"role": "user", "content": "Cancel MS-777"}],
               "tools": [{"name": "cancel"}], "response_format": {"type": "json_schema", "name": "b", "schema": {}}})
    (cuecard.assert_that(mock).last_request().has_last_user_message_containing("MS-777")
     .has_system_message_containing("terse").offers_tool("cancel").offers_exactly_tools(["cancel"])
     .has_json_schema_response_format("b").has_model("gpt-4o"))
    cuecard.assert_that(mock).request().has_model("gpt-4o")
    cuecard.assert_that(mock).received_requests(1).no_unexpected_requests()
    with pytest.raises(AssertionError, match="all_steps_used"):
        cuecard.assert_that(mock).all_steps_used()
    with pytest.raises(cuecard.AssertionFailedError) as raised:
        cuecard.assert_that(mock).request_at(3).has_model("gpt-4o")
    assert raised.value.context["check"] == "request_at(3)"


def test_the_console_command_comes_with_the_wheel():
    tokens = subprocess.run([sys.executable, "-m", "cuecard", "tokenize"], input="Hello, world!",
                            capture_output=True, text=True, check=True)
    assert json.loads(tokens.stdout) == ["Hello", ",", " world", "!"]
    bad = subprocess.run([sys.executable, "-m", "cuecard", "validate", "missing.json"], capture_output=True, text=True)
    assert bad.returncode == 2 and "cannot read" in bad.stdout
    usage = subprocess.run([sys.executable, "-m", "cuecard", "frobnicate"], capture_output=True, text=True)
    assert usage.returncode == 2 and "unrecognized subcommand" in usage.stderr
