use super::*;
use crate::model::ChatRequest;
use crate::provider_error::ProviderError;

#[test]
fn empty_text_and_empty_tokens_are_refused_with_a_reason() {
    assert_eq!(Step::text("").unwrap_err().code(), "invalid_argument");
    let err = Step::tokens(["a", ""]).unwrap_err();
    assert!(err.message().contains("token 1 is empty"), "{}", err.message());
    assert!(Step::tokens(Vec::<String>::new()).is_ok());
}

#[test]
fn failing_after_needs_tokens_and_only_once() {
    let step = Step::text("hi").unwrap().failing_after(ProviderError::connection_reset()).unwrap();
    assert_eq!(step.describe(), "text \"hi\", then fail connection_reset");
    assert_eq!(step.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
    let tool = Step::tool_call("f", &serde_json::json!({}));
    assert_eq!(tool.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
    let fail = Step::fail(ProviderError::rate_limited());
    assert_eq!(fail.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
}

#[test]
fn route_match_requires_every_given_criterion() {
    let m = RouteMatch::operation("classify").and_model("gpt-4o");
    let mut request = ChatRequest::user("gpt-4o", "hi").with_operation("classify");
    assert!(m.matches(&request));
    request.model = "other".into();
    assert!(!m.matches(&request));
    assert!(RouteMatch::any().matches(&request));
    assert_eq!(m.describe(), "operation=\"classify\", model=\"gpt-4o\"");
}

#[test]
fn preview_shortens_long_text() {
    assert_eq!(preview("short"), "\"short\"");
    assert_eq!(preview(&"x".repeat(40)), format!("\"{}\"…", "x".repeat(23)));
}

#[test]
fn a_moderation_verdict_is_its_scores_as_text_finishing_content_filter() {
    use crate::scenario::Scenario;
    let scenario = |step: serde_json::Value| {
        Scenario::from_value(serde_json::json!({"cuecard": 1, "routes": [{"steps": [step]}]}))
            .and_then(|s| crate::mock::MockModel::from_scenario(&s))
    };
    let answer = |step| scenario(step).unwrap().chat(ChatRequest::user("m", "hi")).unwrap();
    let listed = answer(serde_json::json!({"flagged": ["violence", "hate/threatening"]}));
    assert_eq!(listed.text(), r#"{"hate/threatening":0.99,"violence":0.99}"#);
    assert_eq!(listed.finish_reason, Some(crate::model::FinishReason::ContentFilter));
    assert_eq!(answer(serde_json::json!({"flagged": {"hate": 0.3}})).text(), r#"{"hate":0.3}"#);
    let problem = |step| scenario(step).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(problem(serde_json::json!({"flagged": ["violent"]})).contains("\"violent\" is not a moderation category"));
    assert!(problem(serde_json::json!({"flagged": {"hate": 2}})).contains("the score 2 is not a number from 0 to 1"));
    assert!(problem(serde_json::json!({"flagged": []})).contains("a non-empty list of names"));
    assert!(problem(serde_json::json!({"flagged": ["hate"], "text": "x"})).contains("the whole answer"));
}
