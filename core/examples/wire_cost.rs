//! What one request through the wire layer costs in allocations, counted exactly (no timing noise): bench/load.json's
//! answer (75 tokens) as a whole chat completion, a whole Responses answer and a whole Gemini answer, and streamed by Chat Completions,
//! Anthropic Messages, OpenAI Responses, Gemini (SSE), Ollama (NDJSON) and Bedrock's ConverseStream (AWS event-stream
//! frames), against a bounded journal as `serve` keeps it.
//!
//!     cargo run --profile bench -p cuecard --features server --example wire_cost -- [REQUESTS] \
//!         [whole|stream|messages|responses_whole|responses|gemini_whole|gemini_stream|ollama_stream|converse_stream]
//!
//! Instructions per request, exact as well, from cachegrind over two request counts (the difference cancels the
//! start-up): `bench/wire-cost.sh`. Timings are noisy on a shared VM; these counts are not, so an A/B of a change to
//! the request path reads them first.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing, missing_docs)]

use cuecard::wire::{self, HttpRequest};
use cuecard::MockModel;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting allocations (a `realloc` counts as one) and the bytes asked for.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed through to the system allocator unchanged; only counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let requests: u64 = std::env::args().nth(1).map_or(1000, |n| n.parse().expect("REQUESTS is a number"));
    let only = std::env::args().nth(2).unwrap_or_default();
    let scenario: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("bench/load.json").expect("run from the repository root"))
            .unwrap();
    let answer = scenario["routes"][0]["steps"][0]["text"].as_str().unwrap().to_string();
    let mock = MockModel::builder().responds(answer).repeats().build().unwrap();
    mock.set_journal_limit(Some(1000)); // as `serve` does by default
    let question = r#""messages":[{"role":"user","content":"What is the weather in Paris?"}]"#;
    let gemini = r#"{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}]}"#.to_string();
    let requests_by_name = [
        ("whole", "/v1/chat/completions", format!(r#"{{"model":"gpt-4o",{question}}}"#)),
        ("stream", "/v1/chat/completions", format!(r#"{{"model":"gpt-4o","stream":true,{question}}}"#)),
        (
            "messages",
            "/v1/messages",
            format!(r#"{{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,{question}}}"#),
        ),
        (
            "responses_whole",
            "/v1/responses",
            r#"{"model":"gpt-4o","input":"What is the weather in Paris?"}"#.to_string(),
        ),
        (
            "responses",
            "/v1/responses",
            r#"{"model":"gpt-4o","stream":true,"input":"What is the weather in Paris?"}"#.to_string(),
        ),
        ("gemini_whole", "/v1beta/models/gemini-2.5-flash:generateContent", gemini.clone()),
        ("gemini_stream", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", gemini),
        ("ollama_stream", "/api/chat", format!(r#"{{"model":"qwen3","stream":true,{question}}}"#)),
        (
            "converse_stream",
            "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream",
            r#"{"messages":[{"role":"user","content":[{"text":"What is the weather in Paris?"}]}]}"#.to_string(),
        ),
    ];
    for (name, path, body) in requests_by_name {
        if !only.is_empty() && only != name {
            continue;
        }
        let request = HttpRequest::post_json(path, &body)
            .with_header("content-type", "application/json")
            .with_header("anthropic-version", "2023-06-01");
        for _ in 0..100 {
            sent(wire::handle(&mock, &request)); // the journal's ring fills, the allocator warms up
        }
        let (allocations, bytes) = (ALLOCATIONS.load(Ordering::Relaxed), BYTES.load(Ordering::Relaxed));
        for _ in 0..requests {
            std::hint::black_box(sent(wire::handle(&mock, std::hint::black_box(&request))));
        }
        let per_request =
            |counter: &AtomicU64, before: u64| (counter.load(Ordering::Relaxed) - before) / requests.max(1);
        println!(
            "{name:<13} {:>4} allocations, {:>6} bytes allocated per request",
            per_request(&ALLOCATIONS, allocations),
            per_request(&BYTES, bytes)
        );
    }
}

/// The bytes a reply sends: a stream's frames are made as they are sent, so each is taken, as the server does.
fn sent(reply: wire::HttpReply) -> usize {
    match reply {
        wire::HttpReply::Stream { frames, .. } => frames.iter().map(|frame| frame.data.len()).sum(),
        other => other.body_text().len(),
    }
}
