//! Throughput of the word-like splitter on several MB of prose, code, CJK and mixed text, beside fancy-regex
//! running tiktoken's cl100k pre-tokenizer pattern on the same corpora (the engine tiktoken uses).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod corpus;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const CL100K: &str = r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s";
const CORPUS_BYTES: usize = 2 << 20;

fn corpora() -> Vec<(&'static str, String)> {
    vec![
        ("prose", corpus::prose(CORPUS_BYTES)),
        ("code", corpus::source_code(CORPUS_BYTES)),
        ("cjk", corpus::cjk(CORPUS_BYTES)),
        ("mixed", corpus::mixed(CORPUS_BYTES)),
    ]
}

fn splitters(c: &mut Criterion) {
    let cl100k = fancy_regex::Regex::new(CL100K).unwrap();
    let mut group = c.benchmark_group("tokenize");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for (name, text) in corpora() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("cuecard", name), &text, |b, text| {
            b.iter(|| cuecard::count_tokens(black_box(text)))
        });
        group.bench_with_input(BenchmarkId::new("cuecard_iter_slices", name), &text, |b, text| {
            b.iter(|| cuecard::tokenize(black_box(text)).map(str::len).sum::<usize>())
        });
        group.bench_with_input(BenchmarkId::new("cuecard_scalar_only", name), &text, |b, text| {
            b.iter(|| cuecard::tokenize::tokenize_scalar(black_box(text)).count())
        });
        group.bench_with_input(BenchmarkId::new("fancy_regex_cl100k", name), &text, |b, text| {
            b.iter(|| cl100k.find_iter(black_box(text)).count())
        });
    }
    group.finish();
}

criterion_group!(benches, splitters);
criterion_main!(benches);
