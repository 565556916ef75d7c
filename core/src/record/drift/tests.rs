use super::*;
use crate::http::HttpRequest;

/// cuecard's own reply to `body` on `path` for the one step `step`: what a recording of a provider that answers
/// exactly as cuecard does would hold.
fn cuecard_reply(path: &str, body: &str, step: Value) -> HttpReply {
    let scenario = crate::scenario::Scenario::from_value(json!({"cuecard": 1, "routes": [{"steps": [step]}]})).unwrap();
    let mock = crate::mock::MockModel::from_scenario(&scenario).unwrap();
    let request = HttpRequest::post_json(path, body).with_header("anthropic-version", "2023-06-01");
    crate::wire::handle(&mock, &request)
}

/// A vcrpy cassette of one exchange.
fn cassette(uri: &str, request: &str, content_type: &str, reply: &str) -> String {
    let interaction = json!({
        "request": {"method": "POST", "uri": uri, "body": request, "headers": {"content-type": ["application/json"]}},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": [content_type]},
                     "body": {"string": reply}},
    });
    serde_json::to_string(&json!({"interactions": [interaction], "version": 1})).unwrap()
}

const CHAT: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather?"}]}"#;
const MESSAGES: &str =
    r#"{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Weather?"}]}"#;

#[test]
fn a_recording_of_what_cuecard_sends_has_no_drift() {
    let whole = cuecard_reply("/v1/chat/completions", CHAT, json!({"text": "Sunny in Paris."})).body_text();
    let report =
        drift_report(&cassette("https://api.openai.com/v1/chat/completions", CHAT, "application/json", &whole))
            .unwrap();
    assert_eq!(report.exchanges.len(), 1);
    assert!(!report.drifted(), "{}", report.to_text("chat"));
    let stream = cuecard_reply("/v1/messages", MESSAGES, json!({"text": "Sunny in Paris."})).body_text();
    let report =
        drift_report(&cassette("https://api.anthropic.com/v1/messages", MESSAGES, "text/event-stream", &stream))
            .unwrap();
    assert!(report.exchanges.first().is_some_and(|e| e.stream));
    assert!(!report.drifted(), "{}", report.to_text("messages"));
}

#[test]
fn a_renamed_field_a_changed_type_and_a_new_kind_are_drift() {
    let whole = cuecard_reply("/v1/chat/completions", CHAT, json!({"text": "Sunny in Paris."})).body_text();
    let planted = whole
        .replace("\"finish_reason\"", "\"stop_reason\"")
        .replace("\"created\":1767225600", "\"created\":\"1767225600\"");
    let planted = planted.replace("\"object\":\"chat.completion\"", "\"object\":\"chat.completion.v2\"");
    let report =
        drift_report(&cassette("https://api.openai.com/v1/chat/completions", CHAT, "application/json", &planted))
            .unwrap();
    let found: Vec<(&str, &str)> = report.exchanges[0].differences.iter().map(|d| (d.what, d.at.as_str())).collect();
    assert_eq!(found, [("field", "choices[].stop_reason"), ("type", "created"), ("kind", "object")], "{found:?}");
    assert!(report.drifted());
    assert!(report.exchanges[0].only_cuecard.contains(&"choices[].finish_reason".to_string()));
    let text = report.to_text("planted.yaml");
    assert!(text.contains("field choices[].stop_reason: recorded string, cuecard -"), "{text}");
    assert!(text.contains("type created: recorded string, cuecard integer"), "{text}");
    assert_eq!(report.to_json()["drifted"], true);
}

#[test]
fn a_missing_event_and_an_unknown_one_in_a_stream_are_drift() {
    let stream = cuecard_reply("/v1/messages", MESSAGES, json!({"text": "Sunny in Paris."})).body_text();
    let events: Vec<&str> = stream.split_inclusive("\n\n").collect();
    let without_delta: String = events.iter().filter(|e| !e.starts_with("event: message_delta")).copied().collect();
    let report =
        drift_report(&cassette("https://api.anthropic.com/v1/messages", MESSAGES, "text/event-stream", &without_delta))
            .unwrap();
    let differences = &report.exchanges[0].differences;
    assert_eq!(differences.len(), 1, "{differences:?}");
    let found = &differences[0];
    assert_eq!(
        (found.what, found.at.as_str(), found.recorded.as_str(), found.cuecard.as_str()),
        ("events", "message_delta", "-", "sent")
    );

    // The same events in another order.
    let mut swapped: Vec<&str> = events.clone();
    let (start, stop) =
        (swapped.iter().position(|e| e.starts_with("event: message_delta")).unwrap(), swapped.len() - 1);
    swapped.swap(start, stop);
    let report = drift_report(&cassette(
        "https://api.anthropic.com/v1/messages",
        MESSAGES,
        "text/event-stream",
        &swapped.concat(),
    ))
    .unwrap();
    let found: Vec<(&str, &str)> = report.exchanges[0].differences.iter().map(|d| (d.what, d.at.as_str())).collect();
    assert_eq!(found, [("events", "order")]);
    assert!(report.exchanges[0].differences[0].recorded.ends_with("message_stop > message_delta"));

    // An event cuecard never sends is drift; a ping, which any stream may carry and no client acts on, is not.
    let with_new = format!("event: ping\ndata: {{\"type\": \"ping\"}}\n\nevent: citation_start\ndata: {{\"type\": \"citation_start\"}}\n\n{stream}");
    let report =
        drift_report(&cassette("https://api.anthropic.com/v1/messages", MESSAGES, "text/event-stream", &with_new))
            .unwrap();
    let found: Vec<(&str, &str)> = report.exchanges[0].differences.iter().map(|d| (d.what, d.at.as_str())).collect();
    assert_eq!(found, [("events", "citation_start")]);
}

#[test]
fn bad_recordings_are_typed_errors() {
    let err = drift_report("cuecard: 1\nroutes: 5\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidScenario, "{err}");
    let err = drift_report("interactions: 7\n").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidScenario, "{err}");
    let err = drift_report("{ not yaml").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidScenario, "{err}");
}
