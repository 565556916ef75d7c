//! In-process server start + stop, so a fresh server per test is free; and one request over loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use cuecard::{MockModel, Server};
use std::io::{Read, Write};
use std::sync::Arc;

fn server(c: &mut Criterion) {
    let mock = Arc::new(MockModel::builder().responds("ok").repeats().build().unwrap());
    c.bench_function("server/start_stop", |b| {
        b.iter(|| {
            let server = Server::start(Arc::clone(&mock)).unwrap();
            server.stop();
        })
    });
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(server.addr()).unwrap();
    stream.set_nodelay(true).unwrap();
    let mut buffer = vec![0u8; 4096];
    c.bench_function("server/request_keep_alive", |b| {
        b.iter(|| {
            stream.write_all(request.as_bytes()).unwrap();
            // The reply is small and arrives in one read on loopback; read until the body's closing brace.
            let mut got = Vec::new();
            while !got.ends_with(b"}") {
                let n = stream.read(&mut buffer).unwrap();
                got.extend_from_slice(&buffer[..n]);
            }
        })
    });
    mock.set_journal_limit(Some(0));
}

criterion_group!(benches, server);
criterion_main!(benches);
