//! Fluent assertions with Tramai's semantics, driven by a tiny engine written here the way Tramai's works:
//! provider retries on retryable failures, structured-output parse retries, a tool loop, an observer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::verify::{assert_that, expect_that};
use cuecard::{CallContext, ChatRequest, FailureInfo, Message, MockModel, Observer, ProviderError, RecordingObserver};
use serde_json::json;

/// A miniature engine: up to 4 provider attempts per call, up to 3 parse attempts for structured operations,
/// and a tool loop that replays the assistant's tool calls and their results into the next request.
fn run_engine(
    mock: &MockModel,
    observer: &RecordingObserver,
    operation: &str,
    structured: bool,
) -> Result<String, String> {
    let mut messages = vec![Message::user("Analyze the invoice")];
    for _parse_attempt in 0..3 {
        let mut attempt = 0;
        let (response, mut observation) = loop {
            let request = ChatRequest::new("gpt-4o", messages.clone()).with_operation(operation);
            let context = CallContext {
                operation: Some(operation.into()),
                service: None,
                provider_id: mock.provider_id(),
                model: "gpt-4o".into(),
                attempt,
            };
            let mut observation = observer.on_call_started(context);
            match mock.chat(&request) {
                Ok(response) if !response.message.tool_calls.is_empty() => {
                    observation.on_provider_response(&response);
                    observation.on_call_completed(None);
                    messages.push(Message::assistant_tool_calls(response.message.tool_calls.clone()));
                    for call in &response.message.tool_calls {
                        messages.push(Message::tool_result(call.id.clone(), "{\"ok\":true}"));
                    }
                    attempt += 1;
                }
                Ok(response) => {
                    observation.on_provider_response(&response);
                    break (response, observation);
                }
                Err(error) => {
                    let provider = error.provider().cloned().ok_or_else(|| error.to_string())?;
                    observation.on_provider_failure(&FailureInfo::from_provider_error(&provider));
                    observation.on_call_completed(None);
                    if !provider.retryable || attempt >= 3 {
                        return Err(provider.to_string());
                    }
                    attempt += 1;
                }
            }
        };
        let text = response.text().to_string();
        if !structured {
            observation.on_call_completed(None);
            return Ok(text);
        }
        if serde_json::from_str::<serde_json::Value>(&text).is_ok() {
            observation.on_call_completed(Some(true));
            return Ok(text);
        }
        observation.on_structured_parse_failure(&text, "Structured output failed validation");
        observation.on_call_completed(Some(false));
        messages.push(Message::assistant(text));
        messages.push(Message::user("Respond only with valid JSON matching this schema"));
    }
    Err("structured output: repair exhausted after 3 attempts".into())
}

#[test]
fn retryable_failure_then_success() {
    let mock = MockModel::builder()
        .fails(ProviderError::retryable_failure("busy", Some(429)))
        .responds("{\"total\": 3}")
        .build()
        .unwrap();
    let observer = RecordingObserver::new();
    run_engine(&mock, &observer, "analyze", true).unwrap();
    expect_that(&mock)
        .with_observer(&observer)
        .when_called("analyze")
        .was_called_times(2)
        .and_retried(1)
        .and_observed_failure("rate_limited")
        .and_parsed_successfully()
        .emitted_provider("mock");
    assert!(assert_that(&mock)
        .with_observer(&observer)
        .when_called("analyze")
        .and_failed_with("rate_limited")
        .is_err());
}

#[test]
fn non_retryable_failure_is_not_retried() {
    let mock = MockModel::builder().fails(ProviderError::non_retryable_failure("bad key", Some(401))).build().unwrap();
    let observer = RecordingObserver::new();
    let err = run_engine(&mock, &observer, "analyze", true).unwrap_err();
    assert!(err.contains("status 401"), "{err}");
    expect_that(&mock)
        .with_observer(&observer)
        .when_called("analyze")
        .was_called_times(1)
        .and_retried(0)
        .and_failed_with("unauthorized");
}

#[test]
fn three_invalid_answers_exhaust_the_parse_retries() {
    let mock = MockModel::builder().responds("not json").repeats().build().unwrap();
    let observer = RecordingObserver::new();
    assert!(run_engine(&mock, &observer, "analyze", true).is_err());
    let check = assert_that(&mock).with_observer(&observer);
    let method = check.when_called("analyze");
    method.was_called_times(3).unwrap().and_retried(2).unwrap().and_observed_parse_failure().unwrap();
    let failure = method.and_parsed_successfully().unwrap_err();
    assert_eq!(failure.actual, "parse_success = false");
}

#[test]
fn tool_loop_round_trips_count_as_retries_and_tools_are_seen_in_replayed_requests() {
    let mock = MockModel::builder()
        .calls_tool("vendor_lookup", json!({"vendor": "ACME"}))
        .responds("{\"vendor\": \"ACME\"}")
        .build()
        .unwrap();
    let observer = RecordingObserver::new();
    run_engine(&mock, &observer, "enrich", true).unwrap();
    expect_that(&mock)
        .with_observer(&observer)
        .when_called("enrich")
        .was_called_times(2)
        .and_retried(1)
        .and_called_tool("vendor_lookup")
        .and_called_tool_times("vendor_lookup", 1);
    let requests = mock.requests();
    assert!(requests[0].messages.iter().all(|m| m.tool_call_id.is_none()));
    assert_eq!(requests[1].messages.last().unwrap().tool_call_id.as_deref(), Some("call_1"));
    expect_that(&mock).script_fully_used();
}

#[test]
fn without_an_observer_the_mock_provides_its_own_call_records() {
    let mock = MockModel::builder().fails(ProviderError::server_error()).responds("ok").build().unwrap();
    let req = ChatRequest::user("m", "hi").with_operation("greet");
    let _ = mock.chat(&req);
    mock.chat(&req).unwrap();
    expect_that(&mock)
        .when_called("greet")
        .was_called_times(2)
        .and_retried(1)
        .and_observed_failure("server_error")
        .emitted_provider("mock");
    let records = mock.call_records();
    assert_eq!(records.iter().map(|r| r.context.attempt).collect::<Vec<_>>(), [0, 1]);
}

#[test]
fn a_failed_check_shows_expected_actual_and_the_history_table() {
    let mock = MockModel::builder().fails(ProviderError::rate_limited()).responds("Hello").build().unwrap();
    let req = ChatRequest::user("gpt-4o", "hi").with_operation("greet");
    let _ = mock.chat(&req);
    mock.chat(&req).unwrap();
    let failure = assert_that(&mock).when_called("greet").was_called_times(3).unwrap_err();
    assert_eq!(
        failure.to_string(),
        "when_called(\"greet\").was_called_times(3) failed
  expected: 3 requests
  actual:   2 requests
requests for \"greet\" (2):
  #  operation  model   route  step  outcome                  answer
  1  greet      gpt-4o  0      0     failed rate_limited 429  -
  2  greet      gpt-4o  0      1     answered                 \"Hello\"
call records for \"greet\" from the mock (2):
  #  attempt  provider  result                   parse
  1  0        mock      failed rate_limited 429  none
  2  1        mock      response \"Hello\"         none"
    );
}

#[test]
fn script_and_request_checks() {
    let mock = MockModel::builder().responds("a").responds("b").build().unwrap();
    let request =
        ChatRequest::new("gpt-4o", vec![Message::system("You are terse."), Message::user("Cancel booking MS-777")])
            .with_tool(cuecard::ToolDefinition { name: "cancel".into(), description: None, parameters: json!({}) });
    mock.chat(&request).unwrap();
    let unused = assert_that(&mock).all_steps_used().unwrap_err();
    assert!(unused.to_string().contains("route 0 (default) step 1: text \"b\""), "{unused}");
    assert_that(&mock).no_unexpected_requests().unwrap();
    expect_that(&mock)
        .last_request()
        .has_last_user_message_containing("MS-777")
        .has_system_message_containing("terse")
        .offers_tool("cancel")
        .has_model("gpt-4o");
    let missing = assert_that(&mock).last_request().unwrap().offers_tool("refund").unwrap_err();
    assert_eq!(missing.actual, "tools offered: [cancel]");
    mock.chat(&request).unwrap();
    mock.chat(&request).unwrap_err();
    let unexpected = assert_that(&mock).no_unexpected_requests().unwrap_err();
    assert_eq!(unexpected.actual, "1 unexpected request");
}

#[test]
#[should_panic(expected = "when_called(\"x\").was_called_times(1) failed")]
fn expect_that_panics_with_the_message() {
    let mock = MockModel::new();
    expect_that(&mock).when_called("x").was_called_times(1);
}
