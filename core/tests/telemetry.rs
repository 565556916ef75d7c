//! OpenTelemetry export end to end: a server with `otlp_endpoint` posts its spans to a receiver here, which decodes
//! them with the OTLP message types; one span per mocked call, inside the caller's trace.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{MockModel, Scenario, Server, ServerOptions};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::{span::SpanKind, status::StatusCode, Span};
use prost::Message;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// What the receiver got: each request's line, content type and body.
type Received = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;

/// A minimal OTLP/HTTP receiver: every POST body it gets (protobuf), answered 200 with an empty response.
fn receiver() -> (String, Received) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let mut reader = BufReader::new(stream);
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let (mut length, mut content_type) = (0, String::new());
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                let (name, value) = line.split_once(':').unwrap();
                match name.to_ascii_lowercase().as_str() {
                    "content-length" => length = value.trim().parse().unwrap(),
                    "content-type" => content_type = value.trim().to_string(),
                    _ => {}
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            kept.lock().unwrap().push((request_line.trim().to_string(), content_type, body));
            let mut stream = reader.into_inner();
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (url, received)
}

fn post(server: &Server, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    let extra: String = headers.iter().map(|(n, v)| format!("{n}: {v}\r\n")).collect();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\ncontent-type: application/json\r\n{extra}content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

fn string(span: &Span, key: &str) -> Option<String> {
    span.attributes.iter().find(|kv| kv.key == key).and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
        Any::StringValue(s) => Some(s.clone()),
        Any::IntValue(i) => Some(i.to_string()),
        Any::ArrayValue(a) => Some(format!("{:?}", a.values.iter().map(|v| v.value.clone()).collect::<Vec<_>>())),
        other => Some(format!("{other:?}")),
    })
}

#[test]
fn every_mocked_call_is_one_span_inside_the_callers_trace() {
    let (url, received) = receiver();
    let scenario = serde_json::json!({"cuecard": 1, "routes": [{"steps": [
        {"text": "Sunny.", "usage": {"input_tokens": 7, "output_tokens": 2}},
        {"fail": {"kind": "rate_limited"}},
        {"text": "streamed answer"}
    ]}]});
    let mock = Arc::new(MockModel::from_scenario(&Scenario::from_value(scenario).unwrap()).unwrap());
    let options = ServerOptions { instant: true, otlp_endpoint: Some(url), ..ServerOptions::default() };
    let server = Server::start_with(mock, options).unwrap();
    let chat = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"weather?"}]}"#;
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    assert!(post(&server, "/v1/chat/completions", &[("traceparent", traceparent)], chat).contains("Sunny."));
    assert!(post(&server, "/v1/chat/completions", &[], chat).starts_with("HTTP/1.1 429"));
    let stream = r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"go"}]}"#;
    assert!(post(&server, "/t/checkout/v1/chat/completions", &[], stream).contains("[DONE]"));
    // Not mocked calls: no spans.
    post(&server, "/_cuecard/reset", &[], "");
    server.stop(); // sends what is queued

    let received = received.lock().unwrap();
    assert!(!received.is_empty(), "nothing was exported");
    for (line, content_type, _) in received.iter() {
        assert_eq!(line, "POST /v1/traces HTTP/1.1");
        assert_eq!(content_type, "application/x-protobuf");
    }
    let spans: Vec<Span> = received
        .iter()
        .flat_map(|(_, _, body)| ExportTraceServiceRequest::decode(body.as_slice()).unwrap().resource_spans)
        .flat_map(|resource| resource.scope_spans)
        .flat_map(|scope| scope.spans)
        .collect();
    assert_eq!(spans.len(), 3, "{spans:#?}");
    let (answered, failed, streamed) = (&spans[0], &spans[1], &spans[2]);
    assert!(spans.iter().all(|s| s.name == "chat gpt-4o" && s.kind == SpanKind::Server as i32));
    // The first sits inside the caller's trace, under its span.
    assert_eq!(hex(&answered.trace_id), "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(hex(&answered.parent_span_id), "b7ad6b7169203331");
    assert!(failed.parent_span_id.is_empty(), "no traceparent: a root span");
    assert_eq!(string(answered, "gen_ai.provider.name").as_deref(), Some("openai"));
    assert_eq!(string(answered, "gen_ai.usage.input_tokens").as_deref(), Some("7"));
    assert_eq!(string(answered, "gen_ai.usage.output_tokens").as_deref(), Some("2"));
    assert_eq!(string(answered, "cuecard.step").as_deref(), Some("0"));
    assert_eq!(string(failed, "error.type").as_deref(), Some("rate_limited"));
    assert_eq!(string(failed, "http.response.status_code").as_deref(), Some("429"));
    assert_eq!(failed.status.as_ref().map(|s| s.code), Some(StatusCode::Error as i32));
    // The streamed call belongs to test "checkout", whose own copy of the script answered it from its first step.
    assert_eq!(string(streamed, "cuecard.test.id").as_deref(), Some("checkout"));
    assert_eq!(string(streamed, "cuecard.step").as_deref(), Some("0"));
    assert_eq!(string(streamed, "url.path").as_deref(), Some("/v1/chat/completions"));
    assert!(streamed.end_time_unix_nano >= streamed.start_time_unix_nano);
}

#[test]
fn an_endpoint_that_is_not_http_is_refused_when_the_server_starts() {
    let options = ServerOptions { otlp_endpoint: Some("grpc://127.0.0.1:4317".into()), ..ServerOptions::default() };
    let error = Server::start_with(Arc::new(MockModel::new()), options).unwrap_err();
    assert_eq!(error.kind(), cuecard::ErrorKind::InvalidArgument);
    assert!(error.message().contains("is not an http:// URL"), "{error}");
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
