//! Recordings: loading one, and replaying its exchanges in order as a test suite does (each request matched
//! against the recording's routes by its canonical request). The recording is made here by core's recorder from a
//! mock upstream: 1,000 distinct chat requests, each answered with a paragraph; `load/15MB` is one whose answers
//! are long enough to make the file about 15 MB. `record_at/N` is one more exchange recorded into a recording file
//! that already holds N (written to disk: the cost a recording proxy adds to an exchange).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use cuecard::record::{RecordMode, RecordOptions, Recorder, RecordingFile, RecordingSettings, UpstreamReply};
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

/// The upstream's reply to `request`, as a proxy saw it arrive.
fn upstream_reply(upstream: &MockModel, request: &HttpRequest) -> UpstreamReply {
    let HttpReply::Full { status, headers, body, .. } = wire::handle(upstream, request) else { unreachable!() };
    let headers = headers.into_iter().map(|(name, value)| (name.into_owned(), value.into_owned())).collect();
    UpstreamReply { status, headers, headers_ms: 0, chunks: vec![(0, body.into_bytes())], cut: false }
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
        recorder.record(&request, &upstream_reply(&upstream, &request)).unwrap();
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
        // The floor under each load: the text format's parser reading the file into the JSON value the scenario
        // is read from (neither parser is ours; what the load adds over it is).
        let floor = format!("parse_15MB_{}_to_value", if yaml { "yaml" } else { "json" });
        group.bench_function(floor, |b| {
            b.iter(|| {
                let text = black_box(&big);
                let value: serde_json::Value =
                    if yaml { serde_yaml_ng::from_str(text).unwrap() } else { serde_json::from_str(text).unwrap() };
                value
            })
        });
    }
    group.finish();
}

/// One more exchange written to a recording file of 1, 1,000 and 10,000 (issue #59 S3: it was the whole file each
/// time, 309 ms an exchange at 1,500).
fn record(c: &mut Criterion) {
    let upstream = MockModel::from_scenario(
        &Scenario::from_value(serde_json::json!({"cuecard": 1, "on_exhausted": "repeat_last",
            "routes": [{"steps": [{"text": vec!["sunny"; 40].join(" ")}]}]}))
        .unwrap(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("cuecard-bench-record-{}", std::process::id()));
    let mut group = c.benchmark_group("recording");
    group.sample_size(20);
    for held in [1usize, 1_000, 10_000] {
        let path = dir.join(format!("at-{held}.yaml"));
        let settings = RecordingSettings { mode: RecordMode::All, allow_in_ci: true, ..RecordingSettings::default() };
        let mut file = RecordingFile::open_with(&path, &settings).unwrap();
        for i in 0..held {
            file.record(&request(i), &upstream_reply(&upstream, &request(i))).unwrap();
        }
        let mut next = held;
        group.bench_function(format!("record_at/{held}"), |b| {
            b.iter_batched(
                || {
                    next += 1;
                    let request = request(next);
                    let reply = upstream_reply(&upstream, &request);
                    (request, reply)
                },
                |(request, reply)| file.record(&request, &reply).unwrap(),
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, replay, record);
criterion_main!(benches);
