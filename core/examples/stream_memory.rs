//! Heap bytes a streamed answer holds before its first byte is sent, counted exactly by a counting allocator: the
//! events of a step whose text is N bytes (in process), and the wire reply built from them, per protocol. A
//! measurement for the "lazy stream frames" work (issue "Hardening, round two", item 4), not a test:
//! `cargo run --release -p cuecard --features server --example stream_memory [TEXT_BYTES]`.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use cuecard::wire::{handle, HttpRequest};
use cuecard::MockModel;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

// SAFETY: passed through to the system allocator; only counters are updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed) + layout.size() as isize;
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let now = LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed) + new_size as isize
            - layout.size() as isize;
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn main() {
    let size: usize = std::env::args().nth(1).map_or(1_000_000, |n| n.parse().expect("TEXT_BYTES is a number"));
    // Words of 1 to 4 digits after a letter: about 1.7 word-like tokens per word.
    let text: String = (0..size / 2).map(|i| format!("w{} ", i % 1000)).collect::<String>();
    let text = &text[..size];
    let mock = MockModel::builder().responds(text).repeats().build().unwrap();
    mock.set_journal_limit(Some(0));
    let anthropic = r#"{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    for (path, body) in [
        ("/v1/chat/completions", r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}"#),
        ("/v1/messages", anthropic),
        ("/v1/responses", r#"{"model":"m","stream":true,"input":"hi"}"#),
        ("/v1beta/models/m:streamGenerateContent", r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#),
        ("/api/chat", r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#),
        ("/model/m/converse-stream", r#"{"messages":[{"role":"user","content":[{"text":"hi"}]}]}"#),
    ] {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let stream = mock.chat_stream(&cuecard::ChatRequest::user("m", "hi")).unwrap();
        let events = LIVE.load(Ordering::Relaxed) - before;
        let peak_events = PEAK.load(Ordering::Relaxed) - before;
        drop(stream);
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let reply = handle(&mock, &HttpRequest::post_json(path, body));
        let held = LIVE.load(Ordering::Relaxed) - before;
        let peak = PEAK.load(Ordering::Relaxed) - before;
        let times = |bytes: isize| bytes as f64 / text.len() as f64;
        println!(
            "{path}: events {events} B ({:.0}x the text, peak {:.0}x); the reply holds {held} B ({:.0}x, status {}), \
             peak while building it {peak} B ({:.0}x)",
            times(events),
            times(peak_events),
            times(held),
            reply.status(),
            times(peak)
        );
        drop(reply);
    }
}
