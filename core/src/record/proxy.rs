//! A recording proxy on loopback: each request the recording answers is replayed (by a [`crate::server::Server`] on the
//! file, as `cuecard serve` would answer it); each one it lacks, in a mode that records, is forwarded to the
//! upstream of its protocol, relayed to the client as it arrives (chunk by chunk, never buffered) and recorded,
//! the file written after every exchange (so a stopped proxy leaves a whole file).
//!
//! `cuecard record` runs it; the Rust crate uses it as it is (point any client at [`RecordingProxy::base_url`]),
//! so Rust tests record and replay real traffic with the same rules as every other host.

use super::upstream::HOP_BY_HOP;
use super::{RecordingFile, RecordingSettings, Upstream, UpstreamReply};
use crate::error::{Error, ErrorKind, Result};
use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

type Body = BoxBody<Bytes, std::io::Error>;

/// Where the proxy listens, and whom it trusts upstream (as data for the bindings: `{host?, port?, upstream_ca?}`).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProxyOptions {
    /// The address to bind (127.0.0.1 unless told).
    pub host: IpAddr,
    /// The port; 0 picks a free one.
    pub port: u16,
    /// A PEM file of certificates trusted for upstreams beside Mozilla's roots (a private CA).
    pub upstream_ca: Option<PathBuf>,
}

impl Default for ProxyOptions {
    fn default() -> ProxyOptions {
        ProxyOptions { host: IpAddr::from([127, 0, 0, 1]), port: 0, upstream_ca: None }
    }
}

/// The proxy's shared state.
struct Proxy {
    tls: tokio_rustls::TlsConnector,
    /// The recording file: whether it records, its upstreams, and writing it.
    file: Mutex<RecordingFile>,
    records: bool,
    /// The server replaying what the file held when the proxy started.
    replay: Option<crate::server::Server>,
}

/// A running recording proxy; stopped when dropped.
pub struct RecordingProxy {
    proxy: Arc<Proxy>,
    addr: SocketAddr,
    replays: bool,
    /// The file's age warning, when it is replayed past its `max_age_days`.
    age_warning: Option<String>,
    replay_mock: Option<Arc<crate::mock::MockModel>>,
    /// The proxy's threads, until stopped.
    runtime: Mutex<Option<tokio::runtime::Runtime>>,
}

impl std::fmt::Debug for RecordingProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RecordingProxy({}, replays: {}, records: {})", self.addr, self.replays, self.proxy.records)
    }
}

impl RecordingProxy {
    /// Opens the recording at `path` with `settings` (its mode, upstreams, redaction: [`RecordingFile::open_with`])
    /// and serves it on `options.host:options.port`.
    pub fn start(path: impl AsRef<Path>, settings: &RecordingSettings, options: &ProxyOptions) -> Result<Self> {
        let io = |what: String| Error::new(ErrorKind::Io, what);
        let file = RecordingFile::open_with(path, settings)?;
        let (records, replays, age_warning) = (file.records(), file.replays(), file.age_warning());
        let mut replay_mock = None;
        let replay = match file.replay_scenario()? {
            Some(scenario) => {
                let mock = Arc::new(crate::mock::MockModel::from_scenario(&scenario)?);
                replay_mock = Some(mock.clone());
                let options = crate::server::ServerOptions { port: 0, ..crate::server::ServerOptions::default() };
                Some(crate::server::Server::start_with(mock, options)?)
            }
            None => None,
        };
        let tls = tls_connector(options.upstream_ca.as_deref())?;
        let proxy = Arc::new(Proxy { tls, file: Mutex::new(file), records, replay });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| io(format!("cannot start the proxy's threads: {e}")))?;
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind((options.host, options.port)))
            .map_err(|e| io(format!("cannot listen on {}:{}: {e}", options.host, options.port)))?;
        let addr = listener.local_addr().map_err(|e| io(e.to_string()))?;
        let accepting = proxy.clone();
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { continue };
                // Without it a reply's headers and body wait for the client's delayed ACK (44 ms an exchange).
                let _ = stream.set_nodelay(true);
                let proxy = accepting.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| answer(proxy.clone(), request));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(RecordingProxy { proxy, addr, replays, age_warning, replay_mock, runtime: Mutex::new(Some(runtime)) })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://HOST:PORT`: the base URL of Anthropic, Gemini, Ollama and Bedrock clients.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://HOST:PORT/v1`: the base URL of OpenAI clients.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Whether it answers from the file first.
    pub fn replays(&self) -> bool {
        self.replays
    }

    /// A warning naming the file when it is replayed past its `max_age_days` (`record::age_warning`).
    pub fn age_warning(&self) -> Option<&str> {
        self.age_warning.as_deref()
    }

    /// Whether it forwards and records what the file lacks.
    pub fn records(&self) -> bool {
        self.proxy.records
    }

    /// How many exchanges were recorded since it started.
    pub fn recorded(&self) -> usize {
        self.proxy.file.lock().map_or(0, |file| file.recorded())
    }

    /// The mock replaying the file (its journal: what it answered, and the misses), when it replays: check it with
    /// `verify` (every recorded exchange used) at the end of a test.
    pub fn replay_mock(&self) -> Option<&Arc<crate::mock::MockModel>> {
        self.replay_mock.as_ref()
    }

    /// Stops it (idempotent, from any thread): no new connection is taken, and exchanges in flight are dropped.
    pub fn stop(&self) {
        let runtime = self.runtime.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(runtime) = runtime {
            runtime.shutdown_background();
        }
        if let Some(replay) = &self.proxy.replay {
            replay.stop();
        }
        // The runtime's tasks (each holding the proxy) are dropped in the background: the file's lock is released
        // here, so a recorder started next finds the file free.
        self.proxy.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner).close();
    }
}

impl Drop for RecordingProxy {
    fn drop(&mut self) {
        self.stop();
    }
}

fn tls_connector(extra_ca: Option<&Path>) -> Result<tokio_rustls::TlsConnector> {
    let bad = |what: String| Error::new(ErrorKind::InvalidArgument, what).with_context("argument", "upstream_ca");
    use rustls_pki_types::pem::PemObject;
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(path) = extra_ca {
        let certificates = rustls_pki_types::CertificateDer::pem_file_iter(path)
            .map_err(|e| bad(format!("cannot read the upstream CA {}: {e}", path.display())))?;
        for certificate in certificates {
            let certificate = certificate.map_err(|e| bad(format!("the upstream CA {}: {e}", path.display())))?;
            roots.add(certificate).map_err(|e| bad(format!("the upstream CA {}: {e}", path.display())))?;
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::new(ErrorKind::Internal, e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_rustls::TlsConnector::from(Arc::new(config)))
}

fn full(status: u16, text: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(text)).map_err(|never| match never {}).boxed());
    *response.status_mut() = hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_GATEWAY);
    response
}

/// One request from the client: replayed when the recording answers it, else forwarded (and recorded).
async fn answer(proxy: Arc<Proxy>, request: Request<Incoming>) -> Result<Response<Body>, std::convert::Infallible> {
    let (parts, body) = request.into_parts();
    let body = match http_body_util::Limited::new(body, crate::http::MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return Ok(full(400, format!("cuecard record: cannot read the request body: {e}"))),
    };
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_string();
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .filter_map(|(n, v)| v.to_str().ok().map(|v| (n.as_str().to_string(), v.to_string())))
        .collect();
    // A relayed agent card is pointed back at the proxy (`{client's Host}/a2a[/{name}]`), so the client's messages
    // come through it too.
    let card_endpoint = super::a2a::is_card_path(parts.uri.path()).then(|| {
        let host = headers.iter().find(|(n, _)| n == "host").map_or("127.0.0.1", |(_, v)| v.as_str());
        let path = parts.uri.path();
        let base = ["/.well-known/agent-card.json", "/.well-known/agent.json"]
            .iter()
            .find_map(|file| path.strip_suffix(file))
            .filter(|base| !base.is_empty())
            .unwrap_or("/a2a");
        format!("http://{host}{base}")
    });
    if let Some(replay) = &proxy.replay {
        match forward(&proxy.tls, &local(replay), parts.method.as_str(), &target, &headers, body.clone()).await {
            // Replay only: a miss is the answer itself (the replay server's provider-shaped no_recording), sent
            // once, so the replay's journal holds it once.
            Ok(response) if !proxy.records || !is_miss(&response) => {
                return Ok(match card_endpoint {
                    Some(endpoint) => relay_card(response, endpoint, None).await,
                    None => relay(response, None),
                })
            }
            Ok(_) => {}
            Err(e) => return Ok(full(502, format!("cuecard record: the replay server failed: {e}"))),
        }
    }
    if !proxy.records {
        return Ok(full(502, "cuecard record: nothing to replay and nothing to record (--mode none)".into()));
    }
    let recorded_request =
        crate::http::HttpRequest::new(parts.method.as_str(), &target, headers.clone(), body.to_vec());
    let upstream = match proxy.file.lock().map(|file| file.upstream_for(&recorded_request).cloned()) {
        Ok(Ok(upstream)) => upstream,
        Ok(Err(e)) => return Ok(full(502, format!("cuecard record: {}", e.message()))),
        Err(_) => return Ok(full(500, "cuecard record: the recording failed while being written".into())),
    };
    let started = Instant::now();
    let upstream_target = super::upstream_target(parts.uri.path(), &target);
    match forward(&proxy.tls, &upstream, parts.method.as_str(), &upstream_target, &headers, body).await {
        Ok(response) => Ok(match card_endpoint {
            Some(endpoint) => relay_card(response, endpoint, Some((proxy.clone(), recorded_request, started))).await,
            None => relay(response, Some((proxy.clone(), recorded_request, started))),
        }),
        Err(e) => {
            Ok(full(502, format!("cuecard record: the upstream {}:{} failed: {e}", upstream.host, upstream.port)))
        }
    }
}

/// The in-process replay server as an upstream.
fn local(server: &crate::server::Server) -> Upstream {
    let address = server.addr();
    Upstream {
        protocol: None,
        https: false,
        host: address.ip().to_string(),
        port: address.port(),
        prefix: String::new(),
    }
}

/// Whether the replay server's answer is a recording it lacks (or one it has used up).
fn is_miss(response: &Response<Incoming>) -> bool {
    RecordingFile::is_miss(response.headers().iter().filter_map(|(n, v)| v.to_str().ok().map(|v| (n.as_str(), v))))
}

/// Sends one request to `upstream` on a connection of its own (a recorder's load is a test's).
async fn forward(
    tls: &tokio_rustls::TlsConnector,
    upstream: &Upstream,
    method: &str,
    target: &str,
    headers: &[(String, String)],
    body: Bytes,
) -> Result<Response<Incoming>, String> {
    let mut builder = Request::builder().method(method).uri(format!("{}{target}", upstream.prefix));
    builder = builder.header("host", upstream.authority());
    for (name, value) in super::forwarded_headers(headers) {
        builder = builder.header(name, value);
    }
    let request = builder.body(Full::new(body)).map_err(|e| e.to_string())?;
    let tcp =
        tokio::net::TcpStream::connect((upstream.host.as_str(), upstream.port)).await.map_err(|e| e.to_string())?;
    // hyper writes the request's head and body in two segments: without it the body waits for the upstream's
    // delayed ACK, 44 ms an exchange (issue #59 S6).
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    if upstream.https {
        let name = rustls_pki_types::ServerName::try_from(upstream.host.clone()).map_err(|e| e.to_string())?;
        let stream = tls.connect(name, tcp).await.map_err(|e| format!("TLS: {e}"))?;
        send(TokioIo::new(stream), request).await
    } else {
        send(TokioIo::new(tcp), request).await
    }
}

async fn send<IO>(io: IO, request: Request<Full<Bytes>>) -> Result<Response<Incoming>, String>
where
    IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    sender.send_request(request).await.map_err(|e| e.to_string())
}

/// The client's response: the upstream's status and headers at once, then each body chunk as it arrives. With a
/// recorder, the chunks are kept with their times and the exchange is recorded when the body ends.
fn relay(
    response: Response<Incoming>,
    recording: Option<(Arc<Proxy>, crate::http::HttpRequest, Instant)>,
) -> Response<Body> {
    let (parts, mut incoming) = response.into_parts();
    let status = parts.status.as_u16();
    let headers: Vec<(String, String)> = parts
        .headers
        .iter()
        .filter_map(|(n, v)| v.to_str().ok().map(|v| (n.as_str().to_string(), v.to_string())))
        .collect();
    let headers_ms = recording.as_ref().map_or(0, |(_, _, started)| elapsed_ms(*started));
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(16);
    let kept_headers = headers.clone();
    tokio::spawn(async move {
        let mut chunks = Vec::new();
        let mut cut = false;
        loop {
            match incoming.frame().await {
                Some(Ok(frame)) => {
                    if let Some(data) = frame.data_ref() {
                        if let Some((_, _, started)) = &recording {
                            chunks.push((elapsed_ms(*started), data.to_vec()));
                        }
                        // A client that left does not stop the recording.
                        let _ = sender.send(Ok(Frame::data(data.clone()))).await;
                    }
                }
                Some(Err(e)) => {
                    cut = true;
                    let _ = sender.send(Err(std::io::Error::other(e.to_string()))).await;
                    break;
                }
                None => break,
            }
        }
        if let Some((proxy, request, _)) = recording {
            let reply = UpstreamReply { status, headers: kept_headers, headers_ms, chunks, cut };
            // The body ends only once the exchange is written: a client whose exchange was not recorded sees its
            // body fail (the status was relayed already), not a success that a replay will lack.
            if let Err(e) = write_exchange(&proxy, &request, &reply) {
                let _ = sender.send(Err(std::io::Error::other(e))).await;
            }
        }
    });
    let mut out = Response::new(BodyExt::boxed(ChannelBody(receiver)));
    *out.status_mut() = parts.status;
    for (name, value) in &headers {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            if let (Ok(name), Ok(value)) =
                (hyper::header::HeaderName::from_bytes(name.as_bytes()), hyper::header::HeaderValue::from_str(value))
            {
                out.headers_mut().append(name, value);
            }
        }
    }
    out
}

/// An agent card's response: read whole (a card is small), recorded as it came, and relayed with its endpoints made
/// `endpoint` ([`super::a2a::card_pointing_at`]). A body that is not JSON is relayed as it came.
async fn relay_card(
    response: Response<Incoming>,
    endpoint: String,
    recording: Option<(Arc<Proxy>, crate::http::HttpRequest, Instant)>,
) -> Response<Body> {
    let (parts, incoming) = response.into_parts();
    let headers_ms = recording.as_ref().map_or(0, |(_, _, started)| elapsed_ms(*started));
    let (body, cut) = match http_body_util::Limited::new(incoming, crate::http::MAX_BODY_BYTES).collect().await {
        Ok(collected) => (collected.to_bytes(), false),
        Err(_) => (Bytes::new(), true),
    };
    if let Some((proxy, request, started)) = recording {
        let headers: Vec<(String, String)> = parts
            .headers
            .iter()
            .filter_map(|(n, v)| v.to_str().ok().map(|v| (n.as_str().to_string(), v.to_string())))
            .collect();
        let chunks = vec![(elapsed_ms(started), body.to_vec())];
        let reply = UpstreamReply { status: parts.status.as_u16(), headers, headers_ms, chunks, cut };
        if let Err(e) = write_exchange(&proxy, &request, &reply) {
            return full(502, e);
        }
    }
    let body = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(mut card) => {
            super::a2a::card_pointing_at(&mut card, &endpoint);
            Bytes::from(card.to_string())
        }
        Err(_) => body,
    };
    let mut out = full(parts.status.as_u16(), String::new());
    *out.body_mut() = Full::new(body).map_err(|never| match never {}).boxed();
    for (name, value) in &parts.headers {
        if !HOP_BY_HOP.contains(&name.as_str()) {
            out.headers_mut().append(name, value.clone());
        }
    }
    out
}

/// A body whose frames come from a channel: the relay task sends each upstream chunk as it arrives.
struct ChannelBody(tokio::sync::mpsc::Receiver<Result<Frame<Bytes>, std::io::Error>>);

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        self.0.poll_recv(cx)
    }
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Records one exchange and writes it ([`RecordingFile::record`]); what failed is said on stderr too.
fn write_exchange(proxy: &Proxy, request: &crate::http::HttpRequest, reply: &UpstreamReply) -> Result<(), String> {
    use std::io::Write;
    let mut file = proxy.file.lock().map_err(|_| "the recording's lock is poisoned".to_string())?;
    file.record(request, reply).map_err(|e| {
        let said = format!("cuecard: not recorded in {}: {e}", file.path().display());
        let _ = writeln!(std::io::stderr(), "{said}");
        said
    })
}
