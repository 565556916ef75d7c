//! Seeded chaos over 10,000 requests: the journal (which requests failed, how, and which step answered each of the
//! others) is the golden `tests/golden/chaos-10k.json`, which the Python and Node suites check against their own
//! runs, so the same scenario fails the same requests in every language. Regenerate with
//! `UPDATE_VECTORS=1 cargo test -p cuecard --test chaos`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{ChatRequest, MockModel, Scenario};
use serde_json::{json, Value};

fn golden_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/chaos-10k.json")
}

/// One character per request: the step that answered it (`0`-`2`), or the first letter of the chaos failure's kind.
fn journal_line(mock: &MockModel) -> String {
    mock.entries()
        .iter()
        .map(|entry| {
            let value = serde_json::to_value(entry).unwrap();
            match (&value["chaos"], &value["error"]["kind"], entry.step) {
                (Value::Bool(true), Value::String(kind), None) => kind.chars().next().unwrap(),
                (Value::Null, Value::Null, Some(step)) => char::from_digit(step, 10).unwrap(),
                other => panic!("unexpected entry {}: {other:?}", entry.index),
            }
        })
        .collect()
}

#[test]
fn ten_thousand_requests_fail_as_the_golden_journal_says() {
    let mut golden: Value = serde_json::from_str(&std::fs::read_to_string(golden_path()).unwrap()).unwrap();
    let scenario = Scenario::from_value(golden["scenario"].clone()).unwrap();
    let mock = MockModel::from_scenario(&scenario).unwrap();
    let request = ChatRequest::user("gpt-4o", "hi");
    let count = golden["requests"].as_u64().unwrap();
    for _ in 0..count {
        let _ = mock.chat(&request);
    }
    let line = journal_line(&mock);
    let failed = line.chars().filter(|c| !c.is_ascii_digit()).count() as f64 / count as f64;
    // The rates add up to 8%: about 800 of 10,000 fail.
    assert!((failed - 0.08).abs() < 0.01, "{failed}");
    if std::env::var_os("UPDATE_VECTORS").is_some() {
        golden["journal"] = json!(line);
        std::fs::write(golden_path(), serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
    } else {
        assert_eq!(golden["journal"].as_str().unwrap(), line, "the chaos journal differs from the golden one");
    }
}

/// Faults inside the answer (`answer_faults`): drawn at their rate from the seed and the request's index, the same
/// on a second run, journaled with their kind, and only among the kinds that apply to the step.
#[test]
fn answer_faults_are_seeded_journaled_and_only_where_they_apply() {
    let yaml = "cuecard: 1\nseed: 11\nanswer_faults: {rates: {invalid_arguments: 0.3, refusal: 0.2}}\nroutes:\n  - steps:\n      - tool_calls: [{name: get_weather, arguments: {city: Paris}}]\n    on_exhausted: cycle\n    match: {operation: tools}\n  - steps:\n      - text: Sunny.\n    on_exhausted: cycle\n";
    let run = || {
        let mock = cuecard::MockModel::from_scenario(&cuecard::Scenario::from_yaml(yaml).unwrap()).unwrap();
        for i in 0..400 {
            let operation = if i % 2 == 0 { "tools" } else { "text" };
            let request = cuecard::wire::HttpRequest::post_json(
                "/v1/chat/completions",
                r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
            )
            .with_header("x-cuecard-operation", operation);
            cuecard::wire::handle(&mock, &request);
        }
        mock.entries()
            .iter()
            .map(|e| (e.request.metadata.operation.clone(), e.answer_fault.map(|k| k.as_str())))
            .collect::<Vec<_>>()
    };
    let faults = run();
    assert_eq!(faults, run(), "the same requests get the same faults");
    let count = |operation: &str, kind: &str| {
        faults.iter().filter(|(o, f)| o.as_deref() == Some(operation) && *f == Some(kind)).count()
    };
    // Tool steps: invalid arguments at 0.3 (the refusal, which needs text, never applies).
    assert!((40..=80).contains(&count("tools", "invalid_arguments")), "{}", count("tools", "invalid_arguments"));
    assert_eq!(count("tools", "refusal"), 0);
    // Text steps: refusals at about 0.2 of 200, never a tool-call fault.
    assert!((25..=60).contains(&count("text", "refusal")), "{}", count("text", "refusal"));
    assert_eq!(count("text", "invalid_arguments"), 0);
}

/// A step's `fault` is made every time it is taken, without the setting; a kind that cannot apply to the step (a
/// tool-call fault on a text step, a structured-output fault on text that is not JSON) refuses the scenario, naming
/// the step.
#[test]
fn a_step_names_its_fault_and_a_fault_that_cannot_apply_is_refused() {
    let yaml = "cuecard: 1\nroutes:\n  - steps:\n      - {text: Sunny all day in Paris., fault: truncated_output}\n    on_exhausted: repeat_last\n";
    let mock = cuecard::MockModel::from_scenario(&cuecard::Scenario::from_yaml(yaml).unwrap()).unwrap();
    for _ in 0..3 {
        let request = cuecard::wire::HttpRequest::post_json(
            "/v1/chat/completions",
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#,
        );
        let cuecard::wire::HttpReply::Full { body, .. } = cuecard::wire::handle(&mock, &request) else {
            panic!("a whole answer")
        };
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["choices"][0]["finish_reason"], "length");
        assert_eq!(body["choices"][0]["message"]["content"], "Sunny all d");
    }
    assert!(mock.entries().iter().all(|e| e.answer_fault == Some(cuecard::faults::FaultKind::TruncatedOutput)));

    for (step, problem) in [
        ("{text: Sunny., fault: invalid_arguments}", "fault invalid_arguments needs a step with tool calls"),
        ("{text: Sunny., fault: output_schema_violation}", "needs a step with a JSON object as its text"),
        ("{fail: rate_limited, fault: refusal}", "needs an answer step"),
        ("{text: Sunny., fault: gibberish}", "unknown fault kind `gibberish`"),
    ] {
        let yaml = format!("cuecard: 1\nroutes:\n  - steps:\n      - {step}\n");
        let err = cuecard::Scenario::from_yaml(&yaml).and_then(|s| cuecard::MockModel::from_scenario(&s)).unwrap_err();
        assert!(err.to_string().contains(problem), "{step}: {err}");
        assert!(err.to_string().contains("routes[0].steps[0]"), "{step}: {err}");
    }
}

/// The runs an agent's tool call is faulted in, from the scenario of `tests/golden/agent-recovery-100.json` alone:
/// the golden list the OpenAI Agents SDK suites of Python and Node find again with a real agent.
#[test]
fn an_agents_faulted_runs_are_the_golden_ones() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/agent-recovery-100.json");
    let mut golden: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mock = MockModel::from_scenario(&Scenario::from_value(golden["scenario"].clone()).unwrap()).unwrap();
    let ask = ChatRequest::user("gpt-4o", "Weather in Paris?");
    for _ in 0..golden["runs"].as_u64().unwrap() {
        let call = mock.chat(&ask).unwrap();
        let mut answer = ask.clone();
        answer.messages.push(cuecard::Message::assistant_tool_calls(call.message.tool_calls.clone()));
        answer.messages.push(cuecard::Message::tool_result("call_1", "Sunny in Paris."));
        assert_eq!(mock.chat(&answer).unwrap().text(), "It is sunny in Paris.");
    }
    let faulted: Vec<u64> = mock.entries().iter().filter(|e| e.answer_fault.is_some()).map(|e| e.index / 2).collect();
    assert!(faulted.iter().all(|run| mock.entries()[(*run * 2) as usize].step == Some(0)), "only tool calls fault");
    // A rate of 0.25 over 100 tool calls.
    assert!((12..=40).contains(&faulted.len()), "{}", faulted.len());
    if std::env::var_os("UPDATE_VECTORS").is_some() {
        golden["faulted_runs"] = json!(faulted);
        std::fs::write(&path, serde_json::to_string_pretty(&golden).unwrap() + "\n").unwrap();
    } else {
        assert_eq!(golden["faulted_runs"], json!(faulted), "the faulted runs differ from the golden ones");
    }
}
