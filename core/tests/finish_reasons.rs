//! `finish_reason: length` cuts the scripted answer at the request's `max_tokens` word-like tokens, thinking first,
//! as a model that ran out of output tokens would; the wire carries each protocol's own reason.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::wire::{handle, HttpRequest};
use cuecard::{ChatRequest, FinishReason, MockModel, Scenario};
use serde_json::{json, Value};

fn mock(step: Value) -> MockModel {
    let document = json!({"cuecard": 1, "routes": [{"on_exhausted": "cycle", "steps": [step]}]});
    MockModel::from_scenario(&Scenario::from_json(&document.to_string()).unwrap()).unwrap()
}

fn asking(max_tokens: Option<u64>) -> ChatRequest {
    ChatRequest { max_tokens, ..ChatRequest::user("gpt-4o", "hi") }
}

#[test]
fn text_is_cut_at_max_tokens_and_streams_only_what_is_left() {
    let m = mock(json!({"text": "one two three four five", "finish_reason": "length"}));
    let whole = m.chat(asking(Some(3))).unwrap();
    assert_eq!(whole.message.text.as_deref(), Some("one two three"));
    assert_eq!(whole.finish_reason, Some(FinishReason::Length));
    let stream = m.chat_stream(asking(Some(3))).unwrap();
    assert_eq!(stream.text_tokens(), ["one", " two", " three"]);
    // No max_tokens, or an answer that fits: nothing is cut, and the reason stays as scripted.
    assert_eq!(m.chat(asking(None)).unwrap().message.text.as_deref(), Some("one two three four five"));
    let fits = m.chat(asking(Some(50))).unwrap();
    assert_eq!(
        (fits.message.text.as_deref(), fits.finish_reason),
        (Some("one two three four five"), Some(FinishReason::Length))
    );
}

#[test]
fn thinking_counts_first_and_tool_calls_after_a_cut_are_dropped() {
    let m = mock(json!({"thinking": "plan the call", "text": "calling now", "finish_reason": "length",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}));
    let cut = m.chat(asking(Some(4))).unwrap();
    assert_eq!(cut.message.thinking.as_deref(), Some("plan the call"));
    assert_eq!(cut.message.text.as_deref(), Some("calling"));
    assert!(cut.message.tool_calls.is_empty());
    let nothing = m.chat(asking(Some(0))).unwrap();
    assert_eq!((nothing.message.thinking.as_deref(), nothing.message.text.as_deref()), (None, None));
    let stream = m.chat_stream(asking(Some(2))).unwrap();
    assert_eq!(stream.text_tokens(), Vec::<String>::new());
}

#[test]
fn each_protocol_reports_its_own_reason_for_a_cut() {
    let m = mock(json!({"text": "one two three four five", "finish_reason": "length"}));
    let chat = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","max_completion_tokens":2,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    let body: Value = serde_json::from_str(&chat.body_text()).unwrap();
    assert_eq!(body["choices"][0]["message"]["content"], "one two");
    assert_eq!(body["choices"][0]["finish_reason"], "length");
    let anthropic = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/messages",
            r#"{"model":"claude-test-model","max_tokens":2,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    let body: Value = serde_json::from_str(&anthropic.body_text()).unwrap();
    assert_eq!(
        (body["content"][0]["text"].as_str(), body["stop_reason"].as_str()),
        (Some("one two"), Some("max_tokens"))
    );
    let responses = handle(
        &m,
        &HttpRequest::post_json("/v1/responses", r#"{"model":"gpt-4o","max_output_tokens":2,"input":"hi"}"#),
    );
    let body: Value = serde_json::from_str(&responses.body_text()).unwrap();
    assert_eq!(body["status"], "incomplete");
    assert_eq!(body["incomplete_details"]["reason"], "max_output_tokens");
    assert_eq!(body["output"][0]["content"][0]["text"], "one two");
}

#[test]
fn a_refusal_is_sent_as_each_protocol_sends_one() {
    let m = mock(json!({"refusal": "I can't help with that."}));
    let chat = |body: &str| handle(&m, &HttpRequest::post_json("/v1/chat/completions", body));
    let whole: Value =
        serde_json::from_str(&chat(r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#).body_text())
            .unwrap();
    let message = &whole["choices"][0]["message"];
    assert_eq!((&message["content"], &message["refusal"]), (&Value::Null, &json!("I can't help with that.")));
    assert_eq!(whole["choices"][0]["finish_reason"], "stop");
    let streamed = chat(r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}"#).body_text();
    let refusal: String = streamed
        .lines()
        .filter_map(|l| l.strip_prefix("data: ").and_then(|d| serde_json::from_str::<Value>(d).ok()))
        .filter_map(|chunk| chunk["choices"][0]["delta"]["refusal"].as_str().map(str::to_string))
        .collect();
    assert_eq!(refusal, "I can't help with that.");
    assert!(!streamed.contains(r#""content":"I"#), "{streamed}");
    let responses = |body: &str| handle(&m, &HttpRequest::post_json("/v1/responses", body)).body_text();
    let whole: Value = serde_json::from_str(&responses(r#"{"model":"gpt-4o","input":"hi"}"#)).unwrap();
    assert_eq!(whole["output"][0]["content"][0], json!({"type": "refusal", "refusal": "I can't help with that."}));
    let streamed = responses(r#"{"model":"gpt-4o","input":"hi","stream":true}"#);
    assert!(streamed.contains("event: response.refusal.delta") && streamed.contains("event: response.refusal.done"));
    assert!(!streamed.contains("response.output_text"), "{streamed}");
    let anthropic = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/messages",
            r#"{"model":"claude-test-model","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    let body: Value = serde_json::from_str(&anthropic.body_text()).unwrap();
    assert_eq!(
        (body["stop_reason"].as_str(), body["content"][0]["text"].as_str()),
        (Some("refusal"), Some("I can't help with that."))
    );
    // The neutral answer: the text, finishing `refusal`.
    let neutral = m.chat(asking(None)).unwrap();
    assert_eq!(
        (neutral.message.text.as_deref(), neutral.finish_reason),
        (Some("I can't help with that."), Some(FinishReason::Refusal))
    );
}

#[test]
fn a_refusal_beside_text_or_tool_calls_is_refused() {
    for step in [
        json!({"refusal": "No.", "text": "Yes."}),
        json!({"refusal": "No.", "tool_calls": [{"name": "t"}]}),
        json!({"refusal": ""}),
        json!({"refusal": "No.", "finish_reason": "stop"}),
    ] {
        let document = json!({"cuecard": 1, "routes": [{"steps": [step]}]});
        let error = Scenario::from_json(&document.to_string()).unwrap_err();
        assert!(error.issues()[0].path.starts_with("routes[0].steps[0]."), "{error}");
    }
}
