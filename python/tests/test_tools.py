"""Mock tools from Python: recording, fixed / computed / failing answers, fixtures, slow tools with asyncio."""
import asyncio
import time

import pytest

import cuecard
from cuecard import tools


def test_a_computed_tool_records_every_call_and_its_exceptions_pass_through():
    def lookup(arguments):
        if arguments["vendor"] == "none":
            raise KeyError("no such vendor")
        return {"vendor": arguments["vendor"], "rating": 4}

    tool = cuecard.MockTool("vendor_lookup", "Look up a vendor", {"type": "object"}, responder=lookup)
    assert tool.invoke({"vendor": "ACME"}) == {"vendor": "ACME", "rating": 4}
    assert tool.invoke('{"vendor": "Initech"}')["vendor"] == "Initech"
    with pytest.raises(KeyError):
        tool.invoke({"vendor": "none"})
    assert tool.calls() == [{"vendor": "ACME"}, {"vendor": "Initech"}, {"vendor": "none"}]
    assert tool.definition() == {"name": "vendor_lookup", "description": "Look up a vendor", "parameters": {"type": "object"}}


def test_fixed_and_failing_tools():
    assert cuecard.MockTool.fixed("now", "The time", "12:00").invoke({}) == "12:00"
    failing = tools.failing("disk full")
    with pytest.raises(cuecard.ToolFailedError, match="disk full"):
        failing.invoke({})
    assert failing.invocations()[0] == {"index": 0, "arguments": {}, "error": "disk full", "delay_ms": 0}
    with pytest.raises(cuecard.InvalidArgumentError):
        cuecard.MockTool("x", result=1, fails="both")
    with pytest.raises(cuecard.InvalidArgumentError, match="not valid JSON"):
        cuecard.MockTool("x", result=1).invoke("{broken")


def test_fixture_tools_answer_like_cogitators():
    assert tools.calculator().invoke({"expression": "7/2"}) == {"result": 3.5}
    assert tools.calculator().invoke({"expression": "-1+2"}) == {"error": "Invalid expression"}
    assert tools.weather().invoke({"city": "Oslo"}) == {"city": "Oslo", "temperature": 22, "condition": "sunny", "units": "celsius"}
    slow = tools.slow(120)
    started = time.monotonic()
    assert asyncio.run(slow.ainvoke({"x": 1})) == {"result": "completed", "delay": 120, "args": {"x": 1}}
    assert time.monotonic() - started >= 0.12
    assert slow.call_count() == 1
