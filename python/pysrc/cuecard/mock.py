"""`MockModel` with the seed systems' scripting API (LangChain4j's `that_responds` / `then_...` / `and_fails` /
`then_repeats`), a thin facade over the core's scripted provider."""
from __future__ import annotations

import asyncio
import os
import time
from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Union

from . import _cuecard

Request = Mapping[str, Any]
Answer = Union[str, Mapping[str, Any]]


def _failure(kind: str, status: int | None, message: str | None, retryable: bool | None,
             retry_after: float | None) -> dict[str, Any]:
    failure: dict[str, Any] = {"kind": kind}
    if status is not None:
        failure["status"] = status
    if message is not None:
        failure["message"] = message
    if retryable is not None:
        failure["retryable"] = retryable
    if retry_after is not None:
        failure["retry_after_ms"] = round(retry_after * 1000)
    return failure


def _tool_call(name: str, arguments: Union[Mapping[str, Any], str, None]) -> dict[str, Any]:
    if isinstance(arguments, str):
        return {"name": name, "arguments_json": arguments}
    return {"name": name, "arguments": dict(arguments or {})}


class MockModel:
    """A scripted model: each request takes the next step; every request is journaled.

    `chat` and `stream` answer at once. `achat`, `astream` and `iter_stream` wait out the scripted delays
    (`delay_ms`, `ttft_ms`, `token_delay_ms`) in real time, without blocking the event loop for the async
    forms; set `instant=True` to skip the waits (the journal still records the virtual times)."""

    def __init__(self, core: "_cuecard.MockModel | None" = None, *, instant: bool = False):
        self._core = core if core is not None else _cuecard.MockModel()
        self.instant = instant

    # ---- building a script ------------------------------------------------------------------------------------

    @classmethod
    def from_scenario(cls, scenario: Union[Mapping[str, Any], str, "os.PathLike[str]"], *,
                      instant: bool = False) -> "MockModel":
        """A mock from a scenario: a dict, a JSON text, or a path to a JSON/YAML file."""
        if isinstance(scenario, Mapping):
            return cls(_cuecard.MockModel.from_scenario_dict(dict(scenario)), instant=instant)
        if isinstance(scenario, str) and scenario.lstrip().startswith("{"):
            return cls(_cuecard.MockModel.from_scenario_json(scenario), instant=instant)
        return cls(_cuecard.MockModel.from_scenario_file(os.fspath(scenario)), instant=instant)

    @classmethod
    def that_responds(cls, answer: Union[Answer, Callable[[Request], Answer]]) -> "MockModel":
        return cls().then_responds(answer)

    @classmethod
    def that_streams(cls, *tokens: str) -> "MockModel":
        return cls().then_streams(*tokens)

    @classmethod
    def that_calls_tool(cls, name: str, arguments: Union[Mapping[str, Any], str, None] = None) -> "MockModel":
        return cls().then_calls_tool(name, arguments)

    @classmethod
    def that_fails(cls, kind: str = "server_error", *, status: int | None = None, message: str | None = None,
                   retryable: bool | None = None, retry_after: float | None = None) -> "MockModel":
        return cls().then_fails(kind, status=status, message=message, retryable=retryable, retry_after=retry_after)

    def route(self, *, operation: str | None = None, model: str | None = None, endpoint: str | None = None,
              on_exhausted: str | None = None) -> "MockModel":
        """Starts a route: the steps added next answer only requests that match (the first matching route wins;
        a route without criteria takes every other request and belongs last)."""
        self._core.add_route(operation, model, endpoint, on_exhausted)
        return self

    def then_responds(self, answer: Union[Answer, Callable[[Request], Answer]]) -> "MockModel":
        """Adds a step: a text (streamed in word-like tokens), a step dict, or a callable computing either."""
        if callable(answer):
            self._core.add_computed(answer)
        elif isinstance(answer, str):
            self._core.add_step({"text": answer})
        else:
            self._core.add_step(dict(answer))
        return self

    def then_streams(self, *tokens: str) -> "MockModel":
        """Adds a step streaming exactly these tokens."""
        self._core.add_step({"tokens": list(tokens)})
        return self

    def then_calls_tool(self, name: str, arguments: Union[Mapping[str, Any], str, None] = None) -> "MockModel":
        """Adds a step calling one tool; arguments as a dict, or as raw JSON text (possibly invalid)."""
        self._core.add_step({"tool_calls": [_tool_call(name, arguments)]})
        return self

    def then_fails(self, kind: str = "server_error", *, status: int | None = None, message: str | None = None,
                   retryable: bool | None = None, retry_after: float | None = None) -> "MockModel":
        """Adds a step failing before anything is streamed."""
        self._core.add_step({"fail": _failure(kind, status, message, retryable, retry_after)})
        return self

    def and_fails(self, kind: str = "connection_reset", *, status: int | None = None, message: str | None = None,
                  retryable: bool | None = None, retry_after: float | None = None) -> "MockModel":
        """Makes the last step fail after its thinking and text were streamed."""
        self._core.and_fails(_failure(kind, status, message, retryable, retry_after))
        return self

    def then_repeats(self) -> "MockModel":
        """Answers every further request with the last step."""
        self._core.repeats()
        return self

    # ---- answering ----------------------------------------------------------------------------------------------

    def chat(self, request: Union[Request, str]) -> dict[str, Any]:
        """Answers a request (a dict in cuecard's neutral format, or a user message text) whole."""
        return self._core.chat(_request(request))

    def stream(self, request: Union[Request, str]) -> list[dict[str, Any]]:
        """Answers a request as its stream events, in order (at once; the delays are on the events)."""
        return self._core.chat_stream(_request(request))

    def iter_stream(self, request: Union[Request, str]) -> Iterator[dict[str, Any]]:
        """The stream events, each after its scripted delay."""
        for event in self._core.chat_stream(_request(request)):
            if event["delay_ms"] and not self.instant:
                time.sleep(event["delay_ms"] / 1000)
            yield event

    async def achat(self, request: Union[Request, str]) -> dict[str, Any]:
        """Like `chat`, waiting out the scripted delay with asyncio before answering (or raising)."""
        response, error, delay_ms = self._core.chat_timed(_request(request))
        if delay_ms and not self.instant:
            await asyncio.sleep(delay_ms / 1000)
        if error is not None:
            raise error
        return response

    async def astream(self, request: Union[Request, str]) -> AsyncIterator[dict[str, Any]]:
        """The stream events as an async iterator, each after its scripted delay."""
        for event in self._core.chat_stream(_request(request)):
            if event["delay_ms"] and not self.instant:
                await asyncio.sleep(event["delay_ms"] / 1000)
            yield event

    # ---- the journal --------------------------------------------------------------------------------------------

    @property
    def requests(self) -> list[dict[str, Any]]:
        return self._core.requests()

    def request(self) -> dict[str, Any]:
        return self._core.request()

    def last_request(self) -> dict[str, Any]:
        return self._core.last_request()

    def entries(self) -> list[dict[str, Any]]:
        return self._core.entries()

    @property
    def request_count(self) -> int:
        return self._core.request_count

    def unused_steps(self) -> list[dict[str, Any]]:
        return self._core.unused_steps()

    def reset(self) -> None:
        self._core.reset()

    def set_journal_limit(self, limit: int | None) -> "MockModel":
        """Keeps only the last `limit` journal entries (counters keep counting): flat memory for long runs."""
        self._core.set_journal_limit(limit)
        return self


def _request(request: Union[Request, str]) -> dict[str, Any]:
    if isinstance(request, str):
        return {"model": "cuecard-mock", "messages": [{"role": "user", "content": request}]}
    return dict(request)


__all__ = ["MockModel"]
