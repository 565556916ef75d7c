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
