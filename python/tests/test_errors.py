"""Every cuecard error kind maps to its own exception class, which also inherits the natural builtin."""
import os

import pytest

import cuecard
from cuecard import _cuecard, errors

BUILTIN = {
    "invalid_scenario": ValueError, "invalid_request": ValueError, "script_exhausted": RuntimeError,
    "no_route_matched": LookupError, "invalid_argument": ValueError, "invalid_state": RuntimeError,
    "request_count_mismatch": LookupError, "assertion_failed": AssertionError, "callback_failed": RuntimeError,
    "invalid_utf8": ValueError, "io": OSError, "tool_failed": RuntimeError, "internal": RuntimeError,
    "not_found": LookupError, "request_too_large": ValueError, "host_error": RuntimeError,
    "no_recording": LookupError,
}


@pytest.mark.parametrize("code", [code for code, _, _ in _cuecard.error_catalogue()])
def test_every_kind_raises_its_class_with_its_code(code):
    with pytest.raises(cuecard.CuecardError) as raised:
        _cuecard._raise_error(code)
    error = raised.value
    assert type(error) is errors.error_class_for(code)
    assert type(error) is not errors.CuecardError, f"{code} has no class of its own"
    assert isinstance(error, cuecard.CuecardError) and isinstance(error, BUILTIN[code])
    assert error.code == code


def test_a_missing_recording_is_also_a_missing_route():
    assert issubclass(cuecard.NoRecordingError, cuecard.NoRouteMatchedError)


def test_the_catalogue_is_covered():
    assert sorted(BUILTIN) == sorted(code for code, _, _ in _cuecard.error_catalogue())


def test_a_scripted_failure_is_a_provider_error_with_its_facts():
    mock = cuecard.MockModel.that_fails("rate_limited", retry_after=1.5, message="slow down")
    with pytest.raises(cuecard.ProviderError) as raised:
        mock.chat("hi")
    assert (raised.value.kind, raised.value.status, raised.value.retryable) == ("rate_limited", 429, True)
    assert raised.value.retry_after == 1.5
    assert str(raised.value) == "slow down"


def test_wrong_types_are_typed_errors_naming_the_problem():
    with pytest.raises(cuecard.InvalidRequestError, match="messages"):
        cuecard.MockModel.that_responds("x").chat({"model": "m", "messages": 5})
    with pytest.raises(cuecard.InvalidScenarioError) as raised:
        cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [{"txt": "a"}]}]})
    assert raised.value.issues[0]["path"] == "routes[0].steps[0].txt"
    with pytest.raises(cuecard.InvalidArgumentError):
        cuecard.MockModel.that_responds("")
    with pytest.raises(TypeError):
        cuecard.tokenize(5)
    # A list where an object belongs is refused, not read field by field in declaration order.
    with pytest.raises(cuecard.InvalidArgumentError, match="fail_after: invalid type: sequence") as raised:
        cuecard.MockModel.that_responds({"text": "a", "fail_after": ["rate_limited", 429]})
    assert raised.value.code == "invalid_argument"


def test_tool_call_arguments_of_the_wrong_type_are_type_errors_naming_the_argument():
    with pytest.raises(TypeError, match="arguments") as raised:
        cuecard.MockModel.that_calls_tool("f", 42)
    assert isinstance(raised.value, cuecard.InvalidArgumentError)
    assert raised.value.context == {"argument": "arguments", "expected": "a mapping, a str of raw JSON text, or None",
                                    "found": "int"}
    with pytest.raises(TypeError, match="name") as raised:
        cuecard.MockModel.that_calls_tool(123, {})
    assert raised.value.context["argument"] == "name"
    with pytest.raises(TypeError, match="arguments"):
        cuecard.MockModel.that_responds("x").then_calls_tool("f", [1, 2])
    # What the arguments may be: a mapping, raw text (kept as it is, invalid JSON too), or None for {}.
    mock = cuecard.MockModel.that_calls_tool("a", {"x": 1}).then_calls_tool("b", '{"x": 1').then_calls_tool("c")
    assert [mock.chat("q")["message"]["tool_calls"][0]["arguments"] for _ in range(3)] == ['{"x":1}', '{"x": 1', "{}"]


def test_a_scenario_file_that_cannot_be_read_is_the_builtin_file_error(tmp_path):
    import errno
    missing = tmp_path / "missing.json"
    for given in (missing, str(missing)):
        with pytest.raises(FileNotFoundError) as raised:
            cuecard.MockModel.from_scenario(given)
        error = raised.value
        assert isinstance(error, cuecard.NotFoundError) and isinstance(error, OSError) and error.code == "not_found"
        assert (error.errno, error.filename) == (errno.ENOENT, str(missing))
        assert str(error).startswith(f"cannot read {missing}")
    with pytest.raises(IsADirectoryError) as raised:
        cuecard.MockModel.from_scenario(tmp_path)
    assert isinstance(raised.value, cuecard.CuecardIOError) and raised.value.errno == errno.EISDIR
    unreadable = tmp_path / "unreadable.json"
    unreadable.write_text("{}")
    unreadable.chmod(0)
    try:
        if not os.access(unreadable, os.R_OK):  # root reads any file: nothing to refuse then
            with pytest.raises(PermissionError) as raised:
                cuecard.MockModel.from_scenario(unreadable)
            assert raised.value.errno == errno.EACCES and raised.value.code == "io"
    finally:
        unreadable.chmod(0o600)
