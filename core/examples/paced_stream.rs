//! Time to first token and inter-token latency of paced streams, measured on the wall clock against the loopback
//! server with a `latency` profile, beside the latencies the profile drew for the same requests. It shows how
//! closely a client sees the scripted pacing: the server's overhead per token is the difference.
//!
//! `cargo run --release -p cuecard --features server --example paced_stream -- [STREAMS] [TOKENS]` (default 40
//! concurrent streams of 50 tokens; `bench/paced-stream.sh`). 127.0.0.1 only, bounded in count and time.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs)]

use cuecard::{ChatRequest, MockModel, Scenario, Server, ServerOptions};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const PROFILE: &str = r#"{"ttft_ms": {"p50": 100, "p99": 300}, "itl_ms": {"p50": 10, "p99": 40}}"#;
const STREAM: &str = r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;

fn scenario(tokens: usize) -> String {
    let text: Vec<String> = (0..tokens).map(|i| format!("w{i}")).collect();
    format!(
        r#"{{"cuecard": 1, "seed": 1, "latency": {PROFILE}, "routes": [{{"on_exhausted": "repeat_last", "steps": [{{"text": "{}"}}]}}]}}"#,
        text.join(" ")
    )
}

/// One streamed request; the request index (from `x-request-id: req_N`) and the arrival time of each SSE event
/// after the opening role chunk, from when the request was written.
async fn stream_once(addr: std::net::SocketAddr) -> (u64, Vec<Duration>) {
    let mut socket = TcpStream::connect(addr).await.unwrap();
    socket.set_nodelay(true).unwrap();
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{STREAM}",
        STREAM.len()
    );
    let started = Instant::now();
    socket.write_all(request.as_bytes()).await.unwrap();
    let (mut seen, mut arrivals, mut events) = (Vec::new(), Vec::new(), 0usize);
    let mut chunk = [0u8; 16384];
    loop {
        let read = tokio::time::timeout(Duration::from_secs(30), socket.read(&mut chunk)).await.unwrap().unwrap();
        if read == 0 {
            break;
        }
        let at = started.elapsed();
        seen.extend_from_slice(&chunk[..read]);
        let total = seen.windows(6).filter(|w| w == b"data: ").count();
        arrivals.extend(std::iter::repeat_n(at, total - events));
        events = total;
    }
    let head = String::from_utf8_lossy(&seen);
    let index = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase().strip_prefix("x-request-id: req_").map(|n| n.trim().parse::<u64>().unwrap())
        })
        .expect("a request id")
        - 1;
    (index, arrivals.into_iter().skip(1).collect()) // the role chunk goes out with the headers
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((p * values.len() as f64).ceil() as usize).saturating_sub(1)]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (streams, tokens) = (args.first().copied().unwrap_or(40), args.get(1).copied().unwrap_or(50).max(2));
    let document = scenario(tokens);
    let mock = Arc::new(MockModel::from_scenario(&Scenario::from_json(&document).unwrap()).unwrap());
    let server = Server::start_with(mock, ServerOptions { instant: false, ..ServerOptions::default() }).unwrap();
    let addr = server.addr();
    let tasks: Vec<_> = (0..streams).map(|_| tokio::spawn(stream_once(addr))).collect();
    let mut measured = Vec::new();
    for task in tasks {
        measured.push(task.await.unwrap());
    }
    server.stop();
    // What the profile drew for each request index: a twin mock answers the same indexes in order.
    let twin = MockModel::from_scenario(&Scenario::from_json(&document).unwrap()).unwrap();
    let request = ChatRequest::user("gpt-4o", "hi");
    let drawn: Vec<Vec<u64>> = (0..streams)
        .map(|_| twin.chat_stream(&request).unwrap().events().iter().map(|e| e.delay_ms).collect())
        .collect();
    let (mut scripted_ttft, mut seen_ttft, mut scripted_itl, mut seen_itl, mut overhead) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (index, arrivals) in &measured {
        let delays = &drawn[*index as usize];
        // The token deltas: the first `tokens` events (the finish chunk and [DONE] follow the last at once).
        scripted_ttft.push(delays[0] as f64);
        seen_ttft.push(arrivals[0].as_secs_f64() * 1000.0);
        for k in 1..tokens {
            let seen = (arrivals[k] - arrivals[k - 1]).as_secs_f64() * 1000.0;
            scripted_itl.push(delays[k] as f64);
            seen_itl.push(seen);
            overhead.push(seen - delays[k] as f64);
        }
    }
    let mean = overhead.iter().sum::<f64>() / overhead.len() as f64;
    println!("paced_stream: {streams} concurrent streams of {tokens} tokens, profile {PROFILE}");
    for (name, scripted, seen) in
        [("ttft", &mut scripted_ttft, &mut seen_ttft), ("itl", &mut scripted_itl, &mut seen_itl)]
    {
        println!(
            "  {name:<4} scripted p50 {:>6.1} ms p99 {:>6.1} ms | measured p50 {:>6.1} ms p99 {:>6.1} ms ({} samples)",
            percentile(scripted, 0.5),
            percentile(scripted, 0.99),
            percentile(seen, 0.5),
            percentile(seen, 0.99),
            seen.len()
        );
    }
    println!(
        "  per-token overhead (measured - scripted): mean {mean:.2} ms, p99 {:.2} ms",
        percentile(&mut overhead, 0.99)
    );
}
