//! Behaviour of the scripted provider beyond the shared vectors: concurrency, callbacks, scripting rules,
//! journal snapshots, virtual time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{
    CallError, ChatRequest, ErrorKind, Exhaustion, HostError, Message, MockModel, ProviderError, Route, RouteMatch,
    Step, StreamEvent, UsagePolicy,
};
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;

fn request(text: &str) -> ChatRequest {
    ChatRequest::user("gpt-4o", text)
}

#[test]
fn concurrent_callers_each_take_exactly_one_step_in_arrival_order() {
    const THREADS: usize = 8;
    const PER_THREAD: usize = 250;
    let mock = Arc::new(MockModel::new());
    for i in 0..THREADS * PER_THREAD {
        mock.add_step(Step::text(format!("answer {i}")).unwrap()).unwrap();
    }
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let mock = Arc::clone(&mock);
            std::thread::spawn(move || {
                (0..PER_THREAD)
                    .map(|i| mock.chat(request(&format!("{t}-{i}"))).unwrap().text().to_string())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let answers: Vec<String> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let distinct: HashSet<&String> = answers.iter().collect();
    assert_eq!(distinct.len(), THREADS * PER_THREAD, "no step is taken twice");
    // The journal's arrival order is the order steps were taken: entry k got step k.
    for entry in mock.entries() {
        assert_eq!(entry.step.map(u64::from), Some(entry.index));
        assert_eq!(entry.response.unwrap().text(), format!("answer {}", entry.index));
    }
    assert_eq!(mock.request_count(), (THREADS * PER_THREAD) as u64);
    assert!(mock.unused_steps().is_empty());
    // One more request is unexpected, and journaled too.
    assert_eq!(mock.chat(request("extra")).unwrap_err().code(), "script_exhausted");
    assert_eq!(mock.unexpected_count(), 1);
}

#[test]
fn exhaustion_error_shows_the_request_the_route_and_the_script_length() {
    let mock =
        MockModel::builder().route(RouteMatch::operation("classify")).responds("spam").responds("ham").build().unwrap();
    let req = request("Is this spam?").with_operation("classify");
    mock.chat(&req).unwrap();
    mock.chat(&req).unwrap();
    let err = mock.chat(&req).unwrap_err();
    let message = err.to_string();
    assert_eq!(err.code(), "script_exhausted");
    assert!(message.contains("request #3 (operation \"classify\", model \"gpt-4o\")"), "{message}");
    assert!(message.contains("route 0 (operation=\"classify\")"), "{message}");
    assert!(message.contains("which has 2 steps and all were used"), "{message}");
    assert!(message.contains("last user message: \"Is this spam?\""), "{message}");
    assert!(message.contains("repeats()"), "{message}");
}

#[test]
fn a_computed_answer_sees_the_request_and_its_host_error_passes_through_unchanged() {
    #[derive(Debug, PartialEq)]
    struct PythonException(&'static str);
    let mock = MockModel::new();
    mock.add_step(Step::compute(|req: &ChatRequest| {
        Step::text(format!("echo: {}", req.messages[0].text())).map_err(CallError::from)
    }))
    .unwrap();
    mock.add_step(Step::compute(|_: &ChatRequest| {
        Err(CallError::Host(HostError::new("ValueError: boom", Arc::new(PythonException("boom")))))
    }))
    .unwrap();
    mock.add_step(Step::compute(|_: &ChatRequest| Ok(Step::fail(ProviderError::overloaded())))).unwrap();
    mock.add_step(Step::compute(|_: &ChatRequest| {
        Ok(Step::compute(|_: &ChatRequest| Step::text("x").map_err(CallError::from)))
    }))
    .unwrap();
    assert_eq!(mock.chat(request("ping")).unwrap().text(), "echo: ping");
    match mock.chat(request("x")).unwrap_err() {
        CallError::Host(host) => {
            assert_eq!(host.payload().downcast_ref::<PythonException>(), Some(&PythonException("boom")))
        }
        other => panic!("expected the host error, got {other:?}"),
    }
    assert_eq!(mock.chat(request("x")).unwrap_err().provider().map(|e| e.status), Some(Some(529)));
    assert_eq!(mock.chat(request("x")).unwrap_err().code(), "callback_failed");
    let outcomes: Vec<String> = mock.entries().iter().map(|e| e.outcome.describe()).collect();
    assert_eq!(outcomes, ["answered", "callback failed", "failed overloaded 529", "callback failed"]);
}

#[test]
fn a_computed_tool_call_may_repeat_but_a_fixed_one_may_not() {
    let mock = MockModel::new();
    mock.add_step(Step::tool_call("get_weather", &json!({}))).unwrap();
    assert_eq!(mock.then_repeats().unwrap_err().code(), "invalid_state");
    let mock = MockModel::new();
    mock.add_step(Step::compute(|_: &ChatRequest| Ok(Step::tool_call("get_weather", &json!({}))))).unwrap();
    mock.then_repeats().unwrap();
    let ids: Vec<String> = (0..3).map(|_| mock.chat(request("x")).unwrap().message.tool_calls[0].id.clone()).collect();
    assert_eq!(ids, ["call_1", "call_2", "call_3"]);
    assert_eq!(mock.add_step(Step::text("late").unwrap()).unwrap_err().code(), "invalid_state");
}

#[test]
fn and_fails_is_refused_once_the_last_step_was_answered() {
    let mock = MockModel::builder().responds("Hello there").build().unwrap();
    mock.chat(request("x")).unwrap();
    let err = mock.and_fails(&(&ProviderError::connection_reset()).into()).unwrap_err();
    assert_eq!(err.code(), "invalid_state");
    assert!(err.message().contains("already answered"));
    let mock =
        MockModel::builder().streams(["Hel", "lo"]).and_fails(ProviderError::connection_reset()).build().unwrap();
    let stream = mock.chat_stream(request("x")).unwrap();
    let kinds: Vec<&str> = stream
        .iter()
        .map(|e| match e {
            StreamEvent::TextDelta { .. } => "text",
            StreamEvent::Error { .. } => "error",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["text", "text", "error"]);
    assert!(stream.response().is_none());
}

#[test]
fn the_journal_keeps_snapshots_and_answers_count_queries() {
    let mock = MockModel::builder().responds("a").responds("b").build().unwrap();
    assert!(mock.last_request().unwrap_err().message().contains("received none"));
    let mut req = request("original");
    mock.chat(&req).unwrap();
    req.messages[0] = Message::user("mutated");
    assert_eq!(mock.request().unwrap().messages[0].text(), "original");
    mock.chat(&req).unwrap();
    let err = mock.request().unwrap_err();
    assert_eq!(err.code(), "request_count_mismatch");
    assert!(err.message().contains("received 2"));
    assert_eq!(mock.last_request().unwrap().messages[0].text(), "mutated");
    assert_eq!(mock.requests_where(|r| r.messages[0].text() == "original").len(), 1);
}

#[test]
fn bounded_journal_keeps_memory_flat_and_counts_everything() {
    let mock = MockModel::builder().responds("ok").repeats().build().unwrap();
    mock.set_journal_limit(Some(16));
    for i in 0..50_000 {
        mock.chat(request(&format!("{i}"))).unwrap();
    }
    assert_eq!(mock.request_count(), 50_000);
    assert_eq!(mock.counts().answered, 50_000);
    let entries = mock.entries();
    assert_eq!(entries.len(), 16);
    assert_eq!(entries[0].index, 50_000 - 16);
}

#[test]
fn virtual_time_advances_by_the_answers_and_can_be_advanced_by_the_host() {
    let mock = MockModel::new();
    mock.add_step(Step::text("a b c").unwrap().with_delay_ms(100).with_token_delay_ms(5)).unwrap();
    mock.add_step(Step::fail(ProviderError::rate_limited().with_retry_after_ms(1000)).with_delay_ms(20)).unwrap();
    mock.add_step(Step::text("done").unwrap()).unwrap();
    let timed = mock.chat_timed(request("1"));
    assert_eq!(timed.delay_ms, 110);
    let failed = mock.chat_timed(request("2"));
    assert_eq!(failed.delay_ms, 20);
    assert_eq!(failed.value.unwrap_err().provider().unwrap().retry_after_ms, Some(1000));
    mock.advance_clock(1000); // the client waited out retry-after
    mock.chat(request("3")).unwrap();
    let at: Vec<u64> = mock.entries().iter().map(|e| e.at_ms).collect();
    assert_eq!(at, [0, 110, 1130]);
}

#[test]
fn routes_with_predicates_and_their_own_policies() {
    let mock = MockModel::new();
    mock.add_route(
        Route::new(RouteMatch::predicate(|r| r.messages.iter().any(|m| m.text().contains("urgent"))))
            .step(Step::text("right away").unwrap())
            .on_exhausted(Exhaustion::Cycle),
    )
    .unwrap();
    mock.add_route(Route::new(RouteMatch::any()).step(Step::text("later").unwrap())).unwrap();
    assert_eq!(mock.chat(request("urgent: help")).unwrap().text(), "right away");
    assert_eq!(mock.chat(request("urgent again")).unwrap().text(), "right away");
    assert_eq!(mock.chat(request("whenever")).unwrap().text(), "later");
    assert_eq!(mock.route_summaries(), [("predicate".to_string(), 1, 2), ("default".to_string(), 1, 1)]);
}

#[test]
fn usage_policies() {
    let mock = MockModel::builder().responds("Hello, world!").repeats().build().unwrap();
    assert_eq!(mock.chat(request("hi")).unwrap().usage, None);
    mock.set_usage(UsagePolicy::Estimate);
    let usage = mock.chat(request("Hello there")).unwrap().usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (2, 4, 6));
}

#[test]
fn reset_rewinds_the_script_and_forgets_requests() {
    let mock = MockModel::builder().responds("one").build().unwrap();
    mock.chat(request("x")).unwrap();
    mock.reset();
    assert_eq!(mock.request_count(), 0);
    let again = mock.chat(request("x")).unwrap();
    assert_eq!((again.text(), again.id.as_deref()), ("one", Some("chatcmpl-1")));
}

#[test]
fn a_turn_stops_at_a_host_computed_step_and_resumes_with_the_answer_given_later() {
    use cuecard::api::{step_from_answer, JsonResponder};
    use cuecard::{Outcome, Turn};
    let mock = MockModel::new();
    let responder = JsonResponder::new(|_: &ChatRequest| -> Result<serde_json::Value, CallError> {
        panic!("a deferred step is answered by the host, not here")
    })
    .with_host_key(7);
    mock.then_computes(Arc::new(responder)).unwrap();
    mock.then_responds("second").unwrap();

    let Turn::Pending(pending) = mock.chat_timed_turn(request("first question"), None) else {
        panic!("the computed step must stop the call");
    };
    assert_eq!(pending.host_key(), Some(7));
    assert_eq!(pending.request().messages[0].text(), "first question");
    assert_eq!(mock.entries()[0].outcome, Outcome::Pending, "journaled on arrival, still pending");

    // A request arriving while the first waits takes the next step: arrival order, not completion order.
    let Turn::Done(second) = mock.chat_timed_turn(request("later"), None) else { panic!("a scripted step") };
    assert_eq!(second.result.unwrap().text(), "second");

    let exchange = pending.resume(&mock, step_from_answer(json!({"text": "computed later"})));
    assert_eq!(exchange.index, 0);
    assert_eq!(exchange.result.unwrap().text(), "computed later");
    let entries = mock.entries();
    assert_eq!(entries[0].outcome, Outcome::Answered);
    assert_eq!(entries[0].response.as_ref().unwrap().text(), "computed later");
}

#[test]
fn a_resumed_wire_request_is_encoded_by_its_protocol_and_a_host_error_is_journaled() {
    use cuecard::api::JsonResponder;
    use cuecard::wire::{handle_turn, HttpReply, HttpRequest};
    use cuecard::{Outcome, Turn};
    let mock = MockModel::new();
    let unreachable = |_: &ChatRequest| -> Result<serde_json::Value, CallError> { panic!("deferred") };
    mock.then_computes(Arc::new(JsonResponder::new(unreachable).with_host_key(1))).unwrap();
    mock.then_computes(Arc::new(JsonResponder::new(unreachable).with_host_key(2))).unwrap();
    let body = br#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#.to_vec();
    let http = HttpRequest::new("POST", "/v1/chat/completions", vec![], body);

    let Turn::Pending(pending) = handle_turn(&mock, &http) else { panic!("computed") };
    let reply = pending.resume(&mock, cuecard::api::step_from_answer(json!("from the host")));
    let HttpReply::Full { status, body, .. } = reply else { panic!("a whole answer") };
    assert_eq!(status, 200);
    assert!(body.contains("from the host"), "{body}");

    let Turn::Pending(pending) = handle_turn(&mock, &http) else { panic!("computed") };
    let failure = CallError::Host(HostError::new("boom", Arc::new(())));
    let HttpReply::Full { status, body, .. } = pending.resume(&mock, Err(failure)) else { panic!("an error reply") };
    assert_eq!(status, 422);
    assert!(body.contains("boom"), "{body}");
    assert!(matches!(mock.entries()[1].outcome, Outcome::CallbackFailed { .. }));
}

#[test]
fn a_restarted_route_is_scripted_afresh_and_the_journal_keeps_what_it_answered() {
    let mock = MockModel::new();
    mock.then_responds("first").unwrap();
    mock.then_responds("second").unwrap();
    mock.then_repeats().unwrap();
    assert_eq!(mock.chat(request("a")).unwrap().text(), "first");

    mock.restart_route(0).unwrap();
    assert!(mock.unused_steps().is_empty(), "the old steps are gone");
    mock.then_responds("third").unwrap();
    mock.then_repeats().unwrap(); // unsealed by the restart, so it can end with repeats() again
    assert_eq!(mock.chat(request("b")).unwrap().text(), "third");
    assert_eq!(mock.chat(request("c")).unwrap().text(), "third");

    assert_eq!(mock.request_count(), 3);
    let first = mock.entry(0).expect("entry 0 is kept");
    assert_eq!((first.step, first.response.as_ref().map(|r| r.text())), (Some(0), Some("first")));
    assert_eq!(mock.entry(2).and_then(|e| e.step), Some(0));
    assert!(mock.entry(3).is_none());
    let err = mock.restart_route(5).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidState);
    assert!(err.to_string().contains("there is no route 5: the mock has 1"), "{err}");
}

#[test]
fn validation_gaps_of_the_hardening_issue_are_closed() {
    use cuecard::api::StepSpec;
    use cuecard::{MockSettings, Scenario, StepTiming};
    // A failure's status is an error status (400-599).
    for status in [0u16, 99, 200, 399, 600, 999] {
        let spec: StepSpec =
            serde_json::from_value(json!({"fail": {"kind": "server_error", "status": status}})).unwrap();
        let problem = spec.build().unwrap_err();
        assert_eq!(problem.path, ".fail.status", "{status}");
        assert!(problem.message.contains("is not an error status (400-599)"), "{}", problem.message);
    }
    // Waits are capped at a day, in steps and in step defaults.
    let spec: StepSpec = serde_json::from_value(json!({"text": "x", "stall_ms": 1_000_000_000_000u64})).unwrap();
    let problem = spec.build().unwrap_err();
    assert_eq!(problem.path, ".stall_ms");
    assert!(problem.message.contains("longer than a day"), "{}", problem.message);
    let too_long = MockSettings {
        step_defaults: Some(StepTiming { delay_ms: Some(86_400_001), ..StepTiming::default() }),
        ..MockSettings::default()
    };
    let err = MockModel::new().configure(&too_long).unwrap_err();
    assert!(err.to_string().contains("invalid step_defaults.delay_ms"), "{err}");
    // A UTF-8 byte order mark at the start of a scenario is not an error.
    let with_bom = "\u{feff}{\"cuecard\": 1, \"routes\": [{\"steps\": [\"hi\"]}]}";
    assert_eq!(Scenario::from_text(with_bom).unwrap().step_count(), 1);
    assert_eq!(Scenario::from_yaml("\u{feff}cuecard: 1\nroutes:\n  - steps: [hi]\n").unwrap().step_count(), 1);
}

/// A request still in flight when the journal is reset or the script replaced belongs to the old journal: its late
/// answer and an abandoned stream write nothing into the new request of the same index, and the counters stay true.
#[test]
fn a_request_of_an_earlier_script_writes_nothing_into_the_new_journal() {
    use cuecard::api::JsonResponder;
    use cuecard::wire::{handle_turn, HttpRequest};
    use cuecard::{Outcome, Scenario, Turn};
    let mock = MockModel::new();
    let unreachable = |_: &ChatRequest| -> Result<serde_json::Value, CallError> { panic!("deferred") };
    mock.then_computes(Arc::new(JsonResponder::new(unreachable).with_host_key(1))).unwrap();
    let body = br#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#.to_vec();
    let http = HttpRequest::new("POST", "/v1/chat/completions", vec![], body);
    let Turn::Pending(late) = handle_turn(&mock, &http) else { panic!("computed") };
    mock.reset();
    let Turn::Pending(current) = handle_turn(&mock, &http) else { panic!("computed again after the reset") };
    let _ = late.resume(&mock, cuecard::api::step_from_answer(json!("from the old script")));
    assert_eq!(mock.entries()[0].outcome, Outcome::Pending, "the late answer left the new entry alone");
    assert_eq!(mock.counts().answered, 0);
    let _ = current.resume(&mock, cuecard::api::step_from_answer(json!("current")));
    assert_eq!(mock.counts().answered, 1);
    assert_eq!(mock.counts().total, 1);

    let streamed = mock.chat_stream(request("a stream of the first script")).unwrap_err();
    assert_eq!(streamed.cuecard().map(cuecard::Error::kind), Some(ErrorKind::ScriptExhausted), "one step only");
    let scenario = Scenario::from_json(r#"{"cuecard": 1, "routes": [{"steps": ["one", "two"]}]}"#).unwrap();
    mock.load_scenario(&scenario).unwrap();
    let old_stream = mock.chat_stream(request("old")).unwrap();
    mock.load_scenario(&scenario).unwrap();
    let _ = mock.chat_stream(request("new")).unwrap();
    mock.note_left_mid_stream(old_stream.entry());
    assert!(!mock.entries()[0].left_mid_stream, "an abandoned stream of the old script marks nothing");
    assert_eq!(mock.entries()[0].request.messages[0].text(), "new");
}
