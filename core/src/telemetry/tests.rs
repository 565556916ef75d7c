//! The span of a call, from its journal entry; the endpoint URL rule. The export itself is tested end to end in
//! `core/tests/telemetry.rs` (a receiver decoding the protobuf) and `tests/sdk/python/test_otlp.py`.

use super::attributes::{describe, CallFacts};
use super::traces_url;
use crate::http::HttpRequest;
use crate::{MockModel, Scenario};
use opentelemetry::{Array, KeyValue, Value};
use serde_json::json;

fn entry_of(scenario: serde_json::Value, request: HttpRequest) -> crate::JournalEntry {
    let mock = MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap();
    crate::wire::handle(&mock, &request);
    mock.entries().pop().unwrap()
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
    attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

fn facts(path: &str, test: Option<&str>) -> CallFacts {
    CallFacts { method: "POST".into(), path: path.into(), test: test.map(str::to_string) }
}

#[test]
fn an_answered_chat_completion_is_a_chat_span_with_the_genai_attributes() {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [{"text": "Sunny.", "usage": {"input_tokens": 12, "output_tokens": 3}}]}]});
    let body = r#"{"model":"gpt-4o","max_tokens":50,"messages":[{"role":"user","content":"weather?"}]}"#;
    let entry = entry_of(scenario, HttpRequest::post_json("/v1/chat/completions", body));
    let span = describe(&entry, &facts("/v1/chat/completions", Some("checkout")), 200);
    assert_eq!(span.name, "chat gpt-4o");
    assert_eq!(span.error, None);
    let get = |key| attribute(&span.attributes, key).cloned();
    assert_eq!(get("gen_ai.operation.name"), Some(Value::from("chat")));
    assert_eq!(get("gen_ai.provider.name"), Some(Value::from("openai")));
    assert_eq!(get("gen_ai.request.model"), Some(Value::from("gpt-4o")));
    assert_eq!(get("gen_ai.request.max_tokens"), Some(Value::I64(50)));
    assert_eq!(get("gen_ai.response.id"), Some(Value::from("chatcmpl-1")));
    assert_eq!(get("gen_ai.usage.input_tokens"), Some(Value::I64(12)));
    assert_eq!(get("gen_ai.usage.output_tokens"), Some(Value::I64(3)));
    assert_eq!(get("gen_ai.response.finish_reasons"), Some(Value::Array(Array::String(vec!["stop".into()]))));
    assert_eq!(get("cuecard.test.id"), Some(Value::from("checkout")));
    assert_eq!(get("cuecard.route"), Some(Value::I64(0)));
    assert_eq!(get("cuecard.step"), Some(Value::I64(0)));
    assert_eq!(get("cuecard.outcome"), Some(Value::from("answered")));
    assert_eq!(get("http.response.status_code"), Some(Value::I64(200)));
    assert_eq!(get("error.type"), None);
}

#[test]
fn a_scripted_failure_is_an_error_span_naming_its_kind() {
    let scenario =
        json!({"cuecard": 1, "routes": [{"steps": [{"fail": {"kind": "rate_limited", "message": "slow down"}}]}]});
    let body = r#"{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#;
    let entry = entry_of(scenario, HttpRequest::post_json("/v1/messages", body));
    let span = describe(&entry, &facts("/v1/messages", None), 429);
    assert_eq!(span.name, "chat claude-sonnet-4-5");
    assert_eq!(span.error.as_deref(), Some("slow down"));
    let get = |key| attribute(&span.attributes, key).cloned();
    assert_eq!(get("gen_ai.provider.name"), Some(Value::from("anthropic")));
    assert_eq!(get("error.type"), Some(Value::from("rate_limited")));
    assert_eq!(get("cuecard.failure.kind"), Some(Value::from("rate_limited")));
    assert_eq!(get("cuecard.outcome"), Some(Value::from("failed")));
    assert_eq!(get("cuecard.test.id"), None);
}

#[test]
fn a_request_beyond_the_script_is_an_error_span_without_a_step() {
    let scenario = json!({"cuecard": 1, "routes": [{"steps": [{"text": "only one"}]}]});
    let body = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
    let path = "/v1beta/models/gemini-2.5-flash:generateContent";
    let mock = MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap();
    crate::wire::handle(&mock, &HttpRequest::post_json(path, body));
    crate::wire::handle(&mock, &HttpRequest::post_json(path, body));
    let entry = mock.entries().pop().unwrap();
    let span = describe(&entry, &facts(path, None), 422);
    assert_eq!(span.name, "generate_content gemini-2.5-flash");
    let get = |key| attribute(&span.attributes, key).cloned();
    assert_eq!(get("gen_ai.provider.name"), Some(Value::from("gcp.gemini")));
    assert_eq!(get("cuecard.step"), None);
    assert_eq!(get("error.type"), Some(Value::from("exhausted")));
    assert!(span.error.unwrap().starts_with("exhausted (HTTP 422)"));
}

#[test]
fn the_endpoint_url_gets_v1_traces_unless_it_names_a_path() {
    assert_eq!(traces_url("http://127.0.0.1:4318").unwrap(), "http://127.0.0.1:4318/v1/traces");
    assert_eq!(traces_url("http://127.0.0.1:4318/").unwrap(), "http://127.0.0.1:4318/v1/traces");
    assert_eq!(traces_url("http://collector:4318/custom/traces").unwrap(), "http://collector:4318/custom/traces");
    let https = traces_url("https://collector:4318").unwrap_err();
    assert_eq!(https.kind(), crate::ErrorKind::InvalidArgument);
    assert!(https.message().contains("is not an http:// URL"), "{https}");
    assert!(traces_url("http:///v1/traces").unwrap_err().message().contains("has no host"));
}
