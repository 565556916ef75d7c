"""Recordings in-process: a `Recording` replays a recording file through the SDK transports and, in a record
mode, forwards what the file lacks to the real API (or any upstream) with the SDK's own HTTP module, relaying each
chunk to the SDK as it arrives and recording the exchange when its body ends.

    recording = cuecard.Recording("recordings/test_weather.yaml", mode="once")
    client = cuecard.openai_client(recording)     # replays; records what the file lacks in modes once, new, all

The rules (the modes, the CI refusal, each protocol's upstream, redaction, the file's format) are core's
(`cuecard::record::RecordingFile`); this module only moves bytes. Modes: `none` (replay only, the default),
`once` (record when the file is missing), `new` (replay, and record what is missing), `all` (record anew).
"""
from __future__ import annotations

import os
import time
import warnings
from typing import Any, AsyncIterable, AsyncIterator, Iterable, Iterator, Optional

from . import _cuecard
from .errors import CuecardError
from .mock import MockModel

def drift(path: "str | os.PathLike[str]") -> dict:
    """The drift report of a recording (cuecard's, or a vcrpy cassette), as `cuecard drift --json` gives it:
    `drifted`, and per recorded exchange the `differences` between what the real API sent and what cuecard sends for
    the same answer (fields, types, kind names, stream events, status, the headers SDKs read), and `only_cuecard`."""
    import json

    return json.loads(_cuecard.drift_report(os.fspath(path)))


class RecordingWarning(UserWarning):
    """An exchange was forwarded but could not be recorded (a request that is not a model call, for example), or a
    replayed recording is older than its `max_age_days`."""


class Recording:
    """A recording file in a record mode, answering the SDK helpers (`openai_client(recording)`, ...) and any
    transport from `transport_for(http, recording)`.

    `mock` is the `MockModel` replaying the file (empty when nothing is replayed): assert on its journal, or with
    `assert_that(recording.mock).script_fully_used()`. Keywords: `upstream` (a URL, or a list of `URL` and
    `PROTOCOL=URL`; the providers' public APIs by default), `redact`, `redact_fields`, `allow_in_ci`,
    `description`."""

    def __init__(self, path: str | os.PathLike[str], mode: str = "none", **settings: Any):
        upstream = settings.get("upstream")
        if isinstance(upstream, str):
            settings["upstream"] = [upstream]
        self.file = _cuecard.RecordingFile(os.fspath(path), mode=mode, **settings)
        self.mock = MockModel.from_scenario(os.fspath(path)) if self.file.replays else MockModel()
        # A recording older than its max_age_days is still replayed, with a warning naming it.
        if self.file.age_warning:
            warnings.warn(self.file.age_warning, RecordingWarning, stacklevel=2)
        #: What could not be recorded, in order (each also warned with `RecordingWarning`).
        self.failures: list[str] = []

    @property
    def path(self) -> str:
        return os.fspath(self.file.path)

    @property
    def mode(self) -> str:
        return self.file.mode

    @property
    def records(self) -> bool:
        return self.file.records

    @property
    def replays(self) -> bool:
        return self.file.replays

    @property
    def recorded(self) -> int:
        """How many exchanges were recorded since the file was opened."""
        return self.file.recorded

    def handle_http(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes,
                    instant: Optional[bool] = None) -> Optional[dict]:
        """The replayed reply (as `MockModel.handle_http`), or None when the request is to be forwarded and
        recorded: in mode `all`, on a file `once` is making, and on a miss in mode `new`."""
        if self.file.replays:
            reply = self.mock.handle_http(method, target, headers, body, instant=instant)
            if not (self.file.records and _cuecard.RecordingFile.is_miss(reply["headers"])):
                return reply
        return None

    def forward(self, method: str, target: str, headers: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
        """The URL a request goes to, and the headers it is sent with (core's rule)."""
        return self.file.forwarding(method, target, headers)

    def recorder(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes, status: int,
                 reply_headers: list[tuple[str, str]], started: float) -> "_Exchange":
        """The exchange a forwarded reply's chunks are added to as they arrive."""
        return _Exchange(self, (method, target, headers, body), status, reply_headers, started)

    def __repr__(self) -> str:
        return f"Recording({self.path!r}, mode={self.mode!r}, replays={self.replays}, records={self.records})"


class _Exchange:
    """One forwarded reply being recorded: its chunks with the milliseconds since the request was sent; recorded
    once, when the body ends (or breaks: then marked cut)."""

    def __init__(self, recording: Recording, request: tuple, status: int, reply_headers: list[tuple[str, str]],
                 started: float):
        self._recording, self._request, self._status, self._headers = recording, request, status, reply_headers
        self._started = started
        self.headers_ms = self._ms()
        self.chunks: list[tuple[int, bytes]] = []
        self._done = False

    def _ms(self) -> int:
        return int((time.monotonic() - self._started) * 1000)

    def add(self, chunk: bytes) -> None:
        self.chunks.append((self._ms(), bytes(chunk)))

    def finish(self, cut: bool) -> None:
        if self._done:
            return
        self._done = True
        method, target, headers, body = self._request
        try:
            self._recording.file.record(method, target, headers, body, self._status, self._headers,
                                        self.headers_ms, self.chunks, cut)
        except CuecardError as error:
            message = f"not recorded in {self._recording.path}: {error}"
            self._recording.failures.append(message)
            warnings.warn(message, RecordingWarning, stacklevel=2)


def relay(exchange: _Exchange, chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Yields each upstream chunk as it arrives while adding it to the exchange. A client that stops reading early
    does not stop the recording: the rest is read and recorded whole. A body that breaks is recorded as cut, and
    the error goes on to the client."""
    iterator = iter(chunks)
    cut = False
    try:
        for chunk in iterator:
            exchange.add(chunk)
            yield chunk
    except GeneratorExit:
        try:
            for chunk in iterator:
                exchange.add(chunk)
        except Exception:  # noqa: BLE001 - the client has gone; the recording notes the cut
            cut = True
        raise
    except Exception:
        cut = True
        raise
    finally:
        exchange.finish(cut)


async def arelay(exchange: _Exchange, chunks: AsyncIterable[bytes]) -> AsyncIterator[bytes]:
    """`relay` for an async body. A client that stops reading early leaves the recording cut where it stopped
    (an async generator cannot read on while it is being closed)."""
    cut = True
    try:
        async for chunk in chunks:
            exchange.add(chunk)
            yield chunk
        cut = False
    finally:
        exchange.finish(cut)


__all__ = ["Recording", "RecordingWarning"]
