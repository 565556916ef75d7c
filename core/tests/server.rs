//! The loopback server over real sockets: start/stop, concurrency, streaming, cut connections, delays.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use cuecard::{Exhaustion, MockModel, ProviderError, Route, RouteMatch, Scenario, Server, ServerOptions, Step};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Sends one HTTP/1.1 request and reads until the server closes the connection (`Connection: close`).
fn send(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\ncontent-length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut out = Vec::new();
    stream.read_to_end(&mut out)?;
    Ok(out)
}

fn chat(addr: SocketAddr, stream: bool) -> String {
    let body = format!(r#"{{"model":"gpt-4o","stream":{stream},"messages":[{{"role":"user","content":"hi"}}]}}"#);
    String::from_utf8(
        send(addr, "POST", "/v1/chat/completions", &[("content-type", "application/json")], body.as_bytes()).unwrap(),
    )
    .unwrap()
}

fn status(reply: &str) -> u16 {
    reply.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

// ANCHOR: start
#[test]
fn starts_on_loopback_serves_and_stops_twice() {
    let mock = Arc::new(MockModel::builder().responds("Hello!").build().unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    assert!(server.addr().ip().is_loopback());
    assert_eq!(server.openai_base_url(), format!("http://{}/v1", server.addr()));
    let reply = chat(server.addr(), false);
    assert_eq!(status(&reply), 200);
    assert!(reply.contains("\"content\":\"Hello!\""), "{reply}");
    assert!(!reply.to_ascii_lowercase().contains("\r\ndate:"), "no Date header");
    server.stop();
    server.stop();
    assert!(TcpStream::connect(server.addr()).is_err(), "nothing listens after stop");
    assert_eq!(mock.request_count(), 1);
}
// ANCHOR_END: start

#[test]
fn concurrent_requests_each_take_one_step() {
    let mock = Arc::new(MockModel::new());
    for i in 0..64 {
        mock.add_step(Step::text(format!("answer-{i}")).unwrap()).unwrap();
    }
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let addr = server.addr();
    let handles: Vec<_> =
        (0..8).map(|_| std::thread::spawn(move || (0..8).map(|_| chat(addr, false)).collect::<Vec<_>>())).collect();
    let mut answers: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .map(|reply| reply.split("\"content\":\"").nth(1).unwrap().split('"').next().unwrap().to_string())
        .collect();
    answers.sort();
    answers.dedup();
    assert_eq!(answers.len(), 64);
    assert!(mock.unused_steps().is_empty());
}

#[test]
fn streams_sse_and_cuts_the_connection_when_scripted() {
    let mock = Arc::new(MockModel::new());
    mock.add_step(Step::text("one two").unwrap()).unwrap();
    mock.add_step(Step::text("partial answer").unwrap().failing_after(ProviderError::connection_reset()).unwrap())
        .unwrap();
    mock.add_step(Step::fail(ProviderError::connection_reset())).unwrap();
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let reply = chat(server.addr(), true);
    assert!(reply.contains("content-type: text/event-stream"), "{reply}");
    assert!(reply.contains("transfer-encoding: chunked"));
    assert!(reply.contains("data: [DONE]\n\n"));
    assert!(reply.ends_with("0\r\n\r\n"), "a complete chunked body");
    let cut = chat(server.addr(), true);
    assert!(cut.contains("\" answer\""), "the tokens arrive before the cut: {cut}");
    assert!(!cut.contains("[DONE]"));
    assert!(!cut.ends_with("0\r\n\r\n"), "the body ends without its final chunk");
    let aborted = send(server.addr(), "POST", "/v1/chat/completions", &[], br#"{"model":"m","messages":[]}"#);
    assert!(aborted.map(|bytes| bytes.is_empty()).unwrap_or(true), "no response at all");
    assert_eq!(mock.request_count(), 3);
}

#[test]
fn delays_are_real_by_default_and_skipped_in_instant_mode() {
    let scenario = Scenario::from_json(
        r#"{"cuecard":1,"on_exhausted":"repeat_last","routes":[{"steps":[{"text":"slow","delay_ms":300}]}]}"#,
    )
    .unwrap();
    let server = Server::start(Arc::new(cuecard::MockModel::from_scenario(&scenario).unwrap())).unwrap();
    let started = Instant::now();
    chat(server.addr(), false);
    assert!(started.elapsed() >= Duration::from_millis(300), "the delay is waited out");
    let mock = Arc::new(cuecard::MockModel::from_scenario(&scenario).unwrap());
    let instant =
        Server::start_with(Arc::clone(&mock), ServerOptions { instant: true, ..ServerOptions::default() }).unwrap();
    chat(instant.addr(), false);
    chat(instant.addr(), true);
    let at: Vec<u64> = mock.entries().iter().map(|e| e.at_ms).collect();
    assert_eq!(at, [0, 300], "virtual time is still recorded");
}

#[test]
fn oversized_and_unknown_requests_get_provider_errors_and_are_journaled() {
    let mock = Arc::new(MockModel::new());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let big = vec![b' '; cuecard::wire::MAX_BODY_BYTES + 10];
    let reply = String::from_utf8(send(server.addr(), "POST", "/v1/chat/completions", &[], &big).unwrap()).unwrap();
    assert_eq!(status(&reply), 413);
    let reply = String::from_utf8(send(server.addr(), "GET", "/v2/whatever", &[], b"").unwrap()).unwrap();
    assert_eq!(status(&reply), 404);
    assert!(reply.contains("unknown path"));
    assert_eq!(mock.counts().rejected, 2);
}

#[test]
fn a_stall_holds_the_stream_and_a_clean_end_omits_the_terminator() {
    let scenario = Scenario::from_json(
        r#"{"cuecard":1,"routes":[{"steps":[
            {"text":"held back","stall_ms":300},
            {"text":"cut short","fail_after":{"kind":"server_error"},"fail_after_as":"clean_end"},
            {"text":"with error","fail_after":{"kind":"server_error","message":"boom"}}]}]}"#,
    )
    .unwrap();
    let server = Server::start(Arc::new(cuecard::MockModel::from_scenario(&scenario).unwrap())).unwrap();
    let started = Instant::now();
    let held = chat(server.addr(), true);
    assert!(started.elapsed() >= Duration::from_millis(300), "the stall is waited out");
    assert!(held.contains("[DONE]"));
    let clean = chat(server.addr(), true);
    assert!(clean.contains("\" short\""), "{clean}");
    assert!(clean.ends_with("0\r\n\r\n"), "a complete body");
    assert!(!clean.contains("[DONE]") && !clean.contains("\"error\""), "no terminator and no error event: {clean}");
    let errored = chat(server.addr(), true);
    assert!(
        errored.contains(r#""error":{"code":null,"message":"boom","param":null,"type":"server_error"}"#),
        "{errored}"
    );
    assert!(!errored.contains("[DONE]"));
}

#[test]
fn an_h2c_upgrade_request_with_a_chunked_body_is_answered_over_http1() {
    // LangChain4j's JDK HttpClient asks to upgrade to h2c and may send chunked bodies (`docs/concepts/wire.md`, "HTTP details").
    let mock = Arc::new(MockModel::builder().responds("fine").build().unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
    let (a, b) = body.split_at(20);
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: Upgrade, HTTP2-Settings\r\nupgrade: h2c\r\n\
         http2-settings: AAMAAABkAAQAoAAAAAIAAAAA\r\ntransfer-encoding: chunked\r\ncontent-type: application/json\r\n\r\n\
         {:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n",
        a.len(),
        b.len()
    );
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let mut buffer = [0u8; 4096];
    while !reply.ends_with('}') {
        let n = stream.read(&mut buffer).unwrap();
        assert!(n > 0, "the connection closed early: {reply}");
        reply.push_str(&String::from_utf8_lossy(&buffer[..n]));
    }
    assert!(reply.starts_with("HTTP/1.1 200 OK"), "{reply}");
    assert!(reply.contains("\"content\":\"fine\""), "{reply}");
    assert_eq!(mock.request().unwrap().messages[0].text(), "hi");
}

#[test]
fn over_http_the_admin_surface_refuses_web_pages_and_foreign_hosts() {
    let mock = Arc::new(MockModel::new());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let addr = server.addr();
    let scenario = br#"{"cuecard":1,"routes":[{"steps":[{"text":"loaded"}]}]}"#;
    let json = ("content-type", "application/json");
    let from_page = String::from_utf8(
        send(addr, "PUT", "/_cuecard/scenario", &[json, ("origin", "https://evil.example")], scenario).unwrap(),
    )
    .unwrap();
    assert_eq!(status(&from_page), 403, "{from_page}");
    // DNS rebinding: the page's own name arrives as Host.
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(stream, "GET /_cuecard/journal HTTP/1.1\r\nhost: evil.example:8080\r\nconnection: close\r\n\r\n").unwrap();
    let mut rebound = String::new();
    stream.read_to_string(&mut rebound).unwrap();
    assert_eq!(status(&rebound), 403, "{rebound}");
    let from_test = String::from_utf8(send(addr, "PUT", "/_cuecard/scenario", &[json], scenario).unwrap()).unwrap();
    assert_eq!(status(&from_test), 200, "{from_test}");
    assert!(chat(addr, false).contains("loaded"));
}

/// A client that sends its request and then shuts down its write side (as some clients and proxies do) still gets
/// its answer, and the request is journaled once. hyper closed such connections on the EOF before answering.
#[test]
fn a_client_that_half_closes_after_its_request_is_answered_and_journaled() {
    let mock = Arc::new(MockModel::builder().responds("ok").repeats().build().unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let addr = server.addr();
    let small = br#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#.to_vec();
    let large = format!(r#"{{"model":"gpt-4o","messages":[{{"role":"user","content":"{}"}}]}}"#, "x".repeat(1 << 20));
    let bodies = std::iter::repeat_n(small, 200).chain(std::iter::repeat_n(large.into_bytes(), 20));
    let mut answered = 0;
    for body in bodies {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&body).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        if status(&String::from_utf8_lossy(&reply)) == 200 {
            answered += 1;
        }
    }
    assert_eq!(answered, 220, "every half-closed client got its answer");
    assert_eq!(mock.request_count(), 220, "every request journaled once");
}

/// A connection that sends nothing, or half a request head, or stays idle after a keep-alive answer, is closed
/// after the idle timeout instead of holding a file descriptor forever; 0 keeps the old behaviour.
#[test]
fn idle_and_slow_connections_are_closed_after_the_idle_timeout() {
    let mock = Arc::new(MockModel::builder().responds("ok").repeats().build().unwrap());
    let options = ServerOptions { idle_timeout_ms: 300, ..ServerOptions::default() };
    let server = Server::start_with(Arc::clone(&mock), options).unwrap();
    let closed_within = |stream: &mut TcpStream| {
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let started = Instant::now();
        let mut rest = Vec::new();
        let outcome = stream.read_to_end(&mut rest);
        (outcome.is_ok(), started.elapsed(), rest)
    };
    let mut silent = TcpStream::connect(server.addr()).unwrap();
    let (closed, after, _) = closed_within(&mut silent);
    assert!(closed && after < Duration::from_secs(3), "a silent connection is closed ({after:?})");
    let mut slow = TcpStream::connect(server.addr()).unwrap();
    slow.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n").unwrap();
    let (closed, after, _) = closed_within(&mut slow);
    assert!(closed && after < Duration::from_secs(3), "half a head is closed ({after:?})");
    let mut idle = TcpStream::connect(server.addr()).unwrap();
    let body = r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#;
    write!(idle, "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\n\r\n{body}", body.len())
        .unwrap();
    let (closed, _, reply) = closed_within(&mut idle);
    assert!(closed, "a keep-alive connection is closed once idle");
    assert_eq!(status(&String::from_utf8_lossy(&reply)), 200, "after its answer");

    let patient =
        Server::start_with(Arc::clone(&mock), ServerOptions { idle_timeout_ms: 0, ..ServerOptions::default() })
            .unwrap();
    let mut waiting = TcpStream::connect(patient.addr()).unwrap();
    waiting.set_read_timeout(Some(Duration::from_millis(800))).unwrap();
    let mut buffer = [0u8; 1];
    let error = waiting.read(&mut buffer).unwrap_err();
    assert!(
        matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
        "0 keeps it open: {error}"
    );
}

/// With an admin token, the admin surface answers only requests that carry it (either header); the model
/// endpoints do not need it.
#[test]
fn an_admin_token_guards_the_admin_surface_only() {
    let mock = Arc::new(MockModel::builder().responds("ok").build().unwrap());
    let options = ServerOptions { admin_token: Some("s3cret".into()), ..ServerOptions::default() };
    let server = Server::start_with(Arc::clone(&mock), options).unwrap();
    let journal = |headers: &[(&str, &str)]| {
        String::from_utf8(send(server.addr(), "GET", "/_cuecard/journal", headers, b"").unwrap()).unwrap()
    };
    let refused = journal(&[]);
    assert_eq!(status(&refused), 401, "{refused}");
    assert!(refused.contains("--admin-token") && refused.to_ascii_lowercase().contains("www-authenticate: bearer"));
    assert_eq!(status(&journal(&[("authorization", "Bearer wrong")])), 401);
    assert_eq!(status(&journal(&[("authorization", "Bearer s3cret")])), 200);
    assert_eq!(status(&journal(&[("x-cuecard-admin-token", "s3cret")])), 200);
    let under_v1 = send(server.addr(), "POST", "/v1/_cuecard/reset", &[], b"").unwrap();
    assert_eq!(status(&String::from_utf8(under_v1).unwrap()), 401, "also under /v1");
    assert_eq!(status(&chat(server.addr(), false)), 200, "the model endpoints need no token");
    assert_eq!(mock.request_count(), 1, "refused admin requests are not journaled, as admin requests never are");
    assert_eq!(status(&journal(&[("authorization", "bearer s3cret")])), 200, "the scheme in any case");
    assert_eq!(status(&journal(&[("authorization", "BEARER s3cret")])), 200);
    assert_eq!(status(&journal(&[("authorization", "Basic s3cret")])), 401, "another scheme");
    assert_eq!(status(&journal(&[("authorization", "Bearer s3cre")])), 401, "a prefix of the token");
    assert_eq!(status(&journal(&[("authorization", "Bearer s3cret2")])), 401, "the token and more");
    assert_eq!(status(&journal(&[("x-cuecard-admin-token", "")])), 401);

    // The token is how a server beyond loopback is administered: with it, a non-loopback Host is answered.
    let remote = |headers: &[(&str, &str)], addr| {
        let mut stream = TcpStream::connect(addr).unwrap();
        let mut head =
            "GET /_cuecard/health HTTP/1.1\r\nhost: cuecard.internal:8080\r\nconnection: close\r\n".to_string();
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        stream.write_all(format!("{head}\r\n").as_bytes()).unwrap();
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        reply
    };
    assert_eq!(status(&remote(&[("authorization", "Bearer s3cret")], server.addr())), 200);
    let refused = remote(&[], server.addr());
    assert_eq!(status(&refused), 401, "{refused}");
    let open = Server::start(Arc::clone(&mock)).unwrap();
    let foreign = remote(&[("authorization", "Bearer s3cret")], open.addr());
    assert_eq!(status(&foreign), 403, "without a token of its own, a server answers loopback names only: {foreign}");
    let with_origin = remote(&[("authorization", "Bearer s3cret"), ("origin", "http://evil.example")], server.addr());
    assert_eq!(status(&with_origin), 403, "a web page is refused even with the token");

    for empty in ["", "  "] {
        let options = ServerOptions { admin_token: Some(empty.into()), ..ServerOptions::default() };
        let error = Server::start_with(Arc::clone(&mock), options).unwrap_err();
        assert_eq!(error.kind(), cuecard::ErrorKind::InvalidArgument);
        assert!(error.to_string().contains("the admin token is empty"), "{error}");
    }
}

/// Requests hyper refuses before they reach cuecard (unparsable, too many headers) are journaled too, as
/// rejected with the reason: every request the mock receives is journaled once.
#[test]
fn requests_the_http_layer_refuses_are_journaled_as_rejected() {
    let mock = Arc::new(MockModel::builder().responds("ok").build().unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let raw = |text: &[u8]| {
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(text).unwrap();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        String::from_utf8_lossy(&reply).into_owned()
    };
    assert_eq!(status(&raw(b"NOT HTTP AT ALL\r\n\r\n")), 400);
    let many: String = (0..200).map(|i| format!("x-h{i}: v\r\n")).collect();
    assert_eq!(status(&raw(format!("GET /v1/models HTTP/1.1\r\nhost: x\r\n{many}\r\n").as_bytes())), 431);
    for _ in 0..50 {
        if mock.request_count() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let entries = mock.entries();
    assert_eq!(entries.len(), 2, "each refused request journaled once");
    for entry in &entries {
        assert!(
            matches!(&entry.outcome, cuecard::Outcome::Rejected { reason } if reason.starts_with("the HTTP request could not be parsed")),
            "{:?}",
            entry.outcome
        );
    }
}

/// Frames due at once leave together (one piece for hyper), but a frame with a delay still waits for it: each
/// token of a paced stream reaches the client after the one before, not all at the end.
#[test]
fn a_paced_stream_arrives_token_by_token() {
    let scenario = r#"{"cuecard": 1, "routes": [{"steps": [{"text": "one two three", "token_delay_ms": 150}]}]}"#;
    let mock = Arc::new(MockModel::from_scenario(&Scenario::from_json(scenario).unwrap()).unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let body = r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let started = Instant::now();
    let (mut received, mut arrivals) = (Vec::new(), Vec::new());
    let mut buffer = [0u8; 4096];
    loop {
        let read = stream.read(&mut buffer).unwrap();
        if read == 0 {
            break;
        }
        received.extend_from_slice(&buffer[..read]);
        let text = String::from_utf8_lossy(&received).into_owned();
        for token in ["\"one\"", "\" two\"", "\" three\"", "[DONE]"] {
            if text.contains(token) && !arrivals.iter().any(|(seen, _)| *seen == token) {
                arrivals.push((token, started.elapsed()));
            }
        }
    }
    let order: Vec<&str> = arrivals.iter().map(|(token, _)| *token).collect();
    assert_eq!(order, ["\"one\"", "\" two\"", "\" three\"", "[DONE]"], "{}", String::from_utf8_lossy(&received));
    for pair in arrivals.windows(2).take(2) {
        let gap = pair[1].1 - pair[0].1;
        assert!(gap >= Duration::from_millis(100), "{} came {gap:?} after {}", pair[1].0, pair[0].0);
    }
}

/// A client that goes away before its stream ends is journaled as such (`left_mid_stream`); one that reads its
/// stream to the end, or whose stream the script cuts, is not.
#[test]
fn a_client_that_leaves_mid_stream_is_journaled_as_gone() {
    let scenario = r#"{"cuecard": 1, "routes": [{"steps": [
        {"text": "one two three four five", "token_delay_ms": 200},
        "whole",
        {"text": "cut here", "fail_after": {"kind": "connection_reset"}}]}]}"#;
    let mock = Arc::new(MockModel::from_scenario(&Scenario::from_json(scenario).unwrap()).unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let body = r#"{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"hi"}]}"#;
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut leaving = TcpStream::connect(server.addr()).unwrap();
    leaving.write_all(request.as_bytes()).unwrap();
    let mut first = [0u8; 512];
    let _ = leaving.read(&mut first).unwrap();
    drop(leaving);
    for _ in 0..3 {
        let mut staying = TcpStream::connect(server.addr()).unwrap();
        staying.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        staying.write_all(request.as_bytes()).unwrap();
        let mut rest = Vec::new();
        let _ = staying.read_to_end(&mut rest);
    }
    let gone = |index: usize| mock.entries()[index].left_mid_stream;
    for _ in 0..50 {
        if gone(0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gone(0), "the client that left is journaled as gone");
    assert!(!gone(1), "a stream read to its end is not");
    assert!(!gone(2), "a stream the script cut is not");
    let journal = serde_json::to_value(mock.entries()).unwrap();
    assert_eq!(journal[0]["left_mid_stream"], true);
    assert!(journal[1].get("left_mid_stream").is_none(), "absent unless true");
}

/// Heavy admin work (here two reads of a 40,000-entry journal at once) runs off the server's two runtime threads:
/// a health check sent after them is answered before either finishes.
#[test]
fn heavy_admin_requests_do_not_freeze_the_other_endpoints() {
    let mock = Arc::new(MockModel::builder().responds("ok").repeats().build().unwrap());
    let request = cuecard::ChatRequest::user("m", "a request with some words in it, to make the journal heavier");
    for _ in 0..40_000 {
        mock.chat(&request).unwrap();
    }
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let heavy = |addr| {
        let reply = send(addr, "GET", "/_cuecard/journal", &[], b"").unwrap();
        assert!(reply.starts_with(b"HTTP/1.1 200"));
    };
    let probe = |addr| {
        let health = String::from_utf8(send(addr, "GET", "/_cuecard/health", &[], b"").unwrap()).unwrap();
        assert_eq!(status(&health), 200);
    };
    let order = finish_order(server.addr(), heavy, Duration::from_millis(50), probe);
    assert_eq!(order[0], "probe", "the health check waited for the journal reads: {order:?}");
}

/// Sends `heavy` twice at once (two requests that occupy the server), then, after `pause`, `probe`; each asserts
/// its own answer. Returns the order in which they finished (`heavy 0`, `heavy 1`, `probe`).
fn finish_order(
    addr: SocketAddr,
    heavy: impl Fn(SocketAddr) + Send + Sync + Copy + 'static,
    pause: Duration,
    probe: impl FnOnce(SocketAddr),
) -> Vec<String> {
    let finished = Arc::new(std::sync::Mutex::new(Vec::new()));
    let threads: Vec<_> = (0..2)
        .map(|i| {
            let finished = Arc::clone(&finished);
            std::thread::spawn(move || {
                heavy(addr);
                finished.lock().unwrap().push(format!("heavy {i}"));
            })
        })
        .collect();
    std::thread::sleep(pause);
    probe(addr);
    finished.lock().unwrap().push("probe".to_string());
    for thread in threads {
        thread.join().unwrap();
    }
    let order = finished.lock().unwrap().clone();
    order
}

/// A computed step's callback (the host's code) runs off the server's two runtime threads: while two requests wait
/// for a slow callback, a health check and a request to another route are answered at once.
#[test]
fn slow_host_callbacks_do_not_freeze_the_other_endpoints() {
    let mock = Arc::new(MockModel::new());
    let slow = |_: &cuecard::ChatRequest| {
        std::thread::sleep(Duration::from_millis(1500));
        Ok(Step::text("slow").unwrap())
    };
    mock.add_route(
        Route::new(RouteMatch::model("slow")).step(Step::compute(slow)).on_exhausted(Exhaustion::RepeatLast),
    )
    .unwrap();
    mock.add_route(
        Route::new(RouteMatch::any()).step(Step::text("quick").unwrap()).on_exhausted(Exhaustion::RepeatLast),
    )
    .unwrap();
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let slow = |addr| {
        let body = br#"{"model":"slow","messages":[{"role":"user","content":"hi"}]}"#;
        let reply = send(addr, "POST", "/v1/chat/completions", &[], body).unwrap();
        assert!(String::from_utf8_lossy(&reply).contains("slow"));
    };
    let probe = |addr| {
        let health = String::from_utf8(send(addr, "GET", "/_cuecard/health", &[], b"").unwrap()).unwrap();
        assert_eq!(status(&health), 200);
        let body = br#"{"model":"fast","messages":[{"role":"user","content":"hi"}]}"#;
        let quick = String::from_utf8(send(addr, "POST", "/v1/chat/completions", &[], body).unwrap()).unwrap();
        assert!(quick.contains("quick"), "{quick}");
    };
    let order = finish_order(server.addr(), slow, Duration::from_millis(100), probe);
    assert_eq!(order[0], "probe", "health and the quick request waited for the callbacks: {order:?}");
    assert_eq!(mock.request_count(), 3);
}

/// The whole journal is sent as it is written (chunked, a page of entries at a time), and put together it is the
/// document `journal_document` gives; a paged read keeps its length-delimited body.
#[test]
fn the_whole_journal_is_streamed_and_is_the_document() {
    let mock = Arc::new(MockModel::builder().responds("ok").responds("again").build().unwrap());
    for i in 0..2_500 {
        let _ = mock.chat(cuecard::ChatRequest::user("m", format!("request {i}")));
    }
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let reply = send(server.addr(), "GET", "/_cuecard/journal", &[], b"").unwrap();
    let text = String::from_utf8(reply).unwrap();
    let (head, chunked) = text.split_once("\r\n\r\n").unwrap();
    assert_eq!(status(head), 200, "{head}");
    assert!(head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "{head}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    // De-chunk: size line, data, CRLF; a zero size ends the body.
    let (mut body, mut rest) = (String::new(), chunked);
    loop {
        let (size, after) = rest.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size, 16).unwrap();
        if size == 0 {
            break;
        }
        body.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    assert_eq!(body, serde_json::to_string(&cuecard::wire::journal_document(&mock)).unwrap());
    let document: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(document["entries"].as_array().unwrap().len(), 2_500);

    let paged = String::from_utf8(send(server.addr(), "GET", "/_cuecard/journal?limit=2", &[], b"").unwrap()).unwrap();
    assert!(paged.to_ascii_lowercase().contains("content-length:"), "{paged}");
    let refused = send(server.addr(), "GET", "/_cuecard/journal", &[("origin", "https://evil.example")], b"").unwrap();
    assert_eq!(status(&String::from_utf8(refused).unwrap()), 403, "the admin checks still apply");
}

#[test]
fn http2_with_prior_knowledge_is_spoken_on_the_same_port() {
    let mock = Arc::new(MockModel::builder().responds("Hello!").build().unwrap());
    let server = Server::start(Arc::clone(&mock)).unwrap();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The client preface, then an empty SETTINGS frame (length 0, type 4, no flags, stream 0).
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    stream.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    let mut header = [0u8; 9];
    stream.read_exact(&mut header).unwrap();
    assert_eq!(header[3], 4, "an HTTP/2 server opens with its SETTINGS frame: {header:?}");
    assert_eq!(&header[5..9], &[0, 0, 0, 0], "on stream 0");
    // HTTP/1.1 still answers on the same port.
    assert_eq!(status(&chat(server.addr(), false)), 200);
}

/// The idle timeout bounds a request's body as well as its headers: a body that stalls is answered 408 and its
/// connection closed, and a malformed chunked body is answered 400; both are journaled once, as rejected.
#[test]
fn a_stalled_body_gets_408_and_a_malformed_chunked_body_400_both_journaled() {
    let mock = Arc::new(MockModel::builder().responds("ok").repeats().build().unwrap());
    let options = ServerOptions { idle_timeout_ms: 300, ..ServerOptions::default() };
    let server = Server::start_with(Arc::clone(&mock), options).unwrap();
    let exchange = |text: &[u8]| {
        let mut stream = TcpStream::connect(server.addr()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(text).unwrap();
        let started = Instant::now();
        let mut reply = Vec::new();
        let _ = stream.read_to_end(&mut reply);
        (String::from_utf8_lossy(&reply).into_owned(), started.elapsed())
    };
    let stalled = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{\"model\":";
    let (reply, after) = exchange(stalled);
    assert_eq!(status(&reply), 408, "{reply}");
    assert!(after < Duration::from_secs(5), "answered and closed after the timeout, not held ({after:?})");
    assert!(reply.contains("did not arrive within 300 ms"), "{reply}");
    assert!(reply.contains(r#""type":"invalid_request_error""#), "in the OpenAI shape of its path: {reply}");

    let malformed = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\nanthropic-version: 2023-06-01\r\n\
        transfer-encoding: chunked\r\nconnection: close\r\n\r\nZZ-not-a-size\r\n{}\r\n0\r\n\r\n";
    let (reply, _) = exchange(malformed);
    assert_eq!(status(&reply), 400, "{reply}");
    assert!(reply.contains("the request body could not be read"), "{reply}");
    assert!(reply.contains(r#""type":"error""#), "in the Anthropic shape: {reply}");

    let entries = mock.entries();
    assert_eq!(entries.len(), 2, "each journaled once");
    let reasons: Vec<String> = entries
        .iter()
        .map(|entry| match &entry.outcome {
            cuecard::Outcome::Rejected { reason } => reason.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(reasons[0].contains("did not arrive") && reasons[1].contains("could not be read"), "{reasons:?}");
    assert_eq!(entries[1].raw.as_ref().map(|raw| &*raw.path), Some("/v1/messages"));
    assert_eq!(status(&chat(server.addr(), false)), 200, "the server answers on");
}

/// Issue #59 S12: an `x-cuecard-test` id that is not ASCII is refused with 400, as every other invalid id is, not
/// answered by the default test.
#[test]
fn a_test_id_header_that_is_not_ascii_is_refused_like_any_invalid_id() {
    let mock = Arc::new(MockModel::builder().responds("default").build().unwrap());
    let server =
        Server::start_with(Arc::clone(&mock), ServerOptions { instant: true, ..ServerOptions::default() }).unwrap();
    let body = br#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
    let headers = [("content-type", "application/json"), ("x-cuecard-test", "t\u{e9}st")];
    let reply = String::from_utf8_lossy(&send(server.addr(), "POST", "/v1/chat/completions", &headers, body).unwrap())
        .into_owned();
    assert_eq!(status(&reply), 400, "{reply}");
    let with_space = [("content-type", "application/json"), ("x-cuecard-test", "a b")];
    let reply =
        String::from_utf8_lossy(&send(server.addr(), "POST", "/v1/chat/completions", &with_space, body).unwrap())
            .into_owned();
    assert_eq!(status(&reply), 400, "an invalid ASCII id, for comparison: {reply}");
    assert_eq!(mock.request_count(), 0, "the default test answered nothing");
    server.stop();
}

/// Issue #59 S13: an HTTP/2 connection whose client answers every keep-alive ping is still closed (GOAWAY, then
/// the end of the stream) once it has been idle for the idle timeout, as an idle HTTP/1.1 connection is.
#[test]
fn an_idle_http2_connection_that_answers_pings_is_closed_after_the_idle_timeout() {
    let mock = Arc::new(MockModel::builder().responds("Hello!").build().unwrap());
    let options = ServerOptions { idle_timeout_ms: 300, ..ServerOptions::default() };
    let server = Server::start_with(Arc::clone(&mock), options).unwrap();
    let mut stream = TcpStream::connect(server.addr()).unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    stream.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    stream.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    let started = Instant::now();
    let (mut pings, mut goaway) = (0, false);
    let mut pending = Vec::new();
    let mut buffer = [0u8; 4096];
    let closed = loop {
        assert!(started.elapsed() < Duration::from_secs(8), "still open after 8 s ({pings} pings answered)");
        match stream.read(&mut buffer) {
            Ok(0) => break started.elapsed(),
            Ok(n) => pending.extend_from_slice(&buffer[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => continue,
            Err(_) => break started.elapsed(), // reset after GOAWAY
        }
        // Each whole frame: answer SETTINGS and PING as a live client does.
        while pending.len() >= 9 {
            let length = usize::from(pending[0]) << 16 | usize::from(pending[1]) << 8 | usize::from(pending[2]);
            if pending.len() < 9 + length {
                break;
            }
            let (kind, flags) = (pending[3], pending[4]);
            let payload = pending[9..9 + length].to_vec();
            pending.drain(..9 + length);
            match (kind, flags & 1) {
                (4, 0) => stream.write_all(&[0, 0, 0, 4, 1, 0, 0, 0, 0]).unwrap(),
                (6, 0) => {
                    pings += 1;
                    let mut ack = vec![0, 0, 8, 6, 1, 0, 0, 0, 0];
                    ack.extend_from_slice(&payload);
                    let _ = stream.write_all(&ack);
                }
                (7, _) => goaway = true,
                _ => {}
            }
        }
    };
    assert!(goaway, "closed with a GOAWAY (after {closed:?}, {pings} pings answered)");
    assert!(closed >= Duration::from_millis(250), "not before the idle timeout: {closed:?}");
}
