"""Replaying recorded calls in-process: cuecard against vcrpy, the same 1,000 exchanges, the same openai SDK.

The cassette is recorded by vcrpy itself (openai's httpx traffic to a local cuecard server standing in for the
API), then imported with `cuecard recording import --from vcrpy`; both are replayed in order, each call made by
the same `openai.OpenAI` client code. vcrpy matches on the request body too (as cuecard does), so a changed prompt
is a miss in both. Beside them, the SDK's floor: the same client over an `httpx.MockTransport` returning a fixed
body, the least any in-process replay can cost.

Needs an openai release built on httpx (openai 2.x; vcrpy does not patch httpx2) and vcrpy:
    pip install vcrpy openai==2.51.0 && maturin develop --release (in python/) && python python/bench/bench_recording.py
"""
from __future__ import annotations

import json
import pathlib
import sys
import tempfile
import time

import httpx
import openai
import vcr

import cuecard
from cuecard import _cuecard

N = 1000
MATCH_ON = ["method", "scheme", "host", "port", "path", "query", "body"]


def ask(client: openai.OpenAI, i: int) -> str:
    reply = client.chat.completions.create(
        model="gpt-4o",
        messages=[{"role": "system", "content": "You are a weather assistant. Answer in one paragraph."},
                  {"role": "user", "content": f"What is the weather in city number {i} today?"}])
    return reply.choices[0].message.content


def record_cassette(path: pathlib.Path) -> str:
    """vcrpy records N calls of the openai SDK to a local cuecard server; returns the base URL it used."""
    mock = cuecard.MockModel()
    for i in range(N):
        mock.then_responds(f"City {i}: sunny, 22 degrees, a light breeze from the west in the afternoon.")
    with cuecard.Server(mock, instant=True, port=0) as server:
        client = openai.OpenAI(base_url=server.openai_base_url, api_key="sk-test", max_retries=0)
        with vcr.use_cassette(str(path), record_mode="all", match_on=MATCH_ON, filter_headers=["authorization"]):
            for i in range(N):
                ask(client, i)
        return server.openai_base_url


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    work = pathlib.Path(tempfile.mkdtemp(prefix="cuecard-bench-recording-"))
    cassette = work / "cassette.yaml"
    base_url = record_cassette(cassette)
    for suffix in ("yaml", "json"):
        code = _cuecard.cli_main(["cuecard", "recording", "import", "--from", "vcrpy", str(cassette),
                                  "--out", str(work / f"recording.{suffix}")])
        assert code == 0, f"the import failed ({code})"

    rows = []
    # vcrpy: load (entering the cassette) and N calls in order.
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    cassette_context = vcr.use_cassette(str(cassette), record_mode="none", match_on=MATCH_ON)
    load = timed(cassette_context.__enter__)
    answers = []
    calls = timed(lambda: answers.extend(ask(client, i) for i in range(N)))
    cassette_context.__exit__(None, None, None)
    rows.append(("vcrpy 9 (YAML cassette)", load, calls))
    expected = answers

    for suffix in ("yaml", "json"):
        holder = {}
        load = timed(lambda: holder.setdefault("recording", cuecard.Recording(work / f"recording.{suffix}")))
        client = cuecard.openai_client(holder["recording"], max_retries=0)
        answers = []
        calls = timed(lambda: answers.extend(ask(client, i) for i in range(N)))
        assert answers == expected, "cuecard replayed other answers than vcrpy"
        cuecard.assert_that(holder["recording"].mock).script_fully_used()
        rows.append((f"cuecard (recording.{suffix})", load, calls))

    # The SDK's own floor: a transport that returns a fixed body.
    body = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"},
                                    "finish_reason": "stop"}]}).encode()
    fixed = httpx.MockTransport(lambda request: httpx.Response(200, content=body,
                                                               headers={"content-type": "application/json"}))
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", http_client=httpx.Client(transport=fixed))
    rows.append(("openai SDK floor (httpx.MockTransport)", 0.0, timed(lambda: [ask(client, i) for i in range(N)])))

    sizes = {p.name: p.stat().st_size for p in work.iterdir()}
    print(f"{N} recorded exchanges replayed in order with openai {openai.__version__} "
          f"(python {sys.version.split()[0]}); files: " + ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sorted(sizes.items())))
    print(f"{'replay':40} {'load':>10} {'per call':>12}")
    for name, load, calls in rows:
        print(f"{name:40} {load * 1e3:8.1f} ms {calls / N * 1e6:9.1f} us")
    vcrpy_call, cuecard_call = rows[0][2] / N, rows[2][2] / N
    print(f"cuecard (json) per call: {vcrpy_call / cuecard_call:.1f}x faster than vcrpy")


if __name__ == "__main__":
    main()
