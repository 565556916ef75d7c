//! A step's `headers` reach its wire reply on every protocol, whole, streamed and failing, each replacing a header
//! of the same name; a bad header is refused naming its path.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::wire::{handle, HttpReply, HttpRequest};
use cuecard::{MockModel, Scenario};
use serde_json::json;

fn mock(steps: serde_json::Value) -> MockModel {
    let document = json!({"cuecard": 1, "routes": [{"steps": steps}]});
    MockModel::from_scenario(&Scenario::from_json(&document.to_string()).unwrap()).unwrap()
}

#[test]
fn rate_limit_headers_reach_whole_streamed_and_failed_replies() {
    let m = mock(json!([
        {"text": "Hello", "headers": {"x-ratelimit-remaining-requests": 0, "X-RateLimit-Reset-Requests": "12ms"}},
        {"text": "Streamed", "headers": {"anthropic-ratelimit-tokens-remaining": "0"}},
        {"fail": {"kind": "rate_limited", "retry_after_ms": 20}, "headers": {"retry-after-ms": "5", "retry-after": "1"}}
    ]));
    let chat = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    assert_eq!(chat.header("x-ratelimit-remaining-requests"), Some("0"));
    assert_eq!(chat.header("x-ratelimit-reset-requests"), Some("12ms"));
    assert_eq!(chat.header("content-type"), Some("application/json"));
    let stream = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/messages",
            r#"{"model":"claude-test-model","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    assert_eq!(stream.header("anthropic-ratelimit-tokens-remaining"), Some("0"));
    assert!(stream.body_text().contains("Streamed"));
    let failed = handle(
        &m,
        &HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
        ),
    );
    assert_eq!(failed.status(), 429);
    // The step's headers replace the failure's own (20 ms), once each.
    assert_eq!(failed.header("retry-after-ms"), Some("5"));
    let HttpReply::Full { headers, .. } = &failed else { panic!() };
    assert_eq!(headers.iter().filter(|(n, _)| n == "retry-after-ms").count(), 1);
}

#[test]
fn a_bad_header_is_refused_naming_its_path() {
    for (headers, problem) in [
        (json!({"x bad": "1"}), "not an HTTP header name"),
        (json!({"x-ok": true}), "not a string or a number"),
        (json!({"x-ok": "a\nb"}), "line break"),
    ] {
        let document = json!({"cuecard": 1, "routes": [{"steps": [{"text": "x", "headers": headers}]}]});
        let error = Scenario::from_json(&document.to_string()).unwrap_err();
        let issue = &error.issues()[0];
        assert!(issue.path.starts_with("routes[0].steps[0].headers."), "{}", issue.path);
        assert!(issue.message.contains(problem), "{}", issue.message);
    }
}
