"""cuecard's exceptions. Every cuecard error has a stable `.code` (the same in every language) and is also the
natural builtin (`InvalidScenarioError` is a `ValueError`, ...). A simulated provider failure is a
`ProviderError`, with `.kind`, `.status`, `.retryable` and `.retry_after` (seconds)."""
from __future__ import annotations

from typing import Any


class CuecardError(Exception):
    """Base class of cuecard's own errors: `.code` (stable in every language), `.issues` (problems found at paths
    of a document) and `.context` (structured facts: the argument, the path, ...)."""

    code: str = "internal"

    def __init__(self, message: str, code: str | None = None, issues: list[dict[str, str]] | None = None,
                 context: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.issues = issues or []
        self.context = context or {}


class InvalidScenarioError(CuecardError, ValueError):
    code = "invalid_scenario"


class InvalidRequestError(CuecardError, ValueError):
    code = "invalid_request"


class ScriptExhaustedError(CuecardError, RuntimeError):
    code = "script_exhausted"


class NoRouteMatchedError(CuecardError, LookupError):
    code = "no_route_matched"


class InvalidArgumentError(CuecardError, ValueError):
    code = "invalid_argument"


class InvalidStateError(CuecardError, RuntimeError):
    code = "invalid_state"


class RequestCountMismatchError(CuecardError, LookupError):
    code = "request_count_mismatch"


class AssertionFailedError(CuecardError, AssertionError):
    code = "assertion_failed"


class CallbackFailedError(CuecardError, RuntimeError):
    code = "callback_failed"


class InvalidUtf8Error(CuecardError, ValueError):
    code = "invalid_utf8"


class CuecardIOError(CuecardError, OSError):
    code = "io"


class ToolFailedError(CuecardError, RuntimeError):
    code = "tool_failed"


class InternalError(CuecardError, RuntimeError):
    code = "internal"


class NotFoundError(CuecardError, LookupError):
    code = "not_found"


class RequestTooLargeError(CuecardError, ValueError):
    code = "request_too_large"


class HostCallbackError(CuecardError, RuntimeError):
    """A callback of another language failed (a Python callback's own exception is raised as itself)."""

    code = "host_error"


class NoRecordingError(NoRouteMatchedError):
    """A request matches none of a recording's requests; the message names the nearest recording and each field
    that differs. A `NoRouteMatchedError`, so code that catches that catches this too."""

    code = "no_recording"


_BY_CODE: dict[str, type[CuecardError]] = {
    cls.code: cls
    for cls in (
        InvalidScenarioError, InvalidRequestError, ScriptExhaustedError, NoRouteMatchedError, InvalidArgumentError,
        InvalidStateError, RequestCountMismatchError, AssertionFailedError, CallbackFailedError, InvalidUtf8Error,
        CuecardIOError, ToolFailedError, InternalError, NotFoundError, RequestTooLargeError, HostCallbackError,
        NoRecordingError,
    )
}


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong type (`that_calls_tool(123)`): an `InvalidArgumentError` that is also the builtin a
    Python caller expects for it, `TypeError`. `.context` has `argument`, `expected` and `found`."""


class _FileErrorMixin:
    """A file cuecard could not read, raised as the builtin for what the system said, with `errno`, `strerror` and
    `filename` set as `open()` sets them; `str()` stays cuecard's message, which names the path and the reason."""

    def __str__(self) -> str:
        return self.message  # type: ignore[attr-defined, no-any-return]


class ScenarioFileNotFoundError(_FileErrorMixin, NotFoundError, FileNotFoundError):
    """A scenario file that does not exist: `NotFoundError` (code `not_found`) and `FileNotFoundError`."""


class CuecardPermissionError(_FileErrorMixin, CuecardIOError, PermissionError):
    """A file cuecard may not read: `CuecardIOError` (code `io`) and `PermissionError`."""


class CuecardIsADirectoryError(_FileErrorMixin, CuecardIOError, IsADirectoryError):
    """A directory given where a file was expected: `CuecardIOError` (code `io`) and `IsADirectoryError`."""


class CuecardFileError(_FileErrorMixin, CuecardIOError):
    """Any other file that could not be read: `CuecardIOError` (code `io`), an `OSError`."""


_BY_IO_ERROR: dict[str, type[CuecardError]] = {
    "not_found": ScenarioFileNotFoundError, "permission_denied": CuecardPermissionError,
    "is_a_directory": CuecardIsADirectoryError, "other": CuecardFileError,
}


def error_class_for(code: str) -> type[CuecardError]:
    """The class for a code; unknown codes (from a newer core) fall back to the base class."""
    return _BY_CODE.get(code, CuecardError)


def _error_for(message: str, code: str, issues: list[dict[str, str]], context: dict[str, Any]) -> CuecardError:
    """The exception for one of the core's errors: the class of its code, or, where the context says more, the one a
    Python caller expects (a file error by what the system said; a wrong type as `TypeError`)."""
    io_error = context.get("io_error") if code in ("not_found", "io") else None
    if io_error is not None:
        error: CuecardError = _BY_IO_ERROR.get(io_error, CuecardFileError)(message, code, issues, context)
        assert isinstance(error, OSError)
        error.errno = context.get("os_errno")
        error.strerror = message
        error.filename = context.get("path")
        return error
    if code == "invalid_argument" and "found" in context:
        return ArgumentTypeError(message, code, issues, context)
    return error_class_for(code)(message, code, issues, context)


class ProviderError(Exception):
    """A simulated provider failure (a 429, a 529, a reset connection, ...), as the script says."""

    def __init__(self, kind: str, message: str, status: int | None = None, retryable: bool = False,
                 retry_after_ms: int | None = None, error_type: str | None = None, error_code: str | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms
        self.error_type = error_type
        self.error_code = error_code

    @property
    def retry_after(self) -> float | None:
        """The retry-after delay in seconds, if the failure asks for one."""
        return None if self.retry_after_ms is None else self.retry_after_ms / 1000

    @classmethod
    def _from_core(cls, data: dict[str, Any]) -> "ProviderError":
        return cls(data["kind"], data["message"], data.get("status"), data["retryable"], data.get("retry_after_ms"),
                   data.get("error_type"), data.get("error_code"))

    def __repr__(self) -> str:
        return f"ProviderError(kind={self.kind!r}, status={self.status!r}, retryable={self.retryable!r}, message={self.message!r})"
