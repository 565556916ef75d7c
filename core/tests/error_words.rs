//! Issue #59, "bad input in the user's words": no error a scenario or a check can produce names a Rust type
//! (`expected struct FailSpec`, `enum Exhaustion`, `Vec<...>`, `Option<...>`). Every scenario the repository holds
//! (the scenario files and every scenario of the vectors) is broken at each of its places in turn, with a value of
//! each wrong JSON type, and each message the parser gives is read; so are the messages of broken checks.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::Scenario;
use serde_json::{json, Value};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Words of Rust's that a user of a scenario file or of another language does not write.
fn rust_words(message: &str) -> Option<&'static str> {
    const WORDS: [&str; 9] =
        ["struct ", "enum ", "Vec<", "Option<", "Box<", "HashMap", "BTreeMap", "tuple struct", "newtype"];
    WORDS.into_iter().find(|word| message.contains(word))
}

/// Every scenario in the repository's scenario files and vectors.
fn scenarios() -> Vec<Value> {
    fn collect(value: &Value, out: &mut Vec<Value>) {
        match value {
            Value::Object(map) if map.get("cuecard") == Some(&json!(1)) && map.contains_key("routes") => {
                out.push(value.clone());
            }
            Value::Object(map) => map.values().for_each(|v| collect(v, out)),
            Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for dir in ["tests/scenarios", "tests/vectors"] {
        for entry in std::fs::read_dir(repo().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let value: Value = match path.extension().and_then(|e| e.to_str()) {
                Some("json") => serde_json::from_str(&text).unwrap(),
                Some("yaml" | "yml") => serde_yaml_ng::from_str(&text).unwrap(),
                _ => continue,
            };
            collect(&value, &mut found);
        }
    }
    found
}

/// Every place in `value` (a JSON pointer), the root excluded.
fn places(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let here = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(here.clone());
                places(item, here, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let here = format!("{at}/{index}");
                out.push(here.clone());
                places(item, here, out);
            }
        }
        _ => {}
    }
}

#[test]
fn no_scenario_error_names_a_rust_type() {
    let wrong =
        [json!(1), json!(-1), json!(1.5), json!("x"), json!(true), json!([]), json!({}), json!([1]), json!({"z": 1})];
    let scenarios = scenarios();
    assert!(scenarios.len() >= 20, "the corpus: {} scenarios", scenarios.len());
    let (mut tried, mut refused) = (0, 0);
    let mut offending = Vec::new();
    for scenario in &scenarios {
        let mut at = Vec::new();
        places(scenario, String::new(), &mut at);
        for pointer in &at {
            for value in &wrong {
                let mut broken = scenario.clone();
                *broken.pointer_mut(pointer).unwrap() = value.clone();
                tried += 1;
                if let Err(error) = Scenario::from_value(broken) {
                    refused += 1;
                    let mut messages = vec![error.message().to_string()];
                    messages.extend(error.issues().iter().map(ToString::to_string));
                    for message in messages {
                        if let Some(word) = rust_words(&message) {
                            offending
                                .push(format!("{word:?} in {}", message.rsplit("expected").next().unwrap_or_default()));
                        }
                    }
                }
            }
        }
    }
    offending.sort();
    offending.dedup();
    assert!(refused > 1000, "{refused} of {tried} broken scenarios were refused");
    assert!(
        offending.is_empty(),
        "{} messages name Rust types, e.g.:\n{}",
        offending.len(),
        offending[..offending.len().min(40)].join("\n")
    );
}

#[test]
fn a_failure_is_its_kind_alone_or_with_details_and_says_so_when_neither() {
    let scenario =
        |fail: Value| json!({"cuecard": 1, "routes": [{"steps": [{"fail": fail}, {"fail_after": fail, "text": "x"}]}]});
    assert!(Scenario::from_value(scenario(json!("rate_limited"))).is_ok());
    let yaml = "cuecard: 1\nroutes:\n  - steps:\n      - fail: rate_limited\n";
    let mock = cuecard::MockModel::from_scenario(&Scenario::from_yaml(yaml).unwrap()).unwrap();
    let failed = mock.chat(cuecard::ChatRequest::user("gpt-4o", "hi")).unwrap_err();
    assert!(failed.to_string().contains("rate"), "{failed}");
    let typo = Scenario::from_value(scenario(json!("rate_limit"))).unwrap_err();
    let said = typo.issues()[0].to_string();
    assert!(said.contains("unknown variant `rate_limit`, expected one of") && said.contains("rate_limited"), "{said}");
    let number = Scenario::from_value(scenario(json!(1))).unwrap_err().issues()[0].to_string();
    assert!(number.contains("expected a failure: its kind (\"rate_limited\") or the kind with details"), "{number}");
}

#[test]
fn no_check_or_request_error_names_a_rust_type() {
    // Checks as data (the face's `check`, `POST /_cuecard/checks`, C `cuecard_mock_check`), and the requests of
    // the vectors as the face reads them, each broken at every place with each wrong type.
    let verify: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("tests/vectors/verify.json")).unwrap()).unwrap();
    let wrong = [json!(1), json!("x"), json!(true), json!([]), json!({}), json!([1])];
    let mut checks = Vec::new();
    let mut requests = Vec::new();
    for vector in verify["vectors"].as_array().unwrap() {
        checks.extend(vector["input"]["checks"].as_array().into_iter().flatten().cloned());
        requests.extend(vector["input"]["calls"].as_array().into_iter().flatten().map(|call| call["request"].clone()));
    }
    assert!(checks.len() > 50 && requests.len() > 20, "{} checks, {} requests", checks.len(), requests.len());
    let mut offending = Vec::new();
    let mut read = |data: &Value, what: &str| {
        let mut at = Vec::new();
        places(data, String::new(), &mut at);
        for pointer in at {
            for value in &wrong {
                let mut broken = data.clone();
                *broken.pointer_mut(&pointer).unwrap() = value.clone();
                let message = match what {
                    "check" => {
                        cuecard::input::deserialize_data::<cuecard::verify::Check>(&broken).err().map(|e| e.message)
                    }
                    _ => cuecard::input::deserialize_data::<cuecard::ChatRequest>(&broken).err().map(|e| e.message),
                };
                if let Some(word) = message.as_deref().and_then(rust_words) {
                    offending.push(format!("{what} {pointer} = {value}: {word:?} in {}", message.unwrap_or_default()));
                }
            }
        }
    };
    for check in &checks {
        read(check, "check");
    }
    for request in &requests {
        read(request, "request");
    }
    offending.sort();
    offending.dedup();
    assert!(
        offending.is_empty(),
        "{} messages name Rust types:\n{}",
        offending.len(),
        offending[..offending.len().min(40)].join("\n")
    );
}
