"""400 tests on one `cuecard serve`, run by 8 pytest-xdist workers (`pytest -n 8 --cuecard-serve`): each test has
its own copy of its scenario and its own journal through the `cuecard_shared` fixture, so each sees exactly its own
requests while the others run at the same time."""
import os

import openai
import pytest


@pytest.mark.parametrize("n", range(400))
def test_each_test_sees_exactly_its_own_requests(cuecard_shared, n):
    calls = 1 + n % 3
    cuecard_shared.load({"cuecard": 1, "routes": [{"steps": [{"text": f"answer {n}.{i}"} for i in range(calls)]}]})
    client = openai.OpenAI(base_url=cuecard_shared.openai_url, api_key="test", max_retries=0)
    for i in range(calls):
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": f"test {n} call {i}"}])
        assert reply.choices[0].message.content == f"answer {n}.{i}"
    journal = cuecard_shared.journal()
    assert journal["count"] == calls
    assert [e["request"]["messages"][0]["content"][0]["text"] for e in journal["entries"]] == [f"test {n} call {i}" for i in range(calls)]
    assert journal["unused_steps"] == []


def test_the_run_shares_one_server(cuecard_shared):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        pytest.skip("runs under pytest-xdist")
    # Every worker got the controller's server (the URL came down with --cuecard-serve), not one of its own.
    from cuecard import shared
    assert "process" not in shared._STARTED
