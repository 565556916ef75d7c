//! Load and faults against the loopback server, bounded in count and time, on 127.0.0.1 only:
//!
//! 1. `load`: C keep-alive connections send N chat requests in all against a script of N numbered steps; every
//!    request is answered 200, every step is taken exactly once, the journal has N entries and its step order is
//!    the arrival order;
//! 2. `killed`: clients that go away after the first frame of a slow stream, then normal requests: all answered,
//!    each request journaled once, the streams as `left_mid_stream`;
//! 3. `replaced`: the scenario is replaced (PUT) every 50 ms while clients send requests: every reply is 200 from
//!    one version of the script, nothing hangs;
//! 4. `stopped`: the server is stopped while clients send requests: `stop` returns within 3 s, and every request
//!    either got its answer or a closed connection, none hangs.
//!
//! `cargo run --release -p cuecard --features server --example load_faults -- [CONNECTIONS] [REQUESTS]` (default
//! 1000 and 100000; `bench/load-faults.sh` raises the file limit first). Exits 1 with the first broken promise.
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, missing_docs)]

use cuecard::{MockModel, Scenario, Server, ServerOptions};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CHAT: &str = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
const STREAM: &str = r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
/// No single read may take longer: a hang is a failure, not a slow run.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

fn fail(message: String) -> ! {
    println!("load_faults: FAILED: {message}");
    std::process::exit(1);
}

/// One HTTP/1.1 request on a kept-alive connection; the reply's status and body (by content-length).
async fn exchange(stream: &mut TcpStream, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
    // One write: a second small one would wait for the server's delayed ACK (Nagle), 40 ms a request.
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await?;
    let mut buffer = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let (header_end, length) = loop {
        let read = tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "no reply within 10 s"))??;
        if read == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed before the reply"));
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length: "))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while buffer.len() < header_end + length {
        let read = tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk))
            .await
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "body not complete within 10 s"))??;
        if read == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed inside the body"));
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let status = String::from_utf8_lossy(&buffer[9..12]).parse().unwrap_or(0);
    Ok((status, String::from_utf8_lossy(&buffer[header_end..header_end + length]).into_owned()))
}

/// The answer text of an OpenAI chat completion.
fn answer_of(body: &str) -> String {
    body.split("\"content\":\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_default().to_string()
}

fn mock_of(scenario: &str) -> Arc<MockModel> {
    Arc::new(MockModel::from_scenario(&Scenario::from_json(scenario).unwrap()).unwrap())
}

async fn load(connections: usize, requests: usize) {
    let steps: Vec<String> = (0..requests).map(|i| format!("\"a{i}\"")).collect();
    let mock = mock_of(&format!(r#"{{"cuecard": 1, "routes": [{{"steps": [{}]}}]}}"#, steps.join(",")));
    let server =
        Server::start_with(Arc::clone(&mock), ServerOptions { instant: true, ..ServerOptions::default() }).unwrap();
    let addr = server.addr();
    let started = Instant::now();
    let tasks: Vec<_> = (0..connections)
        .map(|c| {
            let share = requests / connections + usize::from(c < requests % connections);
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                let mut answers = Vec::with_capacity(share);
                for _ in 0..share {
                    match exchange(&mut stream, "POST", "/v1/chat/completions", CHAT).await {
                        Ok((200, body)) => answers.push(answer_of(&body)),
                        Ok((status, body)) => fail(format!("load: status {status}: {body}")),
                        Err(e) => fail(format!("load: {e}")),
                    }
                }
                answers
            })
        })
        .collect();
    let mut answers = HashSet::new();
    for task in tasks {
        for answer in task.await.unwrap() {
            if !answers.insert(answer.clone()) {
                fail(format!("load: the answer {answer} was given twice"));
            }
        }
    }
    let elapsed = started.elapsed();
    if answers.len() != requests || mock.request_count() != requests as u64 || !mock.unused_steps().is_empty() {
        fail(format!(
            "load: {} distinct answers, {} journaled, {} steps unused, of {requests}",
            answers.len(),
            mock.request_count(),
            mock.unused_steps().len()
        ));
    }
    if let Some(entry) = mock.entries().iter().find(|e| e.step.map(u64::from) != Some(e.index)) {
        fail(format!("load: request {} took step {:?}: steps out of arrival order", entry.index, entry.step));
    }
    println!(
        "load: {requests} requests over {connections} connections in {:.2} s ({:.0} req/s); each answered once, \
         each step taken once in arrival order, {} journaled",
        elapsed.as_secs_f64(),
        requests as f64 / elapsed.as_secs_f64(),
        mock.request_count()
    );
}

async fn killed(clients: usize) {
    let mock = mock_of(
        r#"{"cuecard": 1, "routes": [{"on_exhausted": "repeat_last", "steps": [
            {"text": "one two three four five six seven eight nine ten", "token_delay_ms": 100}]}]}"#,
    );
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let addr = server.addr();
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                let head = format!(
                    "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{STREAM}",
                    STREAM.len()
                );
                stream.write_all(head.as_bytes()).await.unwrap();
                let mut seen = Vec::new();
                let mut chunk = [0u8; 1024];
                while !String::from_utf8_lossy(&seen).contains("data:") {
                    let read = tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk)).await;
                    match read {
                        Ok(Ok(n)) if n > 0 => seen.extend_from_slice(&chunk[..n]),
                        other => fail(format!("killed: no first frame: {other:?}")),
                    }
                }
                drop(stream); // the client goes away mid-stream
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let mut stream = TcpStream::connect(addr).await.unwrap();
    for _ in 0..20 {
        match exchange(&mut stream, "GET", "/v1/models", "").await {
            Ok((200, _)) => {}
            other => fail(format!("killed: the server did not answer after the clients left: {other:?}")),
        }
    }
    let journaled = mock.request_count();
    if journaled != (clients + 20) as u64 {
        fail(format!("killed: {journaled} journaled, expected {}", clients + 20));
    }
    // The server notices a client is gone at its next write (the next token, 100 ms later).
    let mut gone = 0;
    for _ in 0..50 {
        gone = mock.entries().iter().filter(|e| e.left_mid_stream).count();
        if gone == clients {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    if gone != clients {
        fail(format!("killed: {gone} of {clients} streams journaled as left mid-stream"));
    }
    println!(
        "killed: {clients} clients left after their stream's first frame, each journaled once as left_mid_stream; 20 \
         later requests answered; {journaled} journaled ({:.2} s)",
        started.elapsed().as_secs_f64()
    );
}

async fn replaced(clients: usize) {
    let version =
        |v: usize| format!(r#"{{"cuecard": 1, "routes": [{{"on_exhausted": "repeat_last", "steps": ["v{v}"]}}]}}"#);
    let mock = mock_of(&version(0));
    let server =
        Server::start_with(Arc::clone(&mock), ServerOptions { instant: true, ..ServerOptions::default() }).unwrap();
    let addr = server.addr();
    let deadline = Instant::now() + Duration::from_secs(2);
    let answered = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let answered = Arc::clone(&answered);
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.unwrap();
                while Instant::now() < deadline {
                    match exchange(&mut stream, "POST", "/v1/chat/completions", CHAT).await {
                        Ok((200, body)) if answer_of(&body).starts_with('v') => {
                            answered.fetch_add(1, Ordering::Relaxed)
                        }
                        other => fail(format!("replaced: {other:?}")),
                    };
                }
            })
        })
        .collect();
    let mut admin = TcpStream::connect(addr).await.unwrap();
    let mut versions = 0;
    while Instant::now() < deadline {
        versions += 1;
        match exchange(&mut admin, "PUT", "/_cuecard/scenario", &version(versions)).await {
            Ok((200, _)) => {}
            other => fail(format!("replaced: the PUT failed: {other:?}")),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for task in tasks {
        task.await.unwrap();
    }
    println!(
        "replaced: the scenario was replaced {versions} times under {clients} clients; {} requests answered 200 \
         from one version each, none hung",
        answered.load(Ordering::Relaxed)
    );
}

async fn stopped(clients: usize) {
    let mock = mock_of(
        r#"{"cuecard": 1, "routes": [{"on_exhausted": "repeat_last", "steps": [{"text": "ok", "delay_ms": 20}]}]}"#,
    );
    let server = Arc::new(Server::start(Arc::clone(&mock)).unwrap());
    let addr: SocketAddr = server.addr();
    let (answered, closed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (answered, closed) = (Arc::clone(&answered), Arc::clone(&closed));
            tokio::spawn(async move {
                let Ok(mut stream) = TcpStream::connect(addr).await else { return };
                loop {
                    match exchange(&mut stream, "POST", "/v1/chat/completions", CHAT).await {
                        Ok((200, _)) => answered.fetch_add(1, Ordering::Relaxed),
                        Ok((status, body)) => fail(format!("stopped: status {status} {body}")),
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                            fail(format!("stopped: a request hung: {e}"))
                        }
                        Err(_) => {
                            closed.fetch_add(1, Ordering::Relaxed);
                            return;
                        }
                    };
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stopping = Instant::now();
    let handle = Arc::clone(&server);
    tokio::task::spawn_blocking(move || handle.stop()).await.unwrap();
    let took = stopping.elapsed();
    if took > Duration::from_secs(3) {
        fail(format!("stopped: stop took {took:?}"));
    }
    for task in tasks {
        task.await.unwrap();
    }
    println!(
        "stopped: stop returned in {:.0} ms under {clients} clients; {} requests answered before, {} connections \
         closed cleanly after, none hung",
        took.as_secs_f64() * 1000.0,
        answered.load(Ordering::Relaxed),
        closed.load(Ordering::Relaxed)
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let connections = args.first().copied().unwrap_or(1000);
    let requests = args.get(1).copied().unwrap_or(100_000).max(connections);
    load(connections, requests).await;
    killed(connections.min(200)).await;
    replaced(connections.min(200)).await;
    stopped(connections.min(200)).await;
    println!("load_faults: 4 passed, 0 failed");
}
