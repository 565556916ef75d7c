"""The shared vectors of tests/vectors/, run through the Python binding; asserts every vector ran."""
import base64
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
        row.update({k: entry[k] for k in ("kind", "status", "message", "reason", "chaos") if k in entry})
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
                    cuecard.MockModel.from_scenario(given["scenario_json"])
                elif "scenario_yaml" in given:
                    cuecard.MockModel.from_scenario(given["scenario_yaml"])
                else:
                    cuecard.MockModel.that_responds("x").chat(json.loads(given["request_json"]))
            assert raised.value.code == vector["error"]["code"], vector["id"]
            if "message" in vector["error"]:
                assert str(raised.value) == vector["error"]["message"], vector["id"]
            if "paths" in vector["error"]:
                assert [issue["path"] for issue in raised.value.issues] == vector["error"]["paths"], vector["id"]
        ran += 1
    assert ran == len(vectors)
    assert len(catalogue) == sum(1 for v in vectors if "kind_number" in v["input"])


def verify_setup(vector_input):
    mock = cuecard.MockModel.from_scenario(vector_input["scenario"])
    for call in vector_input["calls"]:
        if call["mode"] == "http":  # a wire request (what the contract checks read)
            request = call["request"]
            mock.handle_http(request["method"], request["path"], [tuple(h) for h in request.get("headers", [])],
                             request.get("body", "").encode())
            continue
        try:
            (mock.stream if call["mode"] == "stream" else mock.chat)(call["request"])
        except (cuecard.ProviderError, cuecard.CuecardError):
            pass
    observer = None
    if "observer" in vector_input:
        observer = cuecard.RecordingObserver()
        for record in vector_input["observer"]:
            context = record["context"]
            call = observer.on_call_started(context.get("operation"), provider_id=context.get("provider_id"),
                                            model=context.get("model"), attempt=context.get("attempt", 0))
            for event in record["events"]:
                report(call, event)
    return mock, observer


def report(call, event):
    """One observer callback of a vector, made the way a Python engine makes it."""
    kind = event["event"]
    if kind == "provider_response":
        call.on_provider_response(event["response"])
    elif kind == "provider_failure":
        failure = event["failure"]
        # A Python exception whose class (and bases) are the failure's type names.
        names = failure["type_names"]
        bases = (Exception,)
        for name in reversed(names[1:]):
            bases = (type(name, bases, {}),)
        error = type(names[0], bases, {})(failure["message"])
        call.on_provider_failure(error, status=failure.get("status"), retryable=failure.get("retryable"))
    elif kind == "structured_parse_failure":
        call.on_structured_parse_failure("<raw>", event["summary"])
    elif kind == "engine_event":
        call.on_engine_event(event["name"], event.get("attributes"))
    elif kind == "call_completed":
        call.on_call_completed(event.get("parse_success"))
    else:
        raise AssertionError(f"unknown observer event {kind}")


def test_verify_vectors():
    vectors = load("verify.json")
    ran = 0
    for vector in vectors:
        mock, observer = verify_setup(vector["input"])
        for check, expected in zip(vector["input"]["checks"], vector["expected"]):
            try:
                cuecard._cuecard.run_check(mock, check, observer)
                assert expected == {"pass": True}, (vector["id"], check)
            except cuecard.AssertionFailedError as failure:
                assert expected == {"message": str(failure)}, (vector["id"], check)
            ran += 1
    assert ran == sum(len(v["input"]["checks"]) for v in vectors) and len(vectors) >= 7


def test_wire_vectors():
    vectors = load("wire.json")
    ran = 0
    for vector in vectors:
        mock = cuecard.MockModel.from_scenario(vector["input"]["scenario"])
        for request, expected in zip(vector["input"]["requests"], vector["expected"]):
            body = request["body"].encode() if "body" in request else base64.b64decode(request.get("body_base64", ""))
            headers = [tuple(header) for header in request.get("headers", [])]
            reply = mock.handle_http(request["method"], request["path"], headers, body)
            # Headers come back as tuples; the vectors write them as JSON arrays.
            assert json.loads(json.dumps(reply)) == expected, (vector["id"], request)
            ran += 1
        assert ran > 0
    assert ran == sum(len(v["input"]["requests"]) for v in vectors) and len(vectors) >= 18
