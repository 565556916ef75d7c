"""asyncio: scripted delays are waited without blocking the loop; instant mode skips them."""
import asyncio
import time

import pytest

import cuecard


def slow_mock(**options):
    return cuecard.MockModel.from_scenario({"cuecard": 1, "on_exhausted": "repeat_last", "routes": [{"steps": [
        {"text": "one two three", "delay_ms": 150, "token_delay_ms": 20}]}]}, **options)


def test_achat_waits_the_delay_without_blocking_the_loop():
    mock = slow_mock()

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        started = time.monotonic()
        response = await mock.achat("hi")
        elapsed = time.monotonic() - started
        task.cancel()
        return response, elapsed, ticks

    response, elapsed, ticks = asyncio.run(main())
    assert response["message"]["text"] == "one two three"
    assert elapsed >= 0.19  # 150 ms + two token delays of 20 ms
    assert ticks >= 5, "the loop kept running while the mock waited"


def test_astream_yields_events_after_their_delays_and_a_failure_is_raised_after_its_delay():
    mock = slow_mock()

    async def collect():
        return [event async for event in mock.astream("hi")]

    events = asyncio.run(collect())
    assert [e["type"] for e in events] == ["text_delta", "text_delta", "text_delta", "complete"]
    assert [e["delay_ms"] for e in events] == [150, 20, 20, 0]
    failing = cuecard.MockModel.from_scenario({"cuecard": 1, "routes": [{"steps": [
        {"fail": {"kind": "overloaded"}, "delay_ms": 100}]}]})
    started = time.monotonic()
    with pytest.raises(cuecard.ProviderError) as raised:
        asyncio.run(failing.achat("hi"))
    assert time.monotonic() - started >= 0.1
    assert raised.value.status == 529


def test_instant_mode_skips_the_waits_but_records_virtual_time():
    mock = cuecard.MockModel.from_scenario({"cuecard": 1, "on_exhausted": "repeat_last", "routes": [{"steps": [
        {"text": "one two three", "delay_ms": 5000, "token_delay_ms": 1000}]}]}, instant=True)
    started = time.monotonic()
    asyncio.run(mock.achat("a"))
    list(mock.iter_stream("b"))
    assert time.monotonic() - started < 3, "14 s of scripted delays were not waited"
    assert [e["at_ms"] for e in mock.entries()] == [0, 7000]
