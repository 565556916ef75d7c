"""Fluent assertions with Tramai's semantics, computed by the core: a failure raises `AssertionFailedError`
(an `AssertionError`) whose message shows expected, actual and the recorded history as a table."""
from __future__ import annotations

from . import _cuecard
from .mock import MockModel


class Verification:
    def __init__(self, mock: MockModel):
        self._mock = mock

    def when_called(self, operation: str) -> "_cuecard.MethodCheck":
        """Checks about the requests for one operation (`was_called_times`, `and_retried`, ...)."""
        return _cuecard.MethodCheck(self._mock._core, operation)

    def script_fully_used(self) -> "Verification":
        """Every step was used and no request was unexpected."""
        _cuecard.check_script_fully_used(self._mock._core)
        return self


def assert_that(mock: MockModel) -> Verification:
    return Verification(mock)
