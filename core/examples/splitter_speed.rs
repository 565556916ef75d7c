//! The splitter's throughput, measured so that a noisy shared machine still gives stable figures: every variant
//! runs in turn, round after round, and the fastest round of each counts (interference only ever slows a round).
//! Prints MB/s per corpus for `count_tokens`, the `tokenize` iterator taken by `fold` (what `collect`, `sum`,
//! `for_each` use) and by `next` (a `for` loop), the scalar scanner alone, fancy-regex with tiktoken's cl100k
//! pattern, and the ratio of `count_tokens` to fancy-regex.
//!
//! `cargo run --release --example splitter_speed -p cuecard [-- ROUNDS]` (the `bench` profile gives the figures
//! of the note: `cargo run --profile bench ...`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, missing_docs)]

#[path = "../benches/corpus/mod.rs"]
mod corpus;

use std::hint::black_box;
use std::time::{Duration, Instant};

const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";

fn fastest(rounds: usize, mut run: impl FnMut() -> usize) -> Duration {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            black_box(run());
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let cl100k = fancy_regex::Regex::new(CL100K).unwrap();
    let size = 2 << 20;
    let corpora = [
        ("prose", corpus::prose(size)),
        ("code", corpus::source_code(size)),
        ("cjk", corpus::cjk(size)),
        ("mixed", corpus::mixed(size)),
    ];
    println!(
        "{:<8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "corpus", "count MB/s", "fold MB/s", "next MB/s", "scalar MB/s", "regex MB/s", "count/regex"
    );
    for (name, text) in &corpora {
        let expected = cuecard::tokenize::tokenize_scalar(text).count();
        assert_eq!(cuecard::count_tokens(text), expected);
        let mut best = [Duration::MAX; 5];
        // Interleaved: each round runs every variant once, so a slow spell hits them alike.
        for _ in 0..rounds {
            let times = [
                fastest(1, || cuecard::count_tokens(black_box(text))),
                fastest(1, || by_fold(black_box(text))),
                fastest(1, || by_next(black_box(text))),
                fastest(1, || cuecard::tokenize::tokenize_scalar(black_box(text)).map(str::len).sum()),
                fastest(1, || cl100k.find_iter(black_box(text)).count()),
            ];
            for (slot, time) in best.iter_mut().zip(times) {
                *slot = (*slot).min(time);
            }
        }
        let mbps = |d: Duration| text.len() as f64 / d.as_secs_f64() / 1e6;
        println!(
            "{:<8} {:>11.0} {:>11.0} {:>11.0} {:>11.0} {:>11.1} {:>10.0}x",
            name,
            mbps(best[0]),
            mbps(best[1]),
            mbps(best[2]),
            mbps(best[3]),
            mbps(best[4]),
            mbps(best[0]) / mbps(best[4])
        );
    }
}

// Each way of taking the tokens is a function of its own, as in a caller's code: inlined into `main`, the loop
// competed for registers with the harness's own variables and kept its sum in memory.

/// The tokens' bytes, summed by `fold` (what `collect`, `sum` and `for_each` use).
#[inline(never)]
fn by_fold(text: &str) -> usize {
    cuecard::tokenize(text).map(str::len).sum()
}

/// The tokens' bytes, summed in a `for` loop (which calls `next`).
#[inline(never)]
fn by_next(text: &str) -> usize {
    let mut bytes = 0;
    for token in cuecard::tokenize(text) {
        bytes += token.len();
    }
    bytes
}
