"""Seeded chaos from Python: the same 10,000 requests fail as in the Rust core and in Node (the golden
`tests/golden/chaos-10k.json`), and the official SDK's own retries carry a test through the failures."""
import json
import pathlib

import pytest

import cuecard

GOLDEN = json.loads((pathlib.Path(__file__).resolve().parents[2] / "tests/golden/chaos-10k.json").read_text())


def journal_line(mock) -> str:
    line = []
    for entry in mock.entries():
        if entry.get("chaos"):
            assert entry["step"] is None and entry["outcome"] == "failed"
            line.append(entry["error"]["kind"][0])
        else:
            line.append(str(entry["step"]))
    return "".join(line)


def test_ten_thousand_requests_fail_as_in_every_other_language():
    mock = cuecard.MockModel.from_scenario(GOLDEN["scenario"])
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    failures = 0
    for _ in range(GOLDEN["requests"]):
        try:
            mock.chat(request)
        except cuecard.ProviderError:
            failures += 1
    assert journal_line(mock) == GOLDEN["journal"]
    assert failures == sum(1 for c in GOLDEN["journal"] if not c.isdigit())


def test_the_sdk_retries_through_chaos_and_every_step_is_answered_in_order():
    openai = pytest.importorskip("openai")
    mock = cuecard.MockModel.from_scenario({
        "cuecard": 1, "seed": 7,
        "chaos": {"rates": {"rate_limited": 0.2, "server_error": 0.1}, "retry_after_ms": 1},
        "routes": [{"steps": [{"text": f"answer {n}"} for n in range(30)]}]})
    client = cuecard.openai_client(mock, max_retries=10)
    for n in range(30):
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == f"answer {n}"
    chaos = [e for e in mock.entries() if e.get("chaos")]
    assert 3 <= len(chaos) <= 20 and {e["error"]["kind"] for e in chaos} <= {"rate_limited", "server_error"}
    assert [e["step"] for e in mock.entries() if not e.get("chaos")] == list(range(30))


def test_a_bad_chaos_setting_names_the_field():
    with pytest.raises(cuecard.InvalidScenarioError) as raised:
        cuecard.MockModel.from_scenario({"cuecard": 1, "chaos": {"rates": {"flaky": 0.1}},
                                         "routes": [{"steps": ["x"]}]})
    assert "chaos.rates.flaky" in str(raised.value)
    with pytest.raises(cuecard.InvalidArgumentError):
        cuecard.MockModel().configure(chaos={"rates": {"timeout": 2}})
