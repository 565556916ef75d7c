//! The wire protocols as pure functions: an HTTP request in, the provider's exact HTTP reply out.
//!
//! No I/O happens here, so the same code answers the loopback server, the bindings' in-process transports
//! (Python `httpx`, a JS `fetch`) and the WASM build. A reply says what to send and when: the status and
//! headers, then either a whole body or SSE frames, each with the virtual delay to wait before it.
//!
//! Endpoints (`spec/wire-protocols.md`): `POST /v1/chat/completions`, `POST /v1/responses`, `POST /v1/messages`,
//! `GET /v1/models`, `POST /v1/embeddings` (also without the `/v1` prefix), and the admin surface under
//! `/_cuecard/`. The operation name of a request comes from the `x-cuecard-operation` header.

// The encoders build JSON objects with `json!` and then set fields with `value["key"] = …`; serde_json's
// IndexMut on an object (or null) inserts and cannot panic, which is the only way it is used here.
#![allow(clippy::indexing_slicing)]

mod anthropic;
mod errors;
mod extras;
mod json;
mod openai_chat;
mod openai_responses;

use crate::journal::RawRequest;
use crate::mock::MockModel;
use crate::model::ChatRequest;
use crate::script::CallError;
use crate::stream::EventStream;

pub use errors::{error_reply, Dialect};

/// Largest request body accepted; larger bodies get a provider-shaped 413.
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// Header naming the operation of a request (the main routing key).
pub const OPERATION_HEADER: &str = "x-cuecard-operation";

/// The request headers the wire layer reads (lower case); transports may pass only these.
pub const READ_HEADERS: [&str; 3] = [OPERATION_HEADER, "anthropic-version", "content-type"];

/// An HTTP request as the wire layer sees it.
#[derive(Clone, Debug, Default)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    /// Headers with lower-case names.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// A `POST` with a JSON body.
    pub fn post_json(path: &str, body: &str) -> HttpRequest {
        HttpRequest {
            method: "POST".into(),
            path: path.into(),
            body: body.as_bytes().to_vec(),
            ..HttpRequest::default()
        }
    }

    /// Adds a header (the name is lower-cased).
    pub fn with_header(mut self, name: &str, value: &str) -> HttpRequest {
        self.headers.push((name.to_ascii_lowercase(), value.to_string()));
        self
    }

    /// The first header with this (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// One piece of a streamed body, sent after waiting `delay_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Virtual milliseconds to wait before sending it.
    pub delay_ms: u64,
    /// The bytes (one whole SSE event).
    pub bytes: Vec<u8>,
}

/// How a streamed body ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// The body ends normally.
    Close,
    /// The connection is cut: the body ends without its final chunk, which clients see as a broken transfer.
    Cut,
}

/// What to answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HttpReply {
    /// A whole response.
    Full {
        /// Wait this long before sending anything.
        delay_ms: u64,
        /// Status.
        status: u16,
        /// Headers.
        headers: Vec<(String, String)>,
        /// Body.
        body: Vec<u8>,
    },
    /// A streamed (SSE) response: headers at once, then the frames.
    Stream {
        /// Wait this long after the headers, before the first frame (a stall).
        stall_ms: u64,
        /// Status (200).
        status: u16,
        /// Headers.
        headers: Vec<(String, String)>,
        /// The frames.
        frames: Vec<Frame>,
        /// How the body ends.
        end: StreamEnd,
    },
    /// Close the connection without any response (a connection reset before headers).
    Abort {
        /// Wait this long first.
        delay_ms: u64,
    },
}

impl HttpReply {
    /// The status (0 for an abort).
    pub fn status(&self) -> u16 {
        match self {
            HttpReply::Full { status, .. } | HttpReply::Stream { status, .. } => *status,
            HttpReply::Abort { .. } => 0,
        }
    }

    /// The whole body as bytes (a stream's frames concatenated).
    pub fn body_bytes(&self) -> Vec<u8> {
        match self {
            HttpReply::Full { body, .. } => body.clone(),
            HttpReply::Stream { frames, .. } => frames.iter().flat_map(|f| f.bytes.iter().copied()).collect(),
            HttpReply::Abort { .. } => Vec::new(),
        }
    }

    /// A header of the reply.
    pub fn header(&self, name: &str) -> Option<&str> {
        match self {
            HttpReply::Full { headers, .. } | HttpReply::Stream { headers, .. } => {
                headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
            }
            HttpReply::Abort { .. } => None,
        }
    }
}

pub(crate) fn json_reply(status: u16, mut headers: Vec<(String, String)>, body: &serde_json::Value) -> HttpReply {
    headers.insert(0, ("content-type".into(), "application/json".into()));
    HttpReply::Full { delay_ms: 0, status, headers, body: body.to_string().into_bytes() }
}

pub(crate) fn sse_headers(extra: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".to_string(), "text/event-stream; charset=utf-8".to_string()),
        ("cache-control".to_string(), "no-cache".to_string()),
    ];
    headers.extend(extra);
    headers
}

/// An SSE event: an optional `event:` line, one `data:` line, and the blank line that dispatches it.
pub(crate) fn sse_event(name: Option<&str>, data: &str) -> Vec<u8> {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(name) = name {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(data);
    out.push_str("\n\n");
    out.into_bytes()
}

/// The streamed reply around `frames`: SSE headers with the request id, and the end the stream asks for (a cut
/// connection only when it fails with the `connection_cut` form).
pub(crate) fn stream_reply(stream: &EventStream, id_header: &str, request_id: &str, frames: Vec<Frame>) -> HttpReply {
    let cut = stream.error().is_some() && stream.stream_break() == crate::StreamBreak::ConnectionCut;
    HttpReply::Stream {
        stall_ms: stream.stall_ms(),
        status: 200,
        headers: sse_headers(vec![(id_header.to_string(), request_id.to_string())]),
        frames,
        end: if cut { StreamEnd::Cut } else { StreamEnd::Close },
    }
}

/// The response whose id, model and creation time every event of a stream repeats: the complete response, or
/// for a stream that fails before completing, the same values the mock would have given it.
pub(crate) fn stream_envelope(stream: &EventStream, request: &DecodedRequest) -> crate::ChatResponse {
    stream.response().cloned().unwrap_or_else(|| crate::ChatResponse {
        id: Some(format!("chatcmpl-{}", stream.request_index() + 1)),
        model: Some(request.request.model.clone()),
        created: Some(crate::CLOCK_EPOCH_SECONDS),
        ..crate::ChatResponse::default()
    })
}

/// A protocol that answers chat requests.
trait ChatProtocol {
    const DIALECT: Dialect;
    const ENDPOINT: &'static str;
    /// The request JSON as a neutral request, or a message saying what is wrong.
    fn decode(body: &serde_json::Value) -> Result<DecodedRequest, String>;
    /// A whole response.
    fn encode_response(response: &crate::ChatResponse, request: &DecodedRequest, request_id: &str) -> HttpReply;
    /// A stream.
    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply;
}

/// A decoded request and the protocol options that shape the answer.
pub(crate) struct DecodedRequest {
    pub request: ChatRequest,
    /// OpenAI Chat `stream_options.include_usage`.
    pub include_usage: bool,
}

/// Answers one HTTP request against `mock`. Every request except the admin surface is journaled exactly once.
pub fn handle(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let path = request.path.trim_end_matches('/');
    let path = path.strip_prefix("/v1").unwrap_or(path);
    match (request.method.as_str(), path) {
        ("POST", "/chat/completions") => chat::<openai_chat::OpenAiChat>(mock, request),
        ("POST", "/responses") => chat::<openai_responses::OpenAiResponses>(mock, request),
        ("POST", "/messages") => chat::<anthropic::AnthropicMessages>(mock, request),
        ("GET", "/models") => extras::models(mock, request),
        ("POST", "/embeddings") => extras::embeddings(mock, request),
        (_, p) if p.starts_with("/_cuecard") || request.path.starts_with("/_cuecard") => extras::admin(mock, request),
        (method, _) => {
            let dialect =
                if request.header("anthropic-version").is_some() { Dialect::Anthropic } else { Dialect::OpenAi };
            let message = format!("unknown path: {method} {} (cuecard serves /v1/chat/completions, /v1/responses, /v1/messages, /v1/models, /v1/embeddings)", request.path);
            mock.reject(ChatRequest::default(), Some(raw(request)), message.clone());
            errors::cuecard_reply(dialect, 404, "not_found", &message, &next_request_id(mock))
        }
    }
}

pub(crate) fn raw(request: &HttpRequest) -> RawRequest {
    RawRequest { path: request.path.clone(), body: String::from_utf8_lossy(&request.body).into_owned() }
}

/// A request id for replies that have no journal index of their own (`req_<requests so far>`).
pub(crate) fn next_request_id(mock: &MockModel) -> String {
    format!("req_{}", mock.request_count())
}

fn chat<P: ChatProtocol>(mock: &MockModel, http: &HttpRequest) -> HttpReply {
    let dialect = P::DIALECT;
    if http.body.len() > MAX_BODY_BYTES {
        let message =
            format!("request body of {} bytes is larger than the limit of {MAX_BODY_BYTES} bytes", http.body.len());
        let request = ChatRequest { metadata: endpoint_metadata(P::ENDPOINT, http), ..ChatRequest::default() };
        mock.reject(request, Some(RawRequest { path: http.path.clone(), body: String::new() }), message.clone());
        return errors::cuecard_reply(dialect, 413, "request_too_large", &message, &next_request_id(mock));
    }
    let parsed: Result<serde_json::Value, String> = std::str::from_utf8(&http.body)
        .map_err(|e| format!("the request body is not valid UTF-8 (byte {})", e.valid_up_to()))
        .and_then(|text| serde_json::from_str(text).map_err(|e| format!("the request body is not valid JSON: {e}")));
    let decoded = parsed.and_then(|body| P::decode(&body));
    let mut decoded = match decoded {
        Ok(decoded) => decoded,
        Err(message) => {
            let request = ChatRequest { metadata: endpoint_metadata(P::ENDPOINT, http), ..ChatRequest::default() };
            mock.reject(request, Some(raw(http)), message.clone());
            return errors::cuecard_reply(dialect, 400, "invalid_request", &message, &next_request_id(mock));
        }
    };
    let metadata = endpoint_metadata(P::ENDPOINT, http);
    decoded.request.metadata.endpoint = metadata.endpoint;
    if metadata.operation.is_some() {
        decoded.request.metadata.operation = metadata.operation;
    }
    if !decoded.request.stream {
        return whole_answer::<P>(mock, http, &decoded);
    }
    match mock.chat_stream_raw(&decoded.request, Some(raw(http))) {
        Ok(stream) => {
            let request_id = format!("req_{}", stream.request_index() + 1);
            if let Some(error) = stream.error().filter(|_| stream.response().is_none() && stream.events().len() == 1) {
                // A failure before anything is streamed is an HTTP error, also when a stream was asked for.
                let delay_ms = stream.events().first().map_or(0, |e| e.delay_ms) + stream.stall_ms();
                return error_reply(dialect, error, &request_id, delay_ms);
            }
            P::encode_stream(&stream, &decoded, &request_id)
        }
        Err(error) => call_error_reply(dialect, &error, &next_request_id(mock), 0),
    }
}

/// A non-streaming answer: the response (or failure) after the step's whole virtual duration.
fn whole_answer<P: ChatProtocol>(mock: &MockModel, http: &HttpRequest, decoded: &DecodedRequest) -> HttpReply {
    let exchange = mock.chat_timed_raw(&decoded.request, Some(raw(http)));
    let request_id = format!("req_{}", exchange.index + 1);
    let delay_ms = exchange.delay_ms + exchange.stall_ms;
    match exchange.result {
        Ok(response) => match P::encode_response(&response, decoded, &request_id) {
            HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms, status, headers, body },
            other => other,
        },
        Err(error) => call_error_reply(P::DIALECT, &error, &request_id, delay_ms),
    }
}

/// A failed call on the wire: a scripted failure in the provider's shape, or cuecard's own refusal (script
/// exhausted, no route, a callback that failed) as a provider-shaped 500 that SDKs do not retry.
fn call_error_reply(dialect: Dialect, error: &CallError, request_id: &str, delay_ms: u64) -> HttpReply {
    let (code, message) = match error {
        CallError::Provider(error) => return error_reply(dialect, error, request_id, delay_ms),
        CallError::Cuecard(e) => (e.code(), e.message().to_string()),
        CallError::Host(h) => ("host_error", h.message().to_string()),
    };
    errors::cuecard_reply(dialect, 500, code, &message, request_id)
}

fn endpoint_metadata(endpoint: &str, http: &HttpRequest) -> crate::RequestMetadata {
    crate::RequestMetadata {
        operation: http.header(OPERATION_HEADER).map(str::to_string),
        endpoint: Some(endpoint.to_string()),
        ..crate::RequestMetadata::default()
    }
}

/// The numeric suffix of a response id (`chatcmpl-7` -> `7`), to derive the other protocols' ids from it.
pub(crate) fn id_suffix(id: Option<&str>) -> String {
    let id = id.unwrap_or("0");
    id.rsplit(['-', '_']).next().unwrap_or(id).to_string()
}

#[cfg(test)]
mod tests;
