//! The book's example (Rust): a test records its model calls once through `RecordingProxy` and replays them after.
//! Here the "provider" is a local cuecard server; in a real suite it is the API the client would call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cuecard::record::{recording_path_for_test, ProxyOptions, RecordMode, RecordingProxy, RecordingSettings};
use cuecard::{MockModel, Server};
use std::io::{Read, Write};
use std::sync::Arc;

/// One POST over HTTP/1.1 (any HTTP client does; the test needs none): the status and the body.
fn post(base_url: &str, path: &str, body: &str) -> (u16, String) {
    let address = base_url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "POST {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\nauthorization: Bearer sk-live-0123456789abcdefghij\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}", body.len()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

#[test]
fn weather() {
    let dir = std::env::temp_dir().join(format!("cuecard-readme-recording-{}", std::process::id()));
    // recordings/<module>/<test>.yaml, the path every language's test runner uses.
    let path = dir.join(recording_path_for_test("recording_proxy", &["weather"]));
    let question = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Weather in Paris?"}]}"#;

    // Record once: what the file lacks goes to the upstream and is written after each exchange.
    let provider =
        Server::start(Arc::new(MockModel::builder().responds("Sunny, 22 degrees.").build().unwrap())).unwrap();
    let settings = RecordingSettings {
        mode: RecordMode::Once,
        upstream: vec![provider.base_url()],
        allow_in_ci: true,
        ..Default::default()
    };
    let proxy = RecordingProxy::start(&path, &settings, &ProxyOptions::default()).unwrap();
    let (status, recorded) = post(&proxy.base_url(), "/v1/chat/completions", question);
    assert_eq!((status, proxy.recorded()), (200, 1));
    proxy.stop();
    provider.stop();
    assert!(!std::fs::read_to_string(&path).unwrap().contains("sk-live-"));

    // Replay (mode none, CUECARD_RECORD's default): the same bytes, with no provider at all.
    let replay = RecordingProxy::start(&path, &RecordingSettings::default(), &ProxyOptions::default()).unwrap();
    assert_eq!(post(&replay.base_url(), "/v1/chat/completions", question), (200, recorded));
    let (status, miss) = post(&replay.base_url(), "/v1/chat/completions", &question.replace("Paris", "Lyon"));
    assert_eq!(status, 422);
    assert!(miss.contains(r#"messages[0].content[0].text: \"Weather in Paris?\" != \"Weather in Lyon?\""#), "{miss}");
    // The replay's journal: one request answered, one miss, each once.
    assert_eq!(replay.replay_mock().unwrap().request_count(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}
