//! Heap bytes a streamed answer holds, counted exactly by a counting allocator, for a step whose text is 400 kB: the
//! stream in process, the wire reply before its first byte, and the most held while its frames are taken one at a
//! time (as the server sends them), per protocol. Built whole, a reply held 66-140 times its text before its first
//! byte (issue "Hardening, round two", item 4); made lazily, about twice, and sending adds one frame at a time.
//! Its own test binary: the allocator counts every allocation of the process, so this file holds one test.
//! `cargo test --release -p cuecard --test stream_memory -- --nocapture` prints the figures.
#![allow(clippy::print_stderr, clippy::unwrap_used, clippy::expect_used, missing_docs)]

use cuecard::wire::{handle, HttpReply, HttpRequest};
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

/// What a reply may hold, in multiples of its text: the plan's copy of the text and the response's (2), and room.
const HELD_AT_MOST: f64 = 4.0;
/// What taking its frames may add: one frame and the event it is made of. The largest is the Responses API's last
/// frame, which repeats the whole text four times (`output_text.done`, its part, its item, `response.completed`)
/// as the real API does, with the JSON trees it is written from.
const SENDING_AT_MOST: f64 = 16.0;

#[test]
fn a_streamed_reply_holds_about_its_text_and_makes_its_frames_one_at_a_time() {
    let size = 400_000; // the ratios do not depend on it; 1 MB takes longer in a debug build
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
        ("/api/generate", r#"{"model":"m","prompt":"hi"}"#),
        ("/model/m/converse-stream", r#"{"messages":[{"role":"user","content":[{"text":"hi"}]}]}"#),
        (
            "/model/m/invoke-with-response-stream",
            r#"{"anthropic_version":"bedrock-2023-05-31","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#,
        ),
    ] {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let stream = mock.chat_stream(cuecard::ChatRequest::user("m", "hi")).unwrap();
        let events = LIVE.load(Ordering::Relaxed) - before;
        let peak_events = PEAK.load(Ordering::Relaxed) - before;
        drop(stream);
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let reply = handle(&mock, &HttpRequest::post_json(path, body));
        let held = LIVE.load(Ordering::Relaxed) - before;
        let peak = PEAK.load(Ordering::Relaxed) - before;
        let HttpReply::Stream { frames, .. } = &reply else { panic!("{path}: not a stream: {}", reply.status()) };
        let before_sending = LIVE.load(Ordering::Relaxed);
        PEAK.store(before_sending, Ordering::Relaxed);
        let (mut count, mut bytes) = (0usize, 0usize);
        for frame in frames.iter() {
            count += 1;
            bytes += frame.data.len();
        }
        let sending = PEAK.load(Ordering::Relaxed) - before_sending;
        let times = |bytes: isize| bytes as f64 / text.len() as f64;
        eprintln!(
            "{path}: stream {events} B ({:.1}x the text, peak {:.1}x); the reply holds {held} B ({:.1}x), peak while \
             building it {peak} B ({:.1}x); sending its {count} frames ({bytes} B) held at most {sending} B more \
             ({:.2}x)",
            times(events),
            times(peak_events),
            times(held),
            times(peak),
            times(sending)
        );
        assert!(bytes > 20 * text.len(), "{path}: the frames hold every token ({bytes} B)");
        assert!(times(held) < HELD_AT_MOST, "{path}: the reply holds {held} B before its first byte");
        assert!(times(events) < HELD_AT_MOST, "{path}: the stream holds {events} B");
        assert!(times(sending) < SENDING_AT_MOST, "{path}: sending held {sending} B more");
        drop(reply);
    }
}
