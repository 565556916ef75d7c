"""Mock tools (compiled): `MockTool(name, description, parameters, result=... | responder=... | fails=...,
delay_ms=...)` records every invocation; `invoke` answers at once, `ainvoke` waits out a slow tool's delay. The
fixture tools of Cogitator's test utilities come from the core."""
from __future__ import annotations

from typing import Optional

from ._cuecard import MockTool


def calculator() -> MockTool:
    """`calculator`: `a op b` for non-negative integers; anything else answers `{"error": "Invalid expression"}`."""
    return MockTool.fixture("calculator")


def weather() -> MockTool:
    """`get_weather`: always 22 °C (72 °F) and sunny."""
    return MockTool.fixture("weather")


def failing(message: Optional[str] = None) -> MockTool:
    """`failing_tool`: always raises `ToolFailedError` ("Tool execution failed" unless given)."""
    return MockTool.fixture("failing", message=message)


def slow(delay_ms: Optional[int] = None) -> MockTool:
    """`slow_tool`: takes `delay_ms` (default 1000), then answers."""
    return MockTool.fixture("slow", delay_ms=delay_ms)


__all__ = ["MockTool", "calculator", "weather", "failing", "slow"]
