//! The realtime sockets end to end: a WebSocket client (tokio-tungstenite) against `Server`, so the upgrade, the
//! pacing of a response, a cancel that cuts it short, closes both ways and the journal are what a client sees.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{MockModel, Scenario, Server, ServerOptions};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

fn serve(yaml: &str, instant: bool) -> (Server, Arc<MockModel>) {
    let mock = Arc::new(MockModel::from_scenario(&Scenario::from_yaml(yaml).unwrap()).unwrap());
    let server = Server::start_with(Arc::clone(&mock), ServerOptions { instant, ..ServerOptions::default() }).unwrap();
    (server, mock)
}

async fn connect(server: &Server, path: &str) -> Socket {
    let stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let url = format!("ws://{}{path}", server.addr());
    tokio_tungstenite::client_async(url, stream).await.unwrap().0
}

async fn send(socket: &mut Socket, event: Value) {
    socket.send(Message::text(event.to_string())).await.unwrap();
}

/// The next text message as JSON (failing the test after 5 s).
async fn next(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(Duration::from_secs(5), socket.next()).await.expect("a message in time");
        match message.expect("the socket is open").expect("a message") {
            Message::Text(text) => return serde_json::from_str(text.as_str()).unwrap(),
            Message::Close(frame) => panic!("closed: {frame:?}"),
            _ => {}
        }
    }
}

/// Messages up to and including the first of type `until`.
async fn until(socket: &mut Socket, until: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let event = next(socket).await;
        let done = event["type"] == until;
        seen.push(event);
        if done {
            return seen;
        }
    }
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect()
}

const TEXT_SESSION: &str = r#"{"type":"session.update","session":{"type":"realtime","output_modalities":["text"]}}"#;

#[tokio::test]
async fn a_realtime_text_turn_over_a_real_socket_is_journaled_both_ways() {
    let (server, mock) = serve("cuecard: 1\nroutes:\n  - steps:\n      - text: Hello there.\n", true);
    let mut socket = connect(&server, "/v1/realtime?model=gpt-realtime").await;
    assert_eq!(next(&mut socket).await["type"], "session.created");
    assert_eq!(next(&mut socket).await["type"], "conversation.created");
    send(&mut socket, serde_json::from_str(TEXT_SESSION).unwrap()).await;
    assert_eq!(next(&mut socket).await["type"], "session.updated");
    let item = json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]});
    send(&mut socket, json!({"type": "conversation.item.create", "item": item})).await;
    send(&mut socket, json!({"type": "response.create"})).await;
    let events = until(&mut socket, "response.done").await;
    let deltas: String = events
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "Hello there.");
    assert_eq!(events.last().unwrap()["response"]["status"], "completed");
    socket.close(None).await.unwrap();
    // The close reaches the core after the client's close frame: wait for it to be journaled.
    for _ in 0..100 {
        if mock.socket_events().last().is_some_and(|e| e.kind == "close") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let journal = mock.socket_events();
    let client: Vec<&str> = journal.iter().filter(|e| e.direction == "client").map(|e| e.kind.as_str()).collect();
    assert_eq!(client, ["open", "session.update", "conversation.item.create", "response.create", "close"]);
    assert_eq!(journal.iter().filter(|e| e.direction == "server").count(), 2 + 1 + events.len());
    // The response took a step: a model request journaled under `realtime`, with the user's text.
    let request = mock.request().unwrap();
    assert_eq!(request.metadata.endpoint.as_deref(), Some("realtime"));
    assert_eq!(request.messages.last().unwrap().text(), "hi");
}

#[tokio::test]
async fn a_cancel_cuts_a_paced_response_where_the_client_saw_it_end() {
    let yaml = "cuecard: 1\nroutes:\n  - steps:\n      - text: one two three four five six seven eight\n        token_delay_ms: 40\n";
    let (server, mock) = serve(yaml, false);
    let mut socket = connect(&server, "/v1/realtime").await;
    until(&mut socket, "conversation.created").await;
    send(&mut socket, serde_json::from_str(TEXT_SESSION).unwrap()).await;
    until(&mut socket, "session.updated").await;
    send(&mut socket, json!({"type": "response.create"})).await;
    let seen = until(&mut socket, "response.output_text.delta").await;
    assert_eq!(seen.last().unwrap()["delta"], "one");
    send(&mut socket, json!({"type": "response.cancel", "event_id": "stop"})).await;
    let rest = until(&mut socket, "response.done").await;
    let done = rest.last().unwrap();
    assert_eq!(done["response"]["status"], "cancelled");
    assert_eq!(done["response"]["status_details"]["reason"], "client_cancelled");
    let shown: String = rest
        .iter()
        .filter(|e| e["type"] == "response.output_text.delta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    let item_text = done["response"]["output"][0]["content"][0]["text"].as_str().unwrap();
    assert_eq!(item_text, format!("one{shown}"), "the item holds exactly the deltas the client saw");
    assert!(!item_text.contains("eight"), "{item_text}");
    assert!(types(&rest).contains(&"response.output_item.done"));
    // The journal keeps what crossed: no delta after the ones shown.
    let journaled: String = mock
        .socket_events()
        .iter()
        .filter(|e| e.kind == "response.output_text.delta")
        .map(|e| e.event["delta"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(journaled, item_text);
}

#[tokio::test]
async fn gemini_live_errors_are_closes_with_a_code_and_reason() {
    let (server, _mock) = serve("cuecard: 1\nroutes:\n  - steps:\n      - text: hi\n", true);
    let mut socket =
        connect(&server, "//ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent").await;
    send(&mut socket, json!({"clientContent": {"turns": [], "turnComplete": true}})).await;
    let message = tokio::time::timeout(Duration::from_secs(5), socket.next()).await.unwrap().unwrap().unwrap();
    let Message::Close(Some(frame)) = message else { panic!("expected a close, got {message:?}") };
    assert_eq!(u16::from(frame.code), 1007);
    assert_eq!(frame.reason.as_str(), "Request contains an invalid argument.");
}

#[tokio::test]
async fn a_connection_reset_step_cuts_the_socket_without_a_close_frame() {
    let yaml =
        "cuecard: 1\nroutes:\n  - steps:\n      - text: Cut short\n        fail_after: {kind: connection_reset}\n";
    let (server, _mock) = serve(yaml, true);
    let mut socket = connect(&server, "/v1/realtime").await;
    until(&mut socket, "conversation.created").await;
    send(&mut socket, json!({"type": "response.create"})).await;
    let mut ended = None;
    while ended.is_none() {
        match tokio::time::timeout(Duration::from_secs(5), socket.next()).await.unwrap() {
            Some(Ok(Message::Text(_))) => {}
            Some(Ok(Message::Close(frame))) => ended = Some(format!("close {frame:?}")),
            Some(Ok(_)) => {}
            Some(Err(e)) => ended = Some(format!("error {e}")),
            None => ended = Some("end".to_string()),
        }
    }
    let ended = ended.unwrap();
    assert!(!ended.starts_with("close"), "a cut sends no close frame: {ended}");
}

/// `wss://` and `https://` on the server's own port, trusted through the CA file it writes (feature `tls`).
#[cfg(feature = "tls")]
#[tokio::test]
async fn tls_serves_wss_and_https_on_the_same_port_with_a_ca_the_test_trusts() {
    use rustls_pki_types::pem::PemObject;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = std::env::temp_dir().join(format!("cuecard-tls-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca = dir.join("ca.pem");
    let mock = Arc::new(
        MockModel::from_scenario(
            &Scenario::from_yaml(
                "cuecard: 1\nroutes:\n  - steps:\n      - text: Secure hello.\n      - text: Plain hello.\n",
            )
            .unwrap(),
        )
        .unwrap(),
    );
    let options =
        ServerOptions { instant: true, tls_cert: Some(ca.to_string_lossy().into_owned()), ..ServerOptions::default() };
    let server = Server::start_with(Arc::clone(&mock), options).unwrap();
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_pki_types::CertificateDer::pem_file_iter(&ca).unwrap() {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let name = rustls_pki_types::ServerName::try_from("localhost").unwrap();
    // wss: a realtime session through the TLS connection.
    let tcp = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let tls = connector.connect(name.clone(), tcp).await.unwrap();
    let url = format!("wss://localhost:{}/v1/realtime", server.addr().port());
    let (mut socket, _) = tokio_tungstenite::client_async(url, tls).await.unwrap();
    let first = socket.next().await.unwrap().unwrap();
    assert!(first.to_text().unwrap().contains("session.created"), "{first:?}");
    socket.send(Message::text(TEXT_SESSION)).await.unwrap();
    socket.send(Message::text(r#"{"type":"response.create"}"#)).await.unwrap();
    let mut text = String::new();
    while let Some(Ok(message)) = socket.next().await {
        let event: Value = serde_json::from_str(message.to_text().unwrap()).unwrap();
        if event["type"] == "response.output_text.delta" {
            text.push_str(event["delta"].as_str().unwrap());
        }
        if event["type"] == "response.done" {
            break;
        }
    }
    assert_eq!(text, "Secure hello.");
    // https and plain http on the same port.
    let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let tcp = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    tls.write_all(request.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    let _ = tls.read_to_end(&mut reply).await;
    assert!(String::from_utf8_lossy(&reply).contains("Plain hello."), "{}", String::from_utf8_lossy(&reply));
    std::fs::remove_dir_all(&dir).ok();
}
