//! Cost of one scripted call in-process: whole answers, streams, tool calls, scenario parsing.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use cuecard::{ChatRequest, MockModel, Scenario, Step};
use serde_json::json;
use std::hint::black_box;

fn calls(c: &mut Criterion) {
    let request = ChatRequest::user("gpt-4o", "What is the weather in Paris today?").with_operation("weather");
    let text = MockModel::builder().responds("The weather in Paris is sunny, 22 degrees.").repeats().build().unwrap();
    c.bench_function("mock/chat_text", |b| b.iter(|| text.chat(black_box(&request)).unwrap()));
    c.bench_function("mock/chat_stream_text", |b| b.iter(|| text.chat_stream(black_box(&request)).unwrap()));
    // A long answer: 200 word-like tokens, the size the Node and Python stream benchmarks use.
    let long_text = vec!["word"; 200].join(" ");
    let long = MockModel::builder().responds(long_text).repeats().build().unwrap();
    c.bench_function("mock/chat_stream_200_tokens", |b| b.iter(|| long.chat_stream(black_box(&request)).unwrap()));
    let tool = MockModel::new();
    tool.add_step(Step::compute(|_: &ChatRequest| Ok(Step::tool_call("get_weather", &json!({"city": "Paris"})))))
        .unwrap();
    tool.then_repeats().unwrap();
    c.bench_function("mock/chat_stream_tool_call", |b| b.iter(|| tool.chat_stream(black_box(&request)).unwrap()));
    let bounded = MockModel::builder().responds("ok").repeats().build().unwrap();
    bounded.set_journal_limit(Some(0));
    c.bench_function("mock/chat_text_bounded_journal", |b| b.iter(|| bounded.chat(black_box(&request)).unwrap()));
    let scenario = r#"{"cuecard":1,"usage":"estimate","routes":[{"match":{"operation":"a"},"steps":[{"text":"x"},{"fail":{"kind":"rate_limited"}}]},{"steps":[{"tool_calls":[{"name":"f","arguments":{"q":1}}]},{"text":"done"}]}]}"#;
    c.bench_function("scenario/parse_and_build", |b| {
        b.iter(|| MockModel::from_scenario(&Scenario::from_json(black_box(scenario)).unwrap()).unwrap())
    });
}

criterion_group!(benches, calls);
criterion_main!(benches);
