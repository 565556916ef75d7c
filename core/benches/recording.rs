//! Recordings: loading one, and replaying its exchanges in order as a test suite does (each request matched
//! against the recording's routes by its canonical request). The recording is made here by core's recorder from a
//! mock upstream: 1,000 distinct chat requests, each answered with a paragraph; `load/15MB` is one whose answers
//! are long enough to make the file about 15 MB.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use cuecard::record::{RecordOptions, Recorder, UpstreamReply};
use cuecard::wire::{self, HttpReply, HttpRequest};
use cuecard::{MockModel, Scenario};
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Request `i`: a system prompt, and a user question of its own.
fn request(i: usize) -> HttpRequest {
    let body = format!(
        r#"{{"model":"gpt-4o","messages":[{{"role":"system","content":"You are a weather assistant. Answer in one paragraph."}},{{"role":"user","content":"What is the weather in city number {i} today?"}}],"temperature":0.2}}"#
    );
    HttpRequest::post_json("/v1/chat/completions", &body)
}

/// A recording of `n` exchanges whose answers are `answer_words` words long, as YAML or JSON text.
fn recording(n: usize, answer_words: usize, yaml: bool) -> String {
    let answer = vec!["sunny"; answer_words].join(" ");
    let steps: Vec<_> = (0..n).map(|_| serde_json::json!({"text": answer})).collect();
    let upstream = MockModel::from_scenario(
        &Scenario::from_value(serde_json::json!({"cuecard": 1, "routes": [{"steps": steps}]})).unwrap(),
    )
    .unwrap();
    let mut recorder = Recorder::new(RecordOptions::default()).unwrap();
    for i in 0..n {
        let request = request(i);
        let HttpReply::Full { status, headers, body, .. } = wire::handle(&upstream, &request) else { unreachable!() };
        let headers = headers.into_iter().map(|(name, value)| (name.into_owned(), value.into_owned())).collect();
        let reply = UpstreamReply { status, headers, headers_ms: 0, chunks: vec![(0, body.into_bytes())], cut: false };
        recorder.record(&request, &reply).unwrap();
    }
    recorder.to_text(yaml).unwrap()
}

fn replay(c: &mut Criterion) {
    let text = recording(1000, 40, true);
    let scenario = Scenario::from_yaml(&text).unwrap();
    let requests: Vec<HttpRequest> = (0..1000).map(request).collect();
    let mut group = c.benchmark_group("recording");
    group.sample_size(10);
    // All 1,000 exchanges replayed in order through the wire layer (per iteration: 1,000 calls).
    group.bench_function("replay_1000_in_order", |b| {
        b.iter_batched(
            || MockModel::from_scenario(&scenario).unwrap(),
            |mock| {
                for request in &requests {
                    black_box(wire::handle(&mock, request));
                }
            },
            BatchSize::PerIteration,
        )
    });
    group.bench_function("load_1000_exchanges_yaml", |b| {
        b.iter(|| MockModel::from_scenario(&Scenario::from_yaml(black_box(&text)).unwrap()).unwrap())
    });
    for (name, yaml) in [("load_15MB_yaml", true), ("load_15MB_json", false)] {
        let big = recording(1000, 1200, yaml);
        eprintln!("recording/{name}: the file is {:.1} MB", big.len() as f64 / 1e6);
        let parse = move |text: &str| if yaml { Scenario::from_yaml(text) } else { Scenario::from_json(text) };
        group.bench_function(name, |b| b.iter(|| MockModel::from_scenario(&parse(black_box(&big)).unwrap()).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, replay);
criterion_main!(benches);
