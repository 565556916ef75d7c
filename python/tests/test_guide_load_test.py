"""The book's guide "A load test": many concurrent callers through the async openai SDK against one server with
seeded chaos and latency, then the journal says what happened. CI runs it (instant, so it takes well under a
second)."""
import asyncio
import json
import urllib.request

import openai

import cuecard

# ANCHOR: scenario
SCENARIO = {
    "cuecard": 1,
    "seed": 42,
    "instant": True,  # waits are recorded on the virtual clock, not slept: drop this to feel the latency
    "latency": {"ttft_ms": {"p50": 400, "p99": 1500}, "itl_ms": {"p50": 30, "p99": 120}},
    "chaos": {"rates": {"rate_limited": 0.05, "server_error": 0.02}, "retry_after_ms": 1},
    "routes": [{"on_exhausted": "cycle", "steps": ["Answer one.", "Answer two.", "Answer three."]}],
}
# ANCHOR_END: scenario


# ANCHOR: test
def test_two_hundred_concurrent_calls_through_chaos():
    mock = cuecard.MockModel.from_scenario(SCENARIO)
    with cuecard.Server(mock) as server:
        async def main() -> list[str]:
            async with openai.AsyncOpenAI(base_url=server.openai_base_url, api_key="test", max_retries=5) as client:
                async def caller(n: int) -> str:
                    reply = await client.chat.completions.create(
                        model="gpt-4o", messages=[{"role": "user", "content": f"question {n}"}])
                    return reply.choices[0].message.content

                return await asyncio.gather(*(caller(n) for n in range(200)))

        answers = asyncio.run(main())

        # Every caller got an answer: the SDK's retries carried it through the injected failures.
        assert len(answers) == 200 and set(answers) <= {"Answer one.", "Answer two.", "Answer three."}
        # The server's journal, as any language (or a dashboard) reads it.
        with urllib.request.urlopen(server.base_url + "/_cuecard/journal?limit=1") as response:
            counts = json.load(response)["counts"]
    failed = counts.get("failed", 0)
    assert counts["answered"] == 200
    assert mock.request_count() == 200 + failed
    assert 0 < failed < 40  # about 7% of the requests, seeded
# ANCHOR_END: test
