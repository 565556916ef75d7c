//! The committed JSON Schema (`tests/scenario.schema.json`) and the parser agree on which fields exist, and
//! every scenario file in `tests/scenarios/` is valid.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::Scenario;
use serde_json::{json, Value};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(repo().join("tests/scenario.schema.json")).unwrap()).unwrap()
}

fn property_names(object: &Value) -> Vec<String> {
    object["properties"].as_object().unwrap().keys().cloned().collect()
}

/// Parses a scenario and reports whether the parser complained about an unknown field.
fn unknown_field_error(scenario: Value) -> Option<String> {
    match Scenario::from_value(scenario) {
        Err(e) if e.message().contains("unknown field") => Some(e.message().to_string()),
        _ => None,
    }
}

fn with_step(step: Value) -> Value {
    json!({"cuecard": 1, "routes": [{"steps": [step]}]})
}

#[test]
fn every_schema_field_is_known_to_the_parser_and_no_other() {
    let schema = schema();
    let defs = &schema["$defs"];
    for field in property_names(&defs["step"]) {
        assert_eq!(unknown_field_error(with_step(json!({ field.clone(): null }))), None, "step field {field}");
    }
    assert!(unknown_field_error(with_step(json!({"text": "a", "nonsense": 1}))).is_some());
    for field in property_names(&defs["fail"]) {
        assert_eq!(
            unknown_field_error(with_step(json!({"fail": { "kind": "timeout", field.clone(): null }}))),
            None,
            "fail field {field}"
        );
    }
    for field in property_names(&defs["tool_call"]) {
        let call = json!({ "name": "f", field.clone(): null });
        assert_eq!(unknown_field_error(with_step(json!({"tool_calls": [call]}))), None, "tool_call field {field}");
    }
    for field in property_names(&defs["route"]) {
        let scenario = json!({"cuecard": 1, "routes": [{ "steps": [{"text": "a"}], field.clone(): null }]});
        assert_eq!(unknown_field_error(scenario), None, "route field {field}");
    }
    for field in property_names(&schema) {
        let mut scenario = json!({"cuecard": 1, "routes": [{"steps": [{"text": "a"}]}]});
        if field != "cuecard" && field != "routes" {
            scenario[&field] = Value::Null;
        }
        assert_eq!(unknown_field_error(scenario), None, "top-level field {field}");
    }
    let kinds: Vec<&str> =
        defs["failure_kind"]["enum"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
    let core_kinds: Vec<&str> = cuecard::ProviderErrorKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(kinds, core_kinds);
}

#[test]
fn every_scenario_file_is_valid() {
    let mut checked = 0;
    for entry in std::fs::read_dir(repo().join("tests/scenarios")).unwrap() {
        let path = entry.unwrap().path();
        let scenario = Scenario::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(cuecard::MockModel::from_scenario(&scenario).is_ok());
        checked += 1;
    }
    assert!(checked >= 2);
}
