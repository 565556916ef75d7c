//! Latency profiles on the virtual clock: a stream's first event waits the request's drawn time to first token and
//! each later token its own drawn latency; a whole answer takes exactly the sum; a step's own waits still win.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{ChatRequest, MockModel, Scenario};
use serde_json::json;

fn mock(step: serde_json::Value) -> MockModel {
    let document = json!({"cuecard": 1, "seed": 5, "routes": [{"steps": [step]}],
        "latency": {"ttft_ms": {"p50": 400, "p99": 1500}, "itl_ms": {"p50": 30, "p99": 120}}});
    MockModel::from_scenario(&Scenario::from_json(&document.to_string()).unwrap()).unwrap()
}

const TEXT: &str = "one two three four five six seven eight nine ten eleven twelve";

#[test]
fn a_stream_waits_drawn_latencies_and_a_whole_answer_their_sum() {
    let request = ChatRequest::user("gpt-4o", "hi");
    let stream = mock(json!({"text": TEXT})).chat_stream(&request).unwrap();
    let delays: Vec<u64> = stream.events().iter().map(|e| e.delay_ms).collect();
    assert!(delays[0] > 50, "time to first token {}", delays[0]);
    let tokens = &delays[1..delays.len() - 1];
    assert!(tokens.iter().all(|d| *d > 0), "{tokens:?}");
    assert!(tokens.windows(2).any(|w| w[0] != w[1]), "inter-token latencies vary: {tokens:?}");
    let whole = mock(json!({"text": TEXT})).chat_timed(&request);
    assert_eq!(whole.delay_ms, delays.iter().sum::<u64>());
    // The same scenario draws the same latencies; the journal's virtual time moves by them.
    let again = mock(json!({"text": TEXT}));
    let repeated: Vec<u64> = again.chat_stream(&request).unwrap().events().iter().map(|e| e.delay_ms).collect();
    assert_eq!(delays, repeated);
}

#[test]
fn a_steps_own_waits_win_over_the_profile() {
    let request = ChatRequest::user("gpt-4o", "hi");
    let stream = mock(json!({"text": TEXT, "ttft_ms": 7, "token_delay_ms": 3})).chat_stream(&request).unwrap();
    let delays: Vec<u64> = stream.events().iter().map(|e| e.delay_ms).collect();
    assert_eq!(delays[0], 7);
    assert!(delays[1..delays.len() - 1].iter().all(|d| *d == 3), "{delays:?}");
}

#[test]
fn a_bad_profile_is_named() {
    let document = json!({"cuecard": 1, "routes": [{"steps": ["x"]}], "latency": {"itl_ms": {"p50": 50, "p99": 10}}});
    let error = Scenario::from_json(&document.to_string()).unwrap_err();
    assert_eq!(error.issues()[0].path, "latency.itl_ms", "{error}");
}
