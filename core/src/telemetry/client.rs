//! The HTTP client the OTLP exporter posts through: hyper over one TCP connection per export, driven by a small
//! runtime of its own. The SDK's batching processor exports from its own thread, outside any async runtime, and
//! blocks on each export there; this client blocks that thread on its runtime, never the server's.

use crate::error::{Error, ErrorKind, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_util::rt::TokioIo;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};
use std::time::Duration;

/// How long an export may take, connecting included.
pub(super) const TIMEOUT: Duration = Duration::from_secs(10);

/// A collector's reply is small (`ExportTraceServiceResponse`); anything past this is not read.
const MAX_REPLY_BYTES: usize = 1024 * 1024;

#[derive(Debug)]
pub(super) struct ExportClient {
    runtime: tokio::runtime::Runtime,
}

impl ExportClient {
    pub(super) fn new() -> Result<ExportClient> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot start the OTLP exporter's runtime: {e}")))?;
        Ok(ExportClient { runtime })
    }
}

#[async_trait::async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> std::result::Result<Response<Bytes>, HttpError> {
        // Called on the batching processor's thread, which runs no runtime of its own: blocking it is the point.
        self.runtime.block_on(async { tokio::time::timeout(TIMEOUT, send(request)).await? })
    }
}

async fn send(request: Request<Bytes>) -> std::result::Result<Response<Bytes>, HttpError> {
    let uri = request.uri().clone();
    let host = uri.host().ok_or_else(|| format!("the OTLP endpoint {uri} has no host"))?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let port = uri.port_u16().unwrap_or(80);
    let stream = tokio::net::TcpStream::connect((host, port)).await?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    // The connection's own task: it ends when the request is answered and `sender` is dropped.
    tokio::spawn(connection);
    let (mut parts, body) = request.into_parts();
    // Origin form on the request line (`POST /v1/traces`), the authority in `Host`: what every server expects.
    parts.uri = uri.path_and_query().map_or("/", |p| p.as_str()).parse()?;
    if let Some(authority) = uri.authority() {
        let value = hyper::header::HeaderValue::from_str(authority.as_str())?;
        parts.headers.entry(hyper::header::HOST).or_insert(value);
    }
    let response = sender.send_request(hyper::Request::from_parts(parts, Full::new(body))).await?;
    let (parts, body) = response.into_parts();
    let body = Limited::new(body, MAX_REPLY_BYTES).collect().await?.to_bytes();
    Ok(Response::from_parts(parts, body))
}
