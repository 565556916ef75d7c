"""`MockModel`: the compiled scripted provider (seed verbs, answering, journal) plus the forms that wait out the
scripted delays: `achat` and `astream` with asyncio (never blocking the loop), `iter_stream` with `time.sleep`.
With `instant=True` (or a scenario that says so) nothing waits; the journal still records virtual times."""
from __future__ import annotations

import asyncio
import time
from typing import Any, AsyncIterator, Iterator, Mapping, Union

from . import _cuecard

Request = Union[str, Mapping[str, Any]]


class MockModel(_cuecard.MockModel):
    """A scripted model: each request takes the next step of the route it matches; every request is journaled."""

    def iter_stream(self, request: Request) -> Iterator[dict[str, Any]]:
        """The stream events, each after its scripted delay."""
        for event in self.stream(request):
            if event["delay_ms"] and not self.instant:
                time.sleep(event["delay_ms"] / 1000)
            yield event

    async def achat(self, request: Request) -> dict[str, Any]:
        """Like `chat`, after waiting out the scripted delay (a scripted failure is raised after it)."""
        response, error, delay_ms = self.chat_timed(request)
        if delay_ms and not self.instant:
            await asyncio.sleep(delay_ms / 1000)
        if error is not None:
            raise error
        return response

    async def astream(self, request: Request) -> AsyncIterator[dict[str, Any]]:
        """The stream events as an async iterator, each after its scripted delay."""
        for event in self.stream(request):
            if event["delay_ms"] and not self.instant:
                await asyncio.sleep(event["delay_ms"] / 1000)
            yield event

    async def astream_text(self, request: Request) -> str:
        """Like `stream_text`, waiting out the delays: the streamed text, or the scripted failure after it."""
        text = []
        async for event in self.astream(request):
            if event["type"] == "text_delta":
                text.append(event["text"])
            elif event["type"] == "error":
                raise self._provider_error(event["error"])
        return "".join(text)

    @staticmethod
    def _provider_error(data: Mapping[str, Any]) -> BaseException:
        from .errors import ProviderError

        return ProviderError._from_core(dict(data))


__all__ = ["MockModel"]
