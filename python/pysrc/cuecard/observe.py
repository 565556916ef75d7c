"""Tramai's observer protocol: an engine reports each provider call it makes, and a `RecordingObserver` keeps one
call record per call, in order, for `assert_that(mock).with_observer(observer)`."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from . import _cuecard


class CallObservation:
    """What an engine reports to for one provider call (returned by `on_call_started`)."""

    def __init__(self, core: "_cuecard.RecordingObserver", index: int):
        self._core, self.index = core, index

    def on_provider_response(self, response: Mapping[str, Any]) -> None:
        self._core.on_provider_response(self.index, dict(response))

    def on_provider_failure(self, failure: BaseException | str, *, status: Optional[int] = None,
                            retryable: Optional[bool] = None) -> None:
        """A failure: a `cuecard.ProviderError` (its kind is recorded), another exception (its class name), or a kind."""
        if isinstance(failure, str):
            self._core.on_provider_failure(self.index, failure, "", status, bool(retryable))
            return
        kind = getattr(failure, "kind", None) or type(failure).__name__
        status = status if status is not None else getattr(failure, "status", None)
        retryable = retryable if retryable is not None else bool(getattr(failure, "retryable", False))
        self._core.on_provider_failure(self.index, kind, str(failure), status, retryable)

    def on_structured_parse_failure(self, raw_response: str, error_summary: str) -> None:
        # Like Tramai, the raw response is not kept.
        self._core.on_structured_parse_failure(self.index, error_summary)

    def on_engine_event(self, name: str, attributes: Optional[Mapping[str, Any]] = None) -> None:
        self._core.on_engine_event(self.index, name, dict(attributes or {}))

    def on_call_completed(self, parse_success: Optional[bool] = None) -> None:
        self._core.on_call_completed(self.index, parse_success)


class RecordingObserver:
    def __init__(self) -> None:
        self._core = _cuecard.RecordingObserver()

    def on_call_started(self, operation: Optional[str] = None, *, provider_id: str = "mock", model: str = "",
                        attempt: int = 0, service: Optional[str] = None) -> CallObservation:
        return CallObservation(self._core, self._core.on_call_started(operation, provider_id, model, attempt, service))

    @property
    def call_records(self) -> list[dict[str, Any]]:
        return self._core.call_records()
