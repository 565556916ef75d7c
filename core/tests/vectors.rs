//! The authoritative runner of the shared vectors in `tests/vectors/`. Every binding runs the same files.
//! With `UPDATE_VECTORS=1`, the golden `expected` values of `scenarios.json` are rewritten from the core.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::verify::{run_check, Check};
use cuecard::wire::{handle, HttpRequest};
use cuecard::{
    CallContext, CallError, ChatRequest, ErrorKind, MockModel, ObservationEvent, RecordingObserver, Scenario,
};
use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn load(name: &str) -> Value {
    let text = std::fs::read_to_string(vectors_dir().join(name)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn vectors(doc: &Value) -> &Vec<Value> {
    doc["vectors"].as_array().unwrap()
}

fn check_tokenizer_file(name: &str, minimum: usize) {
    let doc = load(name);
    let mut ran = 0;
    let mut failures = Vec::new();
    for v in vectors(&doc) {
        let input = v["input"].as_str().unwrap();
        let expected: Vec<&str> = v["expected"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        let actual: Vec<&str> = cuecard::tokenize(input).collect();
        if actual != expected {
            failures.push(format!("{}: {input:?}\n  expected {expected:?}\n  actual   {actual:?}", v["id"]));
        }
        assert_eq!(cuecard::count_tokens(input), actual.len(), "{}", v["id"]);
        ran += 1;
    }
    assert!(failures.is_empty(), "{} of {ran} vectors failed:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(ran, vectors(&doc).len());
    assert!(ran >= minimum, "{name} has only {ran} vectors");
}

#[test]
fn tokenizer_public_vectors() {
    check_tokenizer_file("tokenizer.json", 30);
}

#[test]
fn tokenizer_reference_vectors() {
    check_tokenizer_file("tokenizer-reference.json", 1000);
}

/// Runs the calls of one scenario vector and returns what every binding must reproduce.
fn run_scenario(input: &Value) -> Value {
    let scenario = Scenario::from_value(input["scenario"].clone()).unwrap();
    let mock = MockModel::from_scenario(&scenario).unwrap();
    let mut results = Vec::new();
    for call in input["calls"].as_array().unwrap() {
        let request: ChatRequest = serde_json::from_value(call["request"].clone()).unwrap();
        let result = match call["mode"].as_str().unwrap() {
            "stream" => match mock.chat_stream(&request) {
                Ok(stream) => json!({ "events": stream.events() }),
                Err(e) => error_value(&e),
            },
            "chat" => match mock.chat(&request) {
                Ok(response) => json!({ "response": response }),
                Err(e) => error_value(&e),
            },
            other => panic!("unknown mode {other}"),
        };
        results.push(result);
    }
    let journal: Vec<Value> = mock
        .entries()
        .iter()
        .map(|e| {
            let mut entry = json!({"index": e.index, "route": e.route, "step": e.step, "at_ms": e.at_ms});
            let outcome = serde_json::to_value(&e.outcome).unwrap();
            entry.as_object_mut().unwrap().extend(outcome.as_object().unwrap().clone());
            if e.chaos {
                entry["chaos"] = json!(true);
            }
            entry
        })
        .collect();
    json!({ "calls": results, "journal": journal, "unused_steps": mock.unused_steps().len() })
}

fn error_value(error: &CallError) -> Value {
    match error {
        CallError::Provider(p) => json!({ "provider_error": p }),
        other => json!({ "error": { "code": other.code() } }),
    }
}

/// Runs every vector of a golden file through `run`, twice (the output must be byte-identical: determinism), and
/// compares with `expected`; with `UPDATE_VECTORS=1` rewrites `expected` instead. Returns how many ran.
fn check_golden_file(name: &str, run: impl Fn(&Value) -> Value) -> usize {
    let path = vectors_dir().join(name);
    let mut doc = load(name);
    let update = std::env::var_os("UPDATE_VECTORS").is_some();
    let mut ran = 0;
    for v in doc["vectors"].as_array_mut().unwrap() {
        let actual = run(&v["input"]);
        assert_eq!(serde_json::to_string(&actual).unwrap(), serde_json::to_string(&run(&v["input"])).unwrap());
        if update {
            v["expected"] = actual;
        } else {
            assert_eq!(actual, v["expected"], "{name}: vector {} differs from its golden output", v["id"]);
        }
        ran += 1;
    }
    if update {
        let indent = if name == "scenarios.json" { "  " } else { " " };
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        doc.serialize(&mut serde_json::Serializer::with_formatter(&mut out, formatter)).unwrap();
        std::fs::write(&path, String::from_utf8(out).unwrap() + "\n").unwrap();
    }
    assert_eq!(ran, vectors(&doc).len());
    ran
}

#[test]
fn scenario_vectors() {
    assert!(check_golden_file("scenarios.json", run_scenario) >= 20);
}

/// The mock of a verify vector after its calls, and the observer holding its records (if it has any).
fn verify_setup(input: &Value) -> (MockModel, Option<RecordingObserver>) {
    let mock = MockModel::from_scenario(&Scenario::from_value(input["scenario"].clone()).unwrap()).unwrap();
    for call in input["calls"].as_array().unwrap() {
        if call["mode"] == "http" {
            // A wire request (what the contract checks read).
            let http: cuecard::wire::HttpRequest = serde_json::from_value(call["request"].clone()).unwrap();
            let _ = cuecard::wire::handle(&mock, &http);
            continue;
        }
        let request = ChatRequest::from_value(call["request"].clone()).unwrap();
        let _ = match call["mode"].as_str().unwrap() {
            "stream" => mock.chat_stream(&request).map(|_| ()),
            _ => mock.chat(&request).map(|_| ()),
        };
    }
    let observer = input.get("observer").map(|records| {
        let observer = RecordingObserver::new();
        for record in records.as_array().unwrap() {
            let context: CallContext = serde_json::from_value(record["context"].clone()).unwrap();
            let index = observer.start_call(context);
            for event in record["events"].as_array().unwrap() {
                let event: ObservationEvent = serde_json::from_value(event.clone()).unwrap();
                observer.report(index, event).unwrap();
            }
        }
        observer
    });
    (mock, observer)
}

/// Each check of a verify vector: `{"pass": true}` or `{"message": ...}`.
fn run_verify(input: &Value) -> Value {
    let (mock, observer) = verify_setup(input);
    let results: Vec<Value> = input["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|check| {
            let check = Check::from_value(check.clone()).unwrap();
            match run_check(&mock, observer.as_ref(), &check) {
                Ok(()) => json!({"pass": true}),
                Err(failure) => json!({"message": failure.to_string()}),
            }
        })
        .collect();
    Value::Array(results)
}

#[test]
fn verify_vectors() {
    assert!(check_golden_file("verify.json", run_verify) >= 7);
    // Every check the core has appears in the vectors, passing and failing.
    let doc = load("verify.json");
    for name in cuecard::verify::CHECK_NAMES {
        let outcomes: Vec<bool> = vectors(&doc)
            .iter()
            .flat_map(|v| v["input"]["checks"].as_array().unwrap().iter().zip(v["expected"].as_array().unwrap()))
            .filter(|(check, _)| check["check"] == name)
            .map(|(_, expected)| expected.get("pass").is_some())
            .collect();
        assert!(outcomes.contains(&true) && outcomes.contains(&false), "{name}: needs a passing and a failing vector");
    }
}

/// The reply to each HTTP request of a wire vector, as data.
fn run_wire(input: &Value) -> Value {
    let mock = MockModel::from_scenario(&Scenario::from_value(input["scenario"].clone()).unwrap()).unwrap();
    let replies: Vec<Value> = input["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|request| {
            let request: HttpRequest = serde_json::from_value(request.clone()).unwrap();
            serde_json::to_value(handle(&mock, &request)).unwrap()
        })
        .collect();
    Value::Array(replies)
}

#[test]
fn wire_vectors() {
    assert!(check_golden_file("wire.json", run_wire) >= 18);
}

#[test]
fn error_vectors() {
    let doc = load("errors.json");
    let mut ran = 0;
    let mut kinds_listed = Vec::new();
    for v in vectors(&doc) {
        let input = &v["input"];
        if let Some(number) = input["kind_number"].as_u64() {
            let kind = ErrorKind::from_number(number as u32).unwrap_or_else(|| panic!("{}: no kind {number}", v["id"]));
            assert_eq!(v["expected"]["code"], kind.code(), "{}", v["id"]);
            assert_eq!(v["expected"]["description"], kind.description(), "{}", v["id"]);
            kinds_listed.push(kind);
        } else {
            let error = if let Some(text) = input["scenario_json"].as_str() {
                Scenario::from_json(text).unwrap_err()
            } else if let Some(text) = input["scenario_yaml"].as_str() {
                Scenario::from_yaml(text).unwrap_err()
            } else if let Some(text) = input["request_json"].as_str() {
                ChatRequest::from_json(text).unwrap_err()
            } else {
                panic!("{}: unknown input", v["id"])
            };
            assert_eq!(v["error"]["code"], error.code(), "{}: {error}", v["id"]);
            if let Some(message) = v["error"]["message"].as_str() {
                assert_eq!(error.message(), message, "{}", v["id"]);
            }
            if let Some(paths) = v["error"]["paths"].as_array() {
                let actual: Vec<&str> = error.issues().iter().map(|i| i.path.as_str()).collect();
                let expected: Vec<&str> = paths.iter().map(|p| p.as_str().unwrap()).collect();
                assert_eq!(actual, expected, "{}: {error}", v["id"]);
            }
        }
        ran += 1;
    }
    assert_eq!(ran, vectors(&doc).len());
    let missing: Vec<String> = ErrorKind::ALL
        .iter()
        .filter(|k| !kinds_listed.contains(k))
        .map(|k| {
            format!(
                "{{\"id\": \"K{:02}\", \"input\": {{\"kind_number\": {}}}, \"expected\": {{\"code\": \"{}\", \"number\": {}, \"description\": \"{}\"}}}},",
                k.number(),
                k.number(),
                k.code(),
                k.number(),
                k.description()
            )
        })
        .collect();
    assert!(missing.is_empty(), "tests/vectors/errors.json lacks these kinds; paste:\n{}", missing.join("\n"));
}

/// A larger differential run, on demand: `python3 tests/tools/gen_reference_tokens.py 100000 7 > /tmp/ref.json`
/// then `CUECARD_REFERENCE_FILE=/tmp/ref.json cargo test -p cuecard --test vectors -- --ignored`.
#[test]
#[ignore = "needs a generated reference file"]
fn tokenizer_large_reference_file() {
    let path = std::env::var("CUECARD_REFERENCE_FILE").expect("CUECARD_REFERENCE_FILE");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut failures = 0;
    for v in vectors(&doc) {
        let input = v["input"].as_str().unwrap();
        let expected: Vec<&str> = v["expected"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        let actual: Vec<&str> = cuecard::tokenize(input).collect();
        if actual != expected || cuecard::count_tokens(input) != expected.len() {
            failures += 1;
            if failures < 10 {
                eprintln!("{input:?}\n  expected {expected:?}\n  actual   {actual:?}");
            }
        }
    }
    assert_eq!(failures, 0, "{failures} of {} differ", vectors(&doc).len());
}
