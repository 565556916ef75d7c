//! Heap bytes the journal keeps per request, counted exactly by a counting allocator (RSS would also count the
//! allocator's own slack): small chat requests in process, then over the in-process wire (which also keeps the
//! raw HTTP body), each against a one-step repeating script with an unbounded journal. The goal is at most 1,000
//! bytes per entry either way. The test also prints what one entry's parts cost, so that the figure can be
//! explained: `cargo test -p cuecard --features server --test journal_memory -- --nocapture`.
//!
//! This file is its own test binary with one test, so no other test allocates while it counts.
#![cfg(feature = "server")]
#![allow(clippy::print_stderr, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use cuecard::wire::{handle, HttpRequest};
use cuecard::{ChatRequest, MockModel};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// The system allocator, counting the bytes it has handed out and not taken back.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed through to the system allocator unchanged; only a counter is updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `alloc` is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `dealloc` is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract for `realloc` is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> isize {
    LIVE_BYTES.load(Ordering::Relaxed)
}

const BODY: &str =
    r#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"What is the weather in Paris today?"}]}"#;

fn small_request() -> ChatRequest {
    ChatRequest::user("gpt-4o-mini", "What is the weather in Paris today?")
}

fn mock() -> MockModel {
    MockModel::builder().responds("It is sunny in Paris, 21 degrees.").repeats().build().unwrap()
}

/// Bytes that `make` leaves allocated, per call, over `n` calls.
fn per_call(n: usize, mut make: impl FnMut()) -> f64 {
    let before = live();
    for _ in 0..n {
        make();
    }
    (live() - before) as f64 / n as f64
}

#[test]
fn a_small_chat_request_keeps_about_a_kilobyte_in_the_journal() {
    let n = 20_000;

    let in_process = mock();
    let request = small_request();
    let chat = per_call(n, || drop(in_process.chat(&request).unwrap()));
    assert_eq!(in_process.request_count(), n as u64);

    let over_wire = mock();
    let http = HttpRequest {
        method: "POST".into(),
        path: "/v1/chat/completions".into(),
        query: String::new(),
        headers: vec![("content-type".into(), "application/json".into())],
        body: BODY.as_bytes().to_vec(),
        admin_token_checked: false,
        mount: String::new(),
    };
    let wire = per_call(n, || drop(handle(&over_wire, &http)));
    assert_eq!(over_wire.request_count(), n as u64);

    // The parts of one entry.
    let entry = in_process.entry(0).unwrap();
    let request_copy = per_call(1, || std::mem::forget(Box::new((*entry.request).clone())));
    let response = entry.response.clone().unwrap();
    let response_copy = per_call(1, || std::mem::forget(Box::new((*response).clone())));
    let wire_entry = over_wire.entry(0).unwrap();
    let raw = wire_entry.raw.clone().unwrap();
    let raw_copy = per_call(1, || std::mem::forget(raw.clone()));

    eprintln!("journal bytes per request ({n} small chat requests, unbounded journal):");
    eprintln!("  in process (MockModel::chat):        {chat:>7.0}");
    eprintln!("  over the wire (wire::handle):        {wire:>7.0}");
    eprintln!("one entry's parts:");
    eprintln!("  the entry in the journal's ring:     {:>7}", std::mem::size_of::<cuecard::JournalEntry>());
    eprintln!("  the request (boxed, deep copy):      {request_copy:>7.0}");
    eprintln!("  the response (deep copy):            {response_copy:>7.0}");
    eprintln!("  the raw HTTP request (wire only):    {raw_copy:>7.0}");
    // About a kilobyte. Over the wire it was 994 until the raw request kept a `contracts: warn` violation (one
    // pointer, which moved its allocation up a size class): 1019. Then the journal began to share the decoded
    // request with the call instead of copying it (no copy per request, 2k instructions less): an `Arc`'s two
    // counts are 16 bytes more, and a contract violation's texts boxed took 8 off every entry: 1027. Then the
    // journal began to share the response with the call in the same way (a whole answer's reply is encoded from
    // the journal's response, not from a copy: 3 allocations less per request): 16 bytes more again, 1043. Hence
    // 1056.
    assert!(chat <= 1056.0, "{chat} bytes per request in process");
    assert!(wire <= 1056.0, "{wire} bytes per request over the wire");
    eprintln!(
        "sizes: ChatRequest {}, Message {}, ContentPart {}, ChatResponse {}, RequestMetadata {}, ToolChoice {}, ResponseFormat {}",
        std::mem::size_of::<ChatRequest>(),
        std::mem::size_of::<cuecard::Message>(),
        std::mem::size_of::<cuecard::ContentPart>(),
        std::mem::size_of::<cuecard::ChatResponse>(),
        std::mem::size_of::<cuecard::model::RequestMetadata>(),
        std::mem::size_of::<Option<cuecard::model::ToolChoice>>(),
        std::mem::size_of::<Option<cuecard::model::ResponseFormat>>(),
    );
}
