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

/// `text` in cuecard's voice at 24 kHz, base64, as an `input_audio_buffer.append` body.
fn append(text: &str, silence_frames: usize) -> Vec<u8> {
    use base64::Engine;
    let mut audio = crate::media::audio::pcm16(text, 24_000);
    audio.extend(vec![0u8; 960 * silence_frames]);
    let audio = base64::engine::general_purpose::STANDARD.encode(audio);
    serde_json::json!({"type": "input_audio_buffer.append", "audio": audio}).to_string().into_bytes()
}

#[test]
fn speech_while_a_response_is_sent_interrupts_it_where_the_client_saw_it() {
    let mock = MockModel::builder().responds("one two three four five").responds("Yes?").build().unwrap();
    crate::wire::handle(&mock, &upgrade("/v1/realtime"));
    let ws = |body: Vec<u8>, delivered: Option<&str>| {
        let mut headers = vec![(SOCKET_HEADER.to_string(), "ws_1".to_string())];
        if let Some(sent) = delivered {
            headers.push((DELIVERED_HEADER.to_string(), sent.to_string()));
        }
        crate::wire::handle(&mock, &HttpRequest::new("WS", "/v1/realtime", headers, body))
    };
    let session = br#"{"type":"session.update","session":{"type":"realtime","output_modalities":["text"]}}"#;
    ws(session.to_vec(), None);
    let HttpReply::Socket { frames, .. } = ws(br#"{"type":"response.create"}"#.to_vec(), None) else { panic!() };
    // The client had the first 7 events (up to the delta " two") when the user spoke.
    let HttpReply::Socket { frames: cut, interrupt, .. } = ws(append("Stop!", 0), Some("7")) else { panic!() };
    assert!(interrupt);
    let types: Vec<String> = cut
        .iter()
        .map(|f| serde_json::from_str::<serde_json::Value>(&f.data).unwrap()["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(types, ["input_audio_buffer.speech_started", "response.output_item.done", "response.done"]);
    let done: serde_json::Value = serde_json::from_str(&cut[2].data).unwrap();
    assert_eq!(done["response"]["status_details"], serde_json::json!({"type": "cancelled", "reason": "turn_detected"}));
    assert_eq!(done["response"]["output"][0]["content"][0]["text"], "one two");
    // The journal keeps what crossed: the answer's first 7 events, not the 10 the client never had.
    let sent = mock.socket_events().iter().filter(|e| e.kind == "response.output_text.delta").count();
    assert_eq!((frames.len() > 10, sent), (true, 2));
    // The speech ends: the turn is committed, transcribed from the voice, and answered.
    let HttpReply::Socket { frames: turn, .. } = ws(append("", 12), None) else { panic!() };
    assert!(turn.iter().any(|f| f.data.contains("input_audio_buffer.committed")));
    assert_eq!(mock.entries()[1].request.messages.last().unwrap().text(), "Stop!");
}

#[test]
fn gemini_audio_with_a_rate_of_zero_is_read_at_the_native_rate_not_a_division_by_zero() {
    use base64::Engine;
    let mock = MockModel::builder().responds("Heard.").build().unwrap();
    let path = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent";
    crate::wire::handle(&mock, &upgrade(path));
    let ws = |body: serde_json::Value| {
        let headers = vec![(SOCKET_HEADER.to_string(), "ws_1".to_string())];
        crate::wire::handle(&mock, &HttpRequest::new("WS", path, headers, body.to_string().into_bytes()))
    };
    ws(serde_json::json!({"setup": {"model": "models/gemini-live-2.5-flash"}}));
    let mut audio = crate::media::audio::pcm16("ok", 16_000);
    audio.extend(vec![0u8; 640 * 40]);
    let data = base64::engine::general_purpose::STANDARD.encode(audio);
    let HttpReply::Socket { frames, end, .. } =
        ws(serde_json::json!({"realtimeInput": {"audio": {"data": data, "mimeType": "audio/pcm;rate=0"}}}))
    else {
        panic!("a socket reply")
    };
    assert_eq!(end, SocketEnd::Open);
    assert!(frames.iter().any(|f| f.data.contains("Heard")), "{frames:?}");
    assert_eq!(mock.entries()[0].request.messages.last().unwrap().text(), "ok");
}
