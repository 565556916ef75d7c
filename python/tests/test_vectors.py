"""The shared vectors of tests/vectors/, run through the Python binding; asserts every vector ran."""
import json
import pathlib

import pytest

import cuecard
from cuecard import errors

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "tests" / "vectors"


def load(name):
    return json.loads((VECTORS / name).read_text())["vectors"]


@pytest.mark.parametrize("name", ["tokenizer.json", "tokenizer-reference.json"])
def test_tokenizer_vectors(name):
    vectors = load(name)
    ran = 0
    for vector in vectors:
        assert cuecard.tokenize(vector["input"]) == vector["expected"], vector["id"]
        assert cuecard.count_tokens(vector["input"]) == len(vector["expected"]), vector["id"]
        ran += 1
    assert ran == len(vectors) and ran >= 30


def run_scenario(vector_input):
    mock = cuecard.MockModel.from_scenario(vector_input["scenario"])
    calls = []
    for call in vector_input["calls"]:
        try:
            if call["mode"] == "stream":
                calls.append({"events": mock.stream(call["request"])})
            else:
                calls.append({"response": mock.chat(call["request"])})
        except cuecard.ProviderError as error:
            failure = {"kind": error.kind, "message": error.message, "retryable": error.retryable, "status": error.status}
            for key in ("retry_after_ms", "error_type", "error_code"):
                if getattr(error, key) is not None:
                    failure[key] = getattr(error, key)
            calls.append({"provider_error": failure})
        except cuecard.CuecardError as error:
            calls.append({"error": {"code": error.code}})
    journal = []
    for entry in mock.entries():
        row = {"index": entry["index"], "route": entry["route"], "step": entry["step"], "at_ms": entry["at_ms"],
               "outcome": entry["outcome"]}
        row.update({k: entry[k] for k in ("kind", "status", "message", "reason") if k in entry})
        journal.append(row)
    return {"calls": calls, "journal": journal, "unused_steps": len(mock.unused_steps())}


def test_scenario_vectors():
    vectors = load("scenarios.json")
    ran = 0
    for vector in vectors:
        assert run_scenario(vector["input"]) == vector["expected"], vector["id"]
        ran += 1
    assert ran == len(vectors) and ran >= 20


def test_error_vectors():
    vectors = load("errors.json")
    catalogue = {code: (number, description) for code, number, description in cuecard._cuecard.error_catalogue()}
    ran = 0
    for vector in vectors:
        given = vector["input"]
        if "kind_number" in given:
            expected = vector["expected"]
            assert catalogue[expected["code"]] == (expected["number"], expected["description"]), vector["id"]
            assert errors.error_class_for(expected["code"]).code == expected["code"], vector["id"]
        else:
            with pytest.raises(cuecard.CuecardError) as raised:
                if "scenario_json" in given:
                    cuecard._cuecard.MockModel.from_scenario_json(given["scenario_json"])
                elif "scenario_yaml" in given:
                    cuecard._cuecard.MockModel.from_scenario_yaml(given["scenario_yaml"])
                else:
                    cuecard.MockModel.that_responds("x").chat(json.loads(given["request_json"]))
            assert raised.value.code == vector["error"]["code"], vector["id"]
            if "paths" in vector["error"]:
                assert [issue["path"] for issue in raised.value.issues] == vector["error"]["paths"], vector["id"]
        ran += 1
    assert ran == len(vectors)
    assert len(catalogue) == sum(1 for v in vectors if "kind_number" in v["input"])
