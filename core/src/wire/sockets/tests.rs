use super::*;

fn upgrade(target: &str) -> HttpRequest {
    HttpRequest::new("GET", target, vec![("upgrade".into(), "websocket".into())], Vec::new())
}

#[test]
fn an_upgrade_on_the_realtime_path_opens_a_session() {
    let mock = MockModel::builder().responds("Hi").build().unwrap();
    let reply = crate::wire::handle(&mock, &upgrade("/v1/realtime?model=gpt-realtime"));
    assert_eq!(reply.status(), 101, "{reply:?}");
}

#[test]
fn a_plain_request_on_a_socket_path_is_told_to_upgrade_and_journaled() {
    let mock = MockModel::builder().responds("Hi").build().unwrap();
    let reply = crate::wire::handle(&mock, &HttpRequest::new("GET", "/v1/realtime?model=m", Vec::new(), Vec::new()));
    assert_eq!(reply.status(), 426, "{reply:?}");
    assert!(reply.body_text().contains("is a WebSocket (openai_realtime)"), "{}", reply.body_text());
    assert_eq!(mock.counts().rejected, 1);
    // `POST /v1/responses` is still the HTTP API.
    let post = HttpRequest::post_json("/v1/responses", r#"{"model":"m","input":"hi"}"#);
    assert_eq!(crate::wire::handle(&mock, &post).status(), 200);
}

#[test]
fn a_message_for_an_unknown_or_closed_socket_is_a_policy_close() {
    let mock = MockModel::builder().responds("Hi").build().unwrap();
    let message = HttpRequest::new("WS", "/v1/realtime", vec![(SOCKET_HEADER.into(), "ws_9".into())], b"{}".to_vec());
    let HttpReply::Socket { end, frames, .. } = crate::wire::handle(&mock, &message) else { panic!("a socket reply") };
    assert!(frames.is_empty());
    assert!(matches!(end, SocketEnd::Close { code: 1008, .. }), "{end:?}");
}

#[test]
fn a_bounded_journal_bounds_the_socket_messages_and_keeps_their_numbers() {
    let mock = MockModel::builder().responds("Hi").build().unwrap();
    mock.set_journal_limit(Some(1)); // 100 socket messages
    crate::wire::handle(&mock, &upgrade("/v1/realtime"));
    let message = HttpRequest::new("WS", "/v1/realtime", vec![(SOCKET_HEADER.into(), "ws_1".into())], b"[]".to_vec());
    for _ in 0..150 {
        crate::wire::handle(&mock, &message);
    }
    let kept = mock.socket_events();
    assert_eq!(kept.len(), 100);
    // open, session.created, conversation.created, then 150 x (invalid, error): 303 in all, the newest 100 kept.
    assert_eq!((kept[0].index, kept[99].index), (203, 302));
    assert_eq!((kept[98].kind.as_str(), kept[99].kind.as_str()), ("invalid", "error"));
}

#[test]
fn chaos_fails_a_realtime_turn_as_it_fails_a_request() {
    let yaml = "cuecard: 1\nchaos: {rates: {rate_limited: 1.0}}\nroutes:\n  - steps:\n      - text: never\n";
    let mock = MockModel::from_scenario(&crate::Scenario::from_yaml(yaml).unwrap()).unwrap();
    crate::wire::handle(&mock, &upgrade("/v1/realtime"));
    let create = HttpRequest::new(
        "WS",
        "/v1/realtime",
        vec![(SOCKET_HEADER.into(), "ws_1".into())],
        br#"{"type":"response.create","event_id":"ask"}"#.to_vec(),
    );
    let HttpReply::Socket { frames, end, .. } = crate::wire::handle(&mock, &create) else { panic!("a socket reply") };
    assert_eq!(end, SocketEnd::Open);
    let events: Vec<serde_json::Value> = frames.iter().map(|f| serde_json::from_str(&f.data).unwrap()).collect();
    let error = events.iter().find(|e| e["type"] == "error").expect("an error event");
    assert_eq!(
        (error["error"]["code"].as_str(), error["error"]["event_id"].as_str()),
        (Some("rate_limit_exceeded"), Some("ask"))
    );
    assert_eq!(events.last().unwrap()["response"]["status"], "failed");
    let entry = &mock.entries()[0];
    assert!(entry.chaos, "journaled as chaos: {entry:?}");
}
