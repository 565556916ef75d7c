//! Cost of one scripted call in-process: whole answers, streams, tool calls, scenario parsing, and one request
//! through the wire layer (what the server does per request, without the network).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use cuecard::wire::{self, HttpRequest};
use cuecard::{ChatRequest, MockModel, Scenario, Step};
use serde_json::json;
use std::hint::black_box;

// The allocator of `cuecard serve` (cli/src/main.rs): the wire benchmarks stand for its cost per request.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn calls(c: &mut Criterion) {
    let request = ChatRequest::user("gpt-4o", "What is the weather in Paris today?").with_operation("weather");
    let text = MockModel::builder().responds("The weather in Paris is sunny, 22 degrees.").repeats().build().unwrap();
    c.bench_function("mock/chat_text", |b| b.iter(|| text.chat(black_box(&request)).unwrap()));
    // A stream's events are made as they are read: each benchmark reads them all, as a host does.
    let events = |mock: &MockModel| mock.chat_stream(black_box(&request)).unwrap().events().len();
    c.bench_function("mock/chat_stream_text", |b| b.iter(|| events(&text)));
    // A long answer: 200 word-like tokens, the size the Node and Python stream benchmarks use.
    let long_text = vec!["word"; 200].join(" ");
    let long = MockModel::builder().responds(long_text).repeats().build().unwrap();
    c.bench_function("mock/chat_stream_200_tokens", |b| b.iter(|| events(&long)));
    let tool = MockModel::new();
    tool.add_step(Step::compute(|_: &ChatRequest| Ok(Step::tool_call("get_weather", &json!({"city": "Paris"})))))
        .unwrap();
    tool.then_repeats().unwrap();
    c.bench_function("mock/chat_stream_tool_call", |b| b.iter(|| events(&tool)));
    let bounded = MockModel::builder().responds("ok").repeats().build().unwrap();
    bounded.set_journal_limit(Some(0));
    c.bench_function("mock/chat_text_bounded_journal", |b| b.iter(|| bounded.chat(black_box(&request)).unwrap()));
    let scenario = r#"{"cuecard":1,"usage":"estimate","routes":[{"match":{"operation":"a"},"steps":[{"text":"x"},{"fail":{"kind":"rate_limited"}}]},{"steps":[{"tool_calls":[{"name":"f","arguments":{"q":1}}]},{"text":"done"}]}]}"#;
    c.bench_function("scenario/parse_and_build", |b| {
        b.iter(|| MockModel::from_scenario(&Scenario::from_json(black_box(scenario)).unwrap()).unwrap())
    });
}

/// bench/load.json's answer (75 tokens): what the wire and realtime benchmarks answer.
const ANSWER: &str = "The weather in Paris is sunny, 22 degrees. Tomorrow brings light rain in the morning, clearing \
    by noon, with a high of 19 degrees and a gentle westerly breeze. Carry an umbrella if you head out early; by \
    evening the sky should be clear enough for a walk along the river, and the forecast for the weekend stays dry \
    and mild, with sunshine on both days and temperatures around twenty degrees.";

/// One request through the wire layer, as the server answers it: the body parsed and decoded, the step taken and
/// journaled (bounded, as `serve` is by default), the reply encoded. The answer is bench/load.json's (75 tokens).
fn wire_requests(c: &mut Criterion) {
    let answer = ANSWER;
    let mock = MockModel::builder().responds(answer).repeats().build().unwrap();
    mock.set_journal_limit(Some(1000));
    let request = |stream: bool| {
        HttpRequest {
        method: "POST".into(),
        path: "/v1/chat/completions".into(),
        query: String::new(),
        headers: vec![("content-type".into(), "application/json".into())],
        mount: String::new(),
        body: format!(
            r#"{{"model":"gpt-4o","stream":{stream},"messages":[{{"role":"user","content":"What is the weather in Paris?"}}]}}"#
        )
        .into_bytes(),
        admin_token_checked: false,
    }
    };
    let (whole, streamed) = (request(false), request(true));
    // A stream's frames are made as they are sent: the stream benchmarks take them all, as the server does.
    let sent = |request: &HttpRequest| match wire::handle(&mock, black_box(request)) {
        wire::HttpReply::Stream { frames, .. } => frames.iter().map(|frame| frame.data.len()).sum::<usize>(),
        other => other.body_text().len(),
    };
    c.bench_function("wire/chat_completion", |b| b.iter(|| wire::handle(&mock, black_box(&whole))));
    c.bench_function("wire/chat_completion_stream", |b| b.iter(|| sent(&streamed)));
    let messages_stream = HttpRequest {
        path: "/v1/messages".into(),
        headers: vec![("content-type".into(), "application/json".into()), ("anthropic-version".into(), "2023-06-01".into())],
        body: br#"{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"What is the weather in Paris?"}]}"#.to_vec(),
        ..request(true)
    };
    c.bench_function("wire/messages_stream", |b| b.iter(|| sent(&messages_stream)));
    let responses_stream = HttpRequest {
        path: "/v1/responses".into(),
        body: br#"{"model":"gpt-4o","stream":true,"input":"What is the weather in Paris?"}"#.to_vec(),
        ..request(true)
    };
    c.bench_function("wire/responses_stream", |b| b.iter(|| sent(&responses_stream)));
}

/// A scripted audio response on a realtime socket, through the face as a transport drives it: the socket opened,
/// the session set to speak, `response.create` answered with every event (the 75-token answer spoken in
/// cuecard's voice, audio and transcript deltas), and the socket closed. Reported in events per second.
fn realtime_audio(c: &mut Criterion) {
    let answer = ANSWER;
    let mock = MockModel::builder().responds(answer).repeats().build().unwrap();
    mock.set_journal_limit(Some(1000));
    let message = |socket: &str, body: &str| {
        HttpRequest::new(
            "WS",
            "/v1/realtime",
            vec![("x-cuecard-socket".into(), socket.into())],
            body.as_bytes().to_vec(),
        )
    };
    let upgrade = HttpRequest::new(
        "GET",
        "/v1/realtime?model=gpt-realtime",
        vec![("upgrade".into(), "websocket".into())],
        Vec::new(),
    );
    let session = r#"{"type":"session.update","session":{"type":"realtime","output_modalities":["audio"]}}"#;
    let frames = |reply: wire::HttpReply| match reply {
        wire::HttpReply::Socket { frames, .. } => frames.len(),
        _ => 0,
    };
    let response = || {
        let wire::HttpReply::Socket { socket, .. } = wire::handle(&mock, &upgrade) else { return 0 };
        frames(wire::handle(&mock, &message(&socket, session)));
        let events = frames(wire::handle(&mock, black_box(&message(&socket, r#"{"type":"response.create"}"#))));
        let closed = HttpRequest {
            headers: vec![
                ("x-cuecard-socket".into(), socket.clone()),
                ("x-cuecard-socket-closed".into(), "1000".into()),
            ],
            ..message(&socket, "")
        };
        wire::handle(&mock, &closed);
        events
    };
    let events = response() as u64;
    let mut group = c.benchmark_group("realtime");
    group.throughput(criterion::Throughput::Elements(events));
    group.bench_function("audio_response", |b| b.iter(response));
    group.finish();
}

criterion_group!(benches, calls, wire_requests, realtime_audio);
criterion_main!(benches);
