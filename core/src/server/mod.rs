//! The loopback HTTP server (feature `server`): the wire protocols of [`crate::wire`] over tokio + hyper.
//!
//! `Server::start(mock)` binds 127.0.0.1 on a free port and serves on its own thread and runtime, so it works
//! the same from a plain `#[test]`, a `#[tokio::test]` or a binding's host language. Delays are waited out in
//! real time by default; [`ServerOptions::instant`] skips them while the mock still records virtual times.
//! Stopping is graceful and idempotent; a server left running never keeps its process alive at exit.

use crate::error::{Error, ErrorKind, Result};
use crate::http::{HttpReply, HttpRequest, MAX_BODY_BYTES};
use crate::isolation::Tests;
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::wire;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

mod body;
mod idle;
mod socket;
#[cfg(feature = "tls")]
mod tls;
mod trace;

use body::*;
use trace::*;

/// How to run a server. As data: `{"host": "127.0.0.1", "port": 0, "instant": false, "idle_timeout_ms": 30000}`,
/// every field optional.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerOptions {
    /// The address to bind; 127.0.0.1 unless asked otherwise.
    pub host: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// Skip scripted delays (virtual time is still recorded). A mock whose settings say `instant` is served
    /// instantly too.
    pub instant: bool,
    /// How long a connection may take to send a request's headers, then its body (answered 408 past it), and stay
    /// idle between keep-alive requests, before it is closed (milliseconds; 0 never closes them). Slow or idle
    /// clients would otherwise hold file descriptors forever.
    pub idle_timeout_ms: u64,
    /// When set, admin requests (`/_cuecard/...`) must carry it (`Authorization: Bearer <token>` or
    /// `x-cuecard-admin-token: <token>`), or get a 401: for a server reachable beyond loopback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admin_token: Option<String>,
    /// At most this many tests live at once under `/t/{id}/` (see [`crate::isolation`]); beyond it the least
    /// recently used is dropped. 0 turns the prefix off.
    pub max_tests: usize,
    /// Journal entries the tests under `/t/{id}/` keep between them: each keeps its newest `journal_total /
    /// max_tests` (and never more than the default mock's own limit), so the server's memory has one bound.
    pub journal_total: usize,
    /// Where to send an OpenTelemetry span of every mocked call (OTLP/HTTP protobuf, batched off the request path):
    /// a collector's base URL (`http://127.0.0.1:4318`, to which `/v1/traces` is added) or its traces URL. Off when
    /// absent; needs the `otlp` feature (see [`crate::telemetry`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub otlp_endpoint: Option<String>,
    /// Serve TLS too (`https://`, `wss://`) on the same port, with a certificate for loopback made at start by a
    /// test CA, whose PEM is written to this file for the test to trust (see `server::tls`; needs the `tls`
    /// feature). Off when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_cert: Option<String>,
}

/// [`ServerOptions::idle_timeout_ms`] by default: hyper's default header timeout.
pub const DEFAULT_IDLE_TIMEOUT_MS: u64 = 30_000;

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            instant: false,
            idle_timeout_ms: DEFAULT_IDLE_TIMEOUT_MS,
            admin_token: None,
            max_tests: crate::isolation::DEFAULT_MAX_TESTS,
            journal_total: crate::isolation::DEFAULT_JOURNAL_TOTAL,
            otlp_endpoint: None,
            tls_cert: None,
        }
    }
}

/// A running server. Dropping it stops it.
///
/// ```
/// use std::io::{Read, Write};
/// let mock = std::sync::Arc::new(cuecard::MockModel::builder().responds("Hi!").build()?);
/// let server = cuecard::Server::start(mock.clone())?; // 127.0.0.1, a free port, its own thread
/// assert!(server.openai_base_url().starts_with("http://127.0.0.1:"));
/// let body = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}"#;
/// let mut stream = std::net::TcpStream::connect(server.addr())?;
/// write!(stream, "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}", body.len())?;
/// let mut reply = String::new();
/// stream.read_to_string(&mut reply)?;
/// assert!(reply.contains(r#""content":"Hi!""#));
/// assert_eq!(mock.request()?.messages[0].text(), "hello");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    // Behind mutexes so that `stop` takes `&self`: a binding can share the server and stop it from any thread.
    shutdown: std::sync::Mutex<Option<oneshot::Sender<()>>>,
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
    tests: Arc<Tests>,
}

impl Server {
    /// Serves `mock` on 127.0.0.1 and a free port, waiting out delays in real time.
    pub fn start(mock: Arc<MockModel>) -> Result<Server> {
        Server::start_with(mock, ServerOptions::default())
    }

    /// Serves `mock` with `options`.
    pub fn start_with(mock: Arc<MockModel>, options: ServerOptions) -> Result<Server> {
        if options.admin_token.as_deref().is_some_and(|token| token.trim().is_empty()) {
            // A header value is trimmed by every HTTP parser, so such a token could only ever match an empty one.
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                "the admin token is empty: give a token (--admin-token, CUECARD_ADMIN_TOKEN, `admin_token`), or none",
            )
            .with_context("field", "admin_token"));
        }
        let telemetry = start_telemetry(options.otlp_endpoint.as_deref())?;
        let tls = start_tls(options.tls_cert.as_deref())?;
        let (host, port) = (options.host, options.port);
        let io = move |e: std::io::Error| {
            Error::new(ErrorKind::Io, format!("cannot serve on {host}:{port}: {e}"))
                .with_context("io_error", format!("{:?}", e.kind()))
        };
        let listener = std::net::TcpListener::bind((options.host, options.port)).map_err(io)?;
        listener.set_nonblocking(true).map_err(io)?;
        let addr = listener.local_addr().map_err(io)?;
        if let Some(endpoint) = options.otlp_endpoint.as_deref().filter(|e| exports_to(e, addr)) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "the OTLP endpoint {endpoint:?} is this server ({addr}): each export would be a request it \
                     journals and traces, feeding itself; give a collector's address (4318 is OTLP/HTTP's port)"
                ),
            )
            .with_context("field", "otlp_endpoint"));
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("cuecard-server")
            .enable_all()
            .build()
            .map_err(io)?;
        // Registered with the runtime here, so that a failure is this call's error. The kernel queues connections
        // from the bind on: the server is reachable once this returns, without waiting for its thread to run
        // (a handshake with the thread cost `cuecard serve` a wake-up before it could print its address).
        let listener = {
            let _context = runtime.enter();
            tokio::net::TcpListener::from_std(listener).map_err(io)?
        };
        let (shutdown, stop) = oneshot::channel();
        let tests = Arc::new(Tests::new(mock, options.max_tests, options.journal_total));
        let served = Arc::clone(&tests);
        let thread = std::thread::Builder::new()
            .name("cuecard-server".into())
            .spawn(move || {
                runtime.block_on(serve(listener, served, options, telemetry.clone(), tls, stop));
                // Connections still open after the graceful period are dropped here; the worker threads get a moment
                // to end, so that once `stop` returns no thread of the server is left running.
                runtime.shutdown_timeout(Duration::from_millis(100));
                // The spans still queued are sent before `stop` returns.
                stop_telemetry(telemetry);
            })
            .map_err(io)?;
        Ok(Server {
            addr,
            shutdown: std::sync::Mutex::new(Some(shutdown)),
            thread: std::sync::Mutex::new(Some(thread)),
            tests,
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL of test `id` (`http://127.0.0.1:PORT/t/{id}`): its own copy of the script and journal (see
    /// [`crate::isolation`]); add `/v1` for an OpenAI client.
    pub fn test_base_url(&self, id: &str) -> String {
        format!("http://{}/t/{id}", self.addr)
    }

    /// The journal entries each test under `/t/{id}/` keeps (its share of `journal_total`, see
    /// [`crate::isolation`]).
    pub fn journal_per_test(&self) -> usize {
        self.tests.journal_share()
    }

    /// How many tests are live under `/t/{id}/`.
    pub fn tests_live(&self) -> usize {
        self.tests.ids().len()
    }

    /// The base URL an OpenAI client needs (`…/v1`).
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The base URL an Anthropic client needs (no `/v1`: the SDK adds it).
    pub fn anthropic_base_url(&self) -> String {
        self.base_url()
    }

    /// Stops accepting, lets requests in flight finish (up to a second), and waits for the server thread.
    /// Calling it again, from any thread, does nothing.
    pub fn stop(&self) {
        let shutdown = self.shutdown.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(shutdown) = shutdown {
            let _ = shutdown.send(());
        }
        let thread = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }

    /// Whether the server has been stopped.
    pub fn is_stopped(&self) -> bool {
        self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn serve(
    listener: tokio::net::TcpListener,
    tests: Arc<Tests>,
    options: ServerOptions,
    telemetry: Exporter,
    tls: Option<TlsAcceptor>,
    mut stop: oneshot::Receiver<()>,
) {
    // Stopping tells every connection to shut down gracefully; each holds a sender of `open`, so the server waits
    // (a second at most) until they have all ended.
    let (stopping, _) = tokio::sync::watch::channel(false);
    let (open, mut all_closed) = tokio::sync::mpsc::channel::<()>(1);
    let idle_timeout = (options.idle_timeout_ms > 0).then(|| Duration::from_millis(options.idle_timeout_ms));
    let instant = options.instant;
    let admin_token: Option<Arc<str>> = options.admin_token.as_deref().map(Arc::from);
    let builder = Arc::new(connection_builder(idle_timeout));
    // After a failed accept (out of file descriptors, most often), wait before the next: accepting again at once
    // fails again at once, and the loop would spin a core at 100% while nothing is answered.
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => {
                backoff = ACCEPT_BACKOFF_MIN;
                stream
            }
            Err(_) => {
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    _ = &mut stop => break,
                }
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let served = Arc::clone(&tests);
        let admin_token = admin_token.clone();
        let telemetry = telemetry.clone();
        let activity = idle::Activity::new();
        let requests = Arc::clone(&activity);
        let sockets_stop = stopping.subscribe();
        let service = service_fn(move |request| {
            let exporter = telemetry.clone();
            let in_flight = requests.begin();
            let served = Served { tests: Arc::clone(&served), stopping: sockets_stop.clone() };
            let answered = answer(served, request, instant, admin_token.clone(), idle_timeout, exporter);
            async move { answered.await.map(|response| response.map(|body| idle::Tracked { body, _in_flight: in_flight })) }
        });
        let builder = Arc::clone(&builder);
        let mut stop_signal = stopping.subscribe();
        let open = open.clone();
        let journal = Arc::clone(tests.default_mock());
        let tls = tls.clone();
        tokio::spawn(async move {
            let _open = open;
            // HTTP/1.1, or HTTP/2 with prior knowledge (cleartext: the AWS SDK for JavaScript's default handler speaks
            // it to an `http://` endpoint), told apart by the connection's first bytes; an `h2c` upgrade request over
            // HTTP/1.1 is answered as HTTP/1.1, as before.
            // The builder reads the first bytes to tell the versions apart, before any timeout of its own applies:
            // a connection that sends nothing is closed after the idle timeout here.
            // With TLS on, that first byte also tells a TLS handshake from plain HTTP.
            let mut first = [0u8; 1];
            if idle_timeout.is_some() || tls.is_some() {
                let peeked = match idle_timeout {
                    Some(idle) => tokio::time::timeout(idle, stream.peek(&mut first)).await.ok(),
                    None => Some(stream.peek(&mut first).await),
                };
                if !matches!(peeked, Some(Ok(1..))) {
                    return;
                }
            }
            let Some(stream) = secured(stream, first[0], tls.as_ref(), idle_timeout).await else { return };
            let mut connection = std::pin::pin!(builder.serve_connection_with_upgrades(TokioIo::new(stream), service));
            let idle = || async {
                match idle_timeout {
                    Some(idle) => activity.idle_for(idle).await,
                    None => std::future::pending().await,
                }
            };
            // The server stopping, or the connection idle (issue #59 S13: an HTTP/2 client answering pings kept
            // one open forever), shuts it down gracefully: what is in flight is finished first.
            let mut shutting = false;
            let ended = loop {
                tokio::select! {
                    ended = connection.as_mut() => break ended,
                    _ = stop_signal.wait_for(|stopped| *stopped), if !shutting => {
                        connection.as_mut().graceful_shutdown();
                        shutting = true;
                    }
                    () = idle(), if !shutting => {
                        connection.as_mut().graceful_shutdown();
                        shutting = true;
                    }
                }
            };
            // hyper answers a request it cannot parse itself (400, 414, 431) and ends the connection with the
            // error: the request never reached `answer`, so it is journaled here, once, as rejected.
            if let Err(error) = ended {
                let parse =
                    error.downcast_ref::<hyper::Error>().is_some_and(|e| e.is_parse() || e.is_parse_too_large());
                if parse {
                    let reason = format!("the HTTP request could not be parsed: {error}");
                    journal.reject(crate::model::ChatRequest::default(), None, reason);
                }
            }
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    drop(open);
    let _ = tokio::time::timeout(Duration::from_secs(1), all_closed.recv()).await;
}

/// What accepts TLS connections (nothing without the `tls` feature).
#[cfg(feature = "tls")]
type TlsAcceptor = tls::Acceptor;
#[cfg(not(feature = "tls"))]
type TlsAcceptor = std::convert::Infallible;

/// Makes the TLS certificate when the options ask for it.
#[cfg(feature = "tls")]
fn start_tls(ca_path: Option<&str>) -> Result<Option<TlsAcceptor>> {
    ca_path.map(tls::start).transpose()
}

#[cfg(not(feature = "tls"))]
fn start_tls(ca_path: Option<&str>) -> Result<Option<TlsAcceptor>> {
    match ca_path {
        None => Ok(None),
        Some(_) => {
            Err(Error::new(ErrorKind::InvalidArgument, "TLS (`tls_cert`) needs cuecard built with the `tls` feature")
                .with_context("field", "tls_cert"))
        }
    }
}

/// The connection hyper serves: TLS when it is on and the connection's first byte opens a TLS handshake (within the
/// idle timeout), the plain stream otherwise; `None` when the handshake fails.
#[cfg(feature = "tls")]
async fn secured(
    stream: tokio::net::TcpStream,
    first: u8,
    tls: Option<&TlsAcceptor>,
    idle_timeout: Option<Duration>,
) -> Option<tls::Connection> {
    match tls {
        Some(acceptor) if first == tls::HANDSHAKE => match idle_timeout {
            Some(idle) => tokio::time::timeout(idle, acceptor.accept(stream)).await.ok().flatten(),
            None => acceptor.accept(stream).await,
        },
        _ => Some(tls::Connection::Plain(stream)),
    }
}

#[cfg(not(feature = "tls"))]
async fn secured(
    stream: tokio::net::TcpStream,
    _first: u8,
    _tls: Option<&TlsAcceptor>,
    _idle_timeout: Option<Duration>,
) -> Option<tokio::net::TcpStream> {
    Some(stream)
}

/// Whether spans posted to the OTLP `endpoint` would reach the server listening on `addr` (issue #59 S14): the
/// same port, on `localhost`, a loopback address, the address bound, or any address when it binds them all.
#[cfg(feature = "otlp")]
fn exports_to(endpoint: &str, addr: SocketAddr) -> bool {
    let Ok(url) = crate::telemetry::traces_url(endpoint) else { return false };
    let authority = url.trim_start_matches("http://").split('/').next().unwrap_or_default();
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, port.parse::<u16>().ok()),
        _ => (authority, Some(80)),
    };
    if port != Some(addr.port()) {
        return false;
    }
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return addr.ip().is_loopback() || addr.ip().is_unspecified();
    }
    host.parse::<IpAddr>()
        .is_ok_and(|ip| ip == addr.ip() || addr.ip().is_unspecified() || (ip.is_loopback() && addr.ip().is_loopback()))
}

/// Without the `otlp` feature an endpoint is refused when telemetry starts.
#[cfg(not(feature = "otlp"))]
fn exports_to(_: &str, _: SocketAddr) -> bool {
    false
}

/// How connections are served: HTTP/1.1 and HTTP/2 on the same port. No Date header: nothing time-dependent leaks
/// into replies. `half_close`: a client may shut down its write side once its request is sent and still wait for the
/// answer; without it hyper drops the connection at that EOF, unanswered and unjournaled. The header timeout also
/// closes HTTP/1 connections idle between requests; HTTP/2 connections are closed by the same idle timeout through
/// keep-alive pings that go unanswered, and (`idle`) when no request has been in flight for it.
fn connection_builder(idle_timeout: Option<Duration>) -> hyper_util::server::conn::auto::Builder<TokioExecutor> {
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .keep_alive(true)
        .half_close(true)
        .auto_date_header(false)
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(idle_timeout);
    let mut http2 = builder.http2();
    http2.auto_date_header(false).timer(hyper_util::rt::TokioTimer::new());
    if let Some(idle) = idle_timeout {
        http2.keep_alive_interval(idle).keep_alive_timeout(idle);
    }
    builder
}

/// The first and the longest wait after a failed accept.
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Whether an admin request carries the server's admin token: `Authorization: Bearer <token>` (the scheme in any
/// case, as RFC 9110 has it) or `x-cuecard-admin-token: <token>`, compared in constant time.
fn carries_admin_token(headers: &hyper::HeaderMap, token: &str) -> bool {
    let bearer = headers
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .is_some_and(|(_, given)| same_secret(given.trim_start().as_bytes(), token.as_bytes()));
    let named =
        headers.get("x-cuecard-admin-token").is_some_and(|given| same_secret(given.as_bytes(), token.as_bytes()));
    bearer || named
}

/// `given == expected`, in a time that depends on their lengths only, not on where they first differ: a client
/// timing the 401s learns nothing about the token's characters.
fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    let differences = given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b));
    // `black_box` keeps the optimizer from turning the fold into an early exit.
    std::hint::black_box(differences) == 0 && given.len() == expected.len()
}

/// What a request is served from: the tests' mocks, and the server's stop signal (which a socket outliving its
/// request listens to).
struct Served {
    tests: Arc<Tests>,
    stopping: tokio::sync::watch::Receiver<bool>,
}

async fn answer(
    served: Served,
    request: hyper::Request<Incoming>,
    instant: bool,
    admin_token: Option<Arc<str>>,
    body_timeout: Option<Duration>,
    telemetry: Exporter,
) -> std::result::Result<hyper::Response<ReplyBody>, Cut> {
    let Served { tests, stopping } = served;
    let (mut parts, body) = request.into_parts();
    let span = begin_span(telemetry, &parts);
    if let Some(token) = &admin_token {
        if wire::is_admin_path(parts.uri.path()) && !carries_admin_token(&parts.headers, token) {
            return Ok(reply_now(wire::admin_token_refusal()));
        }
    }
    // Only the headers the wire layer reads are copied: fewer allocations per request under load. MCP reads its own
    // (`mcp-session-id`, `mcp-protocol-version`, `accept`), so its requests keep them all.
    let mcp = crate::mcp::is_mcp_path(crate::isolation::unprefixed(parts.uri.path()));
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .filter(|(name, _)| mcp || wire::READ_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| (name.as_str().to_string(), wire::lossy_text(value.as_bytes())))
        .collect();
    let mut http = HttpRequest {
        method: parts.method.as_str().to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().unwrap_or_default().to_string(),
        headers,
        body: Vec::new(),
        // Any admin request without the token was refused above.
        admin_token_checked: admin_token.is_some() && wire::is_admin_path(parts.uri.path()),
        mount: String::new(),
    };
    // The test a request belongs to (`/t/{id}/...` or `x-cuecard-test`), its path made the one that test's mock serves.
    // Read as text whatever its bytes, so an id that is not ASCII is refused as every invalid id is, instead of
    // meaning the default test (issue #59, S12).
    let header_id = parts.headers.get(crate::isolation::TEST_HEADER).map(|v| wire::lossy_text(v.as_bytes()));
    let mock = match tests.select(&mut http, header_id.as_deref()) {
        Ok(mock) => mock,
        Err(reply) => return Ok(reply_now(reply)),
    };
    // Read one byte past the limit, so an oversized body is seen as such and answered with 413. The idle timeout
    // bounds the body too: hyper's header timeout ends at the blank line, and stalled bodies would otherwise hold
    // their connections (and file descriptors) forever. A body that cannot be read (malformed chunked encoding, a
    // client that broke off) is answered 400, a stalled one 408, and either is journaled as rejected.
    let read = Limited::new(body, MAX_BODY_BYTES + 1).collect();
    let read = match body_timeout {
        Some(limit) => tokio::time::timeout(limit, read).await,
        None => Ok(read.await),
    };
    http.body = match read {
        Ok(Ok(collected)) => collected.to_bytes().to_vec(),
        Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => vec![0; MAX_BODY_BYTES + 1],
        Ok(Err(e)) => {
            let reason = format!("the request body could not be read: {e}");
            return Ok(reply_now(wire::unreadable_body_reply(&mock, &http, 400, &reason)));
        }
        Err(_) => {
            let waited = body_timeout.map_or(0, |limit| limit.as_millis());
            let reason = format!(
                "the request body did not arrive within {waited} ms (the server's idle timeout, `idle_timeout_ms`)"
            );
            return Ok(reply_now(wire::unreadable_body_reply(&mock, &http, 408, &reason)));
        }
    };
    if wire::is_whole_journal_read(&http) {
        // Sent as it is written, a page at a time: a long journal is never one body in memory.
        let headers = vec![("content-type".into(), "application/json".into())];
        return Ok(response(200, headers, ReplyBody::pieces(journal_pieces(mock))));
    }
    let instant = instant || mock.is_instant();
    let wait = |ms: u64| async move {
        if !instant && ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    };
    // The admin surface (a scenario to parse, a whole journal to write) and embeddings (up to a million values) can
    // take long: they run on the blocking pool, so that two of them cannot hold both of the runtime's threads and
    // freeze every endpoint. So does a computed step's callback: it is the host's code (a Python, JS or Java
    // function) and may take any time. The rest of a model request stays on the runtime: it is quick, and the
    // hop would cost it.
    // A socket's messages are addressed to the path it opened on.
    let socket_path = wire::sockets::is_upgrade(&http).then(|| http.path.clone());
    let (reply, ticket) = if wire::may_take_long(&http.path) {
        let (mock, http) = (Arc::clone(&mock), http);
        on_blocking_pool(move || journaled(|| wire::handle(&mock, &http))).await?
    } else {
        match journaled(|| wire::handle_turn(&mock, &http)) {
            (Turn::Done(reply), ticket) => (reply, ticket),
            (Turn::Pending(pending), ticket) => {
                let mock = Arc::clone(&mock);
                (on_blocking_pool(move || pending.respond_here(&mock)).await?, ticket)
            }
        }
    };
    match reply {
        HttpReply::Socket { status: 101, headers, socket, frames, end, .. } => {
            end_span(span, &mock, ticket, 101);
            let key = parts.headers.get("sec-websocket-key").map(|v| v.as_bytes().to_vec());
            let (Some(upgrade), Some(key)) = (parts.extensions.remove::<hyper::upgrade::OnUpgrade>(), key) else {
                // Not an HTTP/1.1 upgrade (or no key): the session cannot start.
                mock.close_socket(&socket);
                let reason = "a WebSocket upgrade needs HTTP/1.1 and a sec-websocket-key";
                return Ok(reply_now(wire::error_reply(
                    wire::Dialect::OpenAi,
                    &crate::provider_error::ProviderError::new(crate::provider_error::ProviderErrorKind::BadRequest)
                        .with_message(reason),
                    "req_socket",
                    0,
                )));
            };
            let connection = socket::Connection {
                mock: Arc::clone(&mock),
                socket,
                path: socket_path.unwrap_or_default(),
                instant,
                stopping,
            };
            tokio::spawn(socket::serve(upgrade, connection, frames, end));
            Ok(socket::switching(&key, headers))
        }
        HttpReply::Socket { .. } => Err(Cut("a socket message outside a socket")),
        HttpReply::Full { delay_ms, status, headers, body } => {
            wait(delay_ms).await;
            end_span(span, &mock, ticket, status);
            Ok(response(status, headers, ReplyBody::full(body.into_bytes())))
        }
        HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, entry } => {
            let mut body = ReplyBody::stream(&frames, base64, end, stall_ms, instant);
            body.separate_writes = separate_writes;
            body.watch = entry.map(|entry| (Arc::clone(&mock), entry));
            if span.is_some() {
                // The span ends with the stream, when its last frame is sent or its client goes away.
                let mock = Arc::clone(&mock);
                body.on_end = Some(Box::new(move || end_span(span, &mock, ticket, status)));
            }
            Ok(response(status, headers, body))
        }
        HttpReply::Abort { delay_ms } => {
            wait(delay_ms).await;
            end_span(span, &mock, ticket, 0);
            Err(Cut("connection reset as scripted"))
        }
    }
}

/// Runs `answer`, and gives the ticket of the journal entry it made, if any (for the call's span).
fn journaled<T>(answer: impl FnOnce() -> T) -> (T, Option<crate::journal::EntryTicket>) {
    #[cfg(feature = "otlp")]
    {
        let _ = crate::journal::take_last_pushed();
        let value = answer();
        (value, crate::journal::take_last_pushed())
    }
    #[cfg(not(feature = "otlp"))]
    (answer(), None)
}

#[cfg(test)]
mod tests;
