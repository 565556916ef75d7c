"""Fluent assertions with Tramai's semantics, computed by the core: a failure raises `AssertionFailedError`
(an `AssertionError`) whose message shows expected, actual and the recorded history as a table."""
from __future__ import annotations

from typing import Optional

from . import _cuecard
from .mock import MockModel
from .observe import RecordingObserver


class Verification:
    def __init__(self, mock: MockModel, observer: Optional[RecordingObserver] = None):
        self._mock, self._observer = mock, observer

    def with_observer(self, observer: RecordingObserver) -> "Verification":
        """Judge retries, parse outcomes and failures from the engine's reports instead of the mock's own records."""
        return Verification(self._mock, observer)

    def when_called(self, operation: str) -> "_cuecard.MethodCheck":
        """Checks about the requests for one operation (`was_called_times`, `and_retried`, ...)."""
        observer = self._observer._core if self._observer is not None else None
        return _cuecard.MethodCheck(self._mock._core, operation, observer)

    def script_fully_used(self) -> "Verification":
        """Every step was used and no request was unexpected."""
        _cuecard.check_script_fully_used(self._mock._core)
        return self


def assert_that(mock: MockModel) -> Verification:
    return Verification(mock)
