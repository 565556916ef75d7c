"""Mock tools: record every invocation and answer fixed, computed, failing or slowly; plus Cogitator's fixture
tools (`calculator`, `weather`, `failing`, `slow`). `invoke` answers at once; `ainvoke` waits out a slow tool's
delay with asyncio."""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Mapping, Optional, Union

from . import _cuecard

Arguments = Union[Mapping[str, Any], str]


class MockTool:
    def __init__(self, name: str, description: str = "", parameters: Optional[Mapping[str, Any]] = None, *,
                 result: Any = None, responder: Optional[Callable[[dict[str, Any]], Any]] = None,
                 fails: Optional[str] = None, _core: "Optional[_cuecard.MockTool]" = None):
        if _core is None:
            if result is None and responder is None and fails is None:
                result = {}
            _core = _cuecard.MockTool(name, description, dict(parameters) if parameters else None,
                                      result=result, responder=responder, fails=fails)
        self._core = _core

    @classmethod
    def fixed(cls, name: str, description: str, result: Any) -> "MockTool":
        """Always answers `result` (Tramai's `MockTool.fixed`)."""
        return cls(name, description, result=result)

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def description(self) -> str:
        return self._core.description

    def definition(self) -> dict[str, Any]:
        return self._core.definition()

    def invoke(self, arguments: Arguments) -> Any:
        """Calls the tool (arguments as a dict, or as the JSON text a model produced)."""
        return self._core.invoke_timed(arguments)[0]

    async def ainvoke(self, arguments: Arguments) -> Any:
        result, delay_ms = self._core.invoke_timed(arguments)
        if delay_ms:
            await asyncio.sleep(delay_ms / 1000)
        return result

    @property
    def calls(self) -> list[Any]:
        return self._core.calls()

    def invocations(self) -> list[dict[str, Any]]:
        return self._core.invocations()

    @property
    def call_count(self) -> int:
        return self._core.call_count

    def reset(self) -> None:
        self._core.reset()


def calculator() -> MockTool:
    return MockTool("", _core=_cuecard.MockTool.fixture("calculator"))


def weather() -> MockTool:
    return MockTool("", _core=_cuecard.MockTool.fixture("weather"))


def failing(message: Optional[str] = None) -> MockTool:
    return MockTool("", _core=_cuecard.MockTool.fixture("failing", message=message))


def slow(delay_ms: Optional[int] = None) -> MockTool:
    return MockTool("", _core=_cuecard.MockTool.fixture("slow", delay_ms=delay_ms))
