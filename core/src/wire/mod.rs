//! The wire protocols as pure functions: an HTTP request in, the provider's exact HTTP reply out.
//!
//! No I/O happens here, so the same code answers the loopback server, the bindings' in-process transports
//! (Python `httpx`, a JS `fetch`) and the WASM build. A reply says what to send and when: the status and
//! headers, then either a whole body or stream frames (SSE, or NDJSON for Ollama), each with the virtual delay to
//! wait before it.
//!
//! Protocols (`docs/wire.md`): OpenAI Chat Completions and Responses, Anthropic Messages, Azure OpenAI, Google
//! Gemini (and Vertex AI's paths), Ollama, OpenAI's models and embeddings, each a module here; `routes.rs` is the
//! table of which path is which (`handle` dispatches from it), `admin.rs` the surface under `/_cuecard/`. The
//! operation name of a request comes from the `x-cuecard-operation` header.

// The encoders build JSON objects with `json!` and then set fields with `value["key"] = …`; serde_json's
// IndexMut on an object (or null) inserts and cannot panic, which is the only way it is used here.
#![allow(clippy::indexing_slicing)]

mod admin;
mod anthropic;
mod bedrock;
mod errors;
mod escape;
pub mod eventstream;
mod extras;
pub(crate) mod frames;
mod gemini;
mod json;
mod ollama;
mod openai_chat;
mod openai_responses;
mod routes;

use crate::error::ErrorKind;
use crate::journal::RawRequest;
use crate::mock::pending::Turn;
use crate::mock::{Exchange, MockModel, StreamResult};
use crate::model::ChatRequest;
use crate::script::CallError;
use crate::stream::{Envelope, EventStream};
use routes::Matched;
pub use routes::{endpoint_rows, EndpointRow};
use serde::Serialize;
use std::sync::Arc;

pub use crate::http::{Frame, FrameIter, Frames, HttpReply, HttpRequest, ReplyHeader, StreamEnd, MAX_BODY_BYTES};
pub(crate) use frames::Encoding;

// The admin refusals are for the per-test surface of the server (`isolation`, feature `server`).
pub use crate::contracts::{ContractMode, Contracts, Violation, RULES as CONTRACT_RULES};
pub use crate::delivery::{
    Delivery, LineEnding, Split, Variation, MAX_CHUNK_BYTES, SEED_HEADER as DELIVERY_SEED_HEADER,
};
pub use crate::script::recorded::is_answer_endpoint;
#[cfg(feature = "server")]
pub(crate) use admin::{admin_error, foreign_admin_request};
pub use admin::{is_whole_journal_read, journal_document, write_journal_document};
pub use errors::{error_reply, Dialect};

/// `bytes` as text, with U+FFFD for what is not UTF-8. Valid text (nearly always) is checked by `str::from_utf8`'s
/// fast path: `String::from_utf8_lossy` walks it in chunks, byte by byte, which a profile of the server showed.
pub(crate) fn lossy_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Header naming the operation of a request (the main routing key).
pub const OPERATION_HEADER: &str = "x-cuecard-operation";

/// The request headers the wire layer reads (lower case); transports may pass only these.
/// `origin` and `host` are read for the admin surface, which refuses web pages (`extras::foreign_admin_request`).
/// `x-goog-api-client` and `x-goog-api-key` tell a Google SDK's `GET /v1/models` from OpenAI's (`routes`).
pub const READ_HEADERS: [&str; 7] =
    [OPERATION_HEADER, "anthropic-version", "content-type", "origin", "host", "x-goog-api-client", "x-goog-api-key"];

pub(crate) fn json_reply(status: u16, headers: Vec<ReplyHeader>, body: &impl Serialize) -> HttpReply {
    // Written to a Vec directly (`to_string` through Display goes through fmt::Write piece by piece), which starts
    // at 1 KiB: serde_json's own 128 bytes grew three times for a short chat completion.
    let mut out = Vec::with_capacity(1024);
    let _ = serde_json::to_writer(&mut out, body); // into a Vec, this cannot fail
    json_text_reply(status, headers, out)
}

/// A JSON reply whose body is already written (`json_text`'s rule applies to `body`).
fn json_text_reply(status: u16, headers: Vec<ReplyHeader>, body: Vec<u8>) -> HttpReply {
    // Room for the headers a step adds after (the rate limits are six), so that the list is allocated once.
    let mut all = Vec::with_capacity(headers.len() + 8);
    all.push(("content-type".into(), "application/json".into()));
    all.extend(headers);
    HttpReply::Full { delay_ms: 0, status, headers: all, body: json_text(body) }
}

/// Text that serde_json wrote, with ASCII and `&str`s around it, as a `String` without checking it again: a
/// stream's frames spent about a tenth of their time in `String::from_utf8` re-checking what was valid already.
/// Private to the wire layer (its protocol modules see it; the rest of the crate does not), so that every caller is
/// one of the encoders that keep the rule below.
fn json_text(bytes: Vec<u8>) -> String {
    debug_assert!(std::str::from_utf8(&bytes).is_ok(), "serde_json wrote invalid UTF-8");
    // SAFETY: every caller fills `bytes` only with serde_json's output (which is UTF-8: serde_json::to_string
    // relies on the same guarantee), ASCII literals and the bytes of `&str`s, so the bytes are valid UTF-8.
    unsafe { String::from_utf8_unchecked(bytes) }
}

pub(crate) fn sse_headers(extra: Vec<ReplyHeader>) -> Vec<ReplyHeader> {
    let mut headers = vec![
        ("content-type".into(), "text/event-stream; charset=utf-8".into()),
        ("cache-control".into(), "no-cache".into()),
    ];
    headers.extend(extra);
    headers
}

/// An SSE event: an optional `event:` line, one `data:` line, and the blank line that dispatches it.
/// An SSE event whose data is `data` as JSON, serialized straight into the frame: `Value::to_string` goes
/// through `fmt::Write` one small piece at a time, several times slower for the hundreds of chunks of a stream.
pub(crate) fn sse_json(name: Option<&str>, data: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(256);
    push_sse_json(&mut out, name, data);
    json_text(out)
}

/// `sse_json`'s event appended to `out`, for a frame of several events.
pub(crate) fn push_sse_json(out: &mut Vec<u8>, name: Option<&str>, data: &impl Serialize) {
    if let Some(name) = name {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    let _ = serde_json::to_writer(&mut *out, data); // into a Vec, this cannot fail
    out.extend_from_slice(b"\n\n");
}

/// `text` as a JSON string, quoted and escaped exactly as serde_json writes it, appended to `out` (`escape`). The
/// per-token events are written by hand around it: their keys never change, and serializing a struct escapes every
/// key anew (for an Anthropic text delta, five keys for a one-word token).
pub(crate) use escape::{push_json_id, push_json_str};

/// `number` as JSON, appended to `out`.
pub(crate) fn push_json_number(out: &mut Vec<u8>, number: u64) {
    let _ = serde_json::to_writer(out, &number); // into a Vec, this cannot fail
}

pub(crate) fn sse_event(name: Option<&str>, data: &str) -> String {
    let mut out = String::with_capacity(data.len() + 32);
    if let Some(name) = name {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(data);
    out.push_str("\n\n");
    out
}

/// The streamed reply around `frames`: SSE headers with the request id, and the end the stream asks for.
pub(crate) fn stream_reply(
    stream: &EventStream,
    id_header: &'static str,
    request_id: &str,
    frames: Frames,
) -> HttpReply {
    let headers = sse_headers(vec![(id_header.into(), request_id.to_string().into())]);
    streamed_http_reply(stream, headers, frames, false)
}

/// A streamed reply of `frames` with `headers` (`base64` for binary frames), ending cut only when the stream fails
/// with the `connection_cut` form.
pub(crate) fn streamed_http_reply(
    stream: &EventStream,
    headers: Vec<ReplyHeader>,
    frames: Frames,
    base64: bool,
) -> HttpReply {
    let cut = stream.error().is_some() && stream.stream_break() == crate::script::StreamBreak::ConnectionCut;
    HttpReply::Stream {
        stall_ms: stream.stall_ms(),
        status: 200,
        headers,
        frames,
        end: if cut { StreamEnd::Cut } else { StreamEnd::Close },
        base64,
        separate_writes: false,
        entry: Some(stream.entry()),
    }
}

/// A protocol that answers chat requests.
trait ChatProtocol {
    const DIALECT: Dialect;
    /// How its streams are framed and what its clients accept (what `delivery` may do to them).
    const FRAMING: crate::delivery::StreamFraming;
    /// The request JSON as a neutral request, or a message saying what is wrong.
    fn decode(body: &serde_json::Value) -> Result<DecodedRequest, String>;
    /// The request read straight from the body when it has the protocol's common shape, past the
    /// `serde_json::Value` tree; `None` leaves it to `decode`, whose request it must equal where it answers.
    fn decode_common(_body: &str) -> Option<DecodedRequest> {
        None
    }
    /// A whole response. `usage` is what the reply reports (the script's, else the estimate): the response's own
    /// `usage` is not read, as the response is the journal's, which keeps the mock's setting.
    fn encode_response(
        response: &crate::model::ChatResponse,
        usage: crate::model::Usage,
        envelope: &Envelope,
        request: &DecodedRequest,
        request_id: &str,
    ) -> HttpReply;
    /// A stream.
    fn encode_stream(stream: &EventStream, request: &DecodedRequest, request_id: &str) -> HttpReply;
}

/// A decoded request and the protocol options that shape the answer.
pub(crate) struct DecodedRequest {
    /// Shared with the journal once decoded: the engine keeps this very request, with no copy.
    pub request: Arc<ChatRequest>,
    /// OpenAI Chat `stream_options.include_usage`.
    pub include_usage: bool,
    /// Gemini's `thinkingConfig.includeThoughts`: thinking is sent as thought parts only when asked for.
    pub include_thoughts: bool,
    /// Where Chat Completions sends scripted thinking (the mock's `reasoning_field` setting; `chat` sets it).
    pub reasoning_field: crate::script::ReasoningField,
    /// Responses' `store` (true unless the request says `false`), echoed in the reply as the API echoes it.
    pub store: bool,
    /// Responses' `previous_response_id`, echoed in the reply.
    pub previous_response_id: Option<String>,
}

impl DecodedRequest {
    /// A request with no protocol option set; a decoder sets those its protocol has.
    pub(crate) fn new(request: ChatRequest) -> DecodedRequest {
        DecodedRequest {
            request: Arc::new(request),
            include_usage: false,
            include_thoughts: false,
            reasoning_field: crate::script::ReasoningField::None,
            store: true,
            previous_response_id: None,
        }
    }
}

/// Whether a path is on the admin surface: `/_cuecard/...`, also under `/v1`.
pub fn is_admin_path(path: &str) -> bool {
    path.strip_prefix("/v1").unwrap_or(path).starts_with("/_cuecard")
}

/// Whether answering a path may take long: the admin surface (a scenario to parse, a whole journal to write) and
/// embeddings (up to a million values). A server runs these off its request threads.
pub fn may_take_long(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    is_admin_path(path) || path.strip_prefix("/v1").unwrap_or(path) == "/embeddings"
}

/// The 401 for an admin request without the server's admin token (`Authorization: Bearer <token>` or
/// `x-cuecard-admin-token: <token>`), in the admin surface's error shape.
pub fn admin_token_refusal() -> HttpReply {
    admin::admin_token_refusal()
}

/// Answers one HTTP request against `mock`. Every request except the admin surface is journaled exactly once.
/// A computed step's callback runs on this thread.
pub fn handle(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    handle_turn(mock, request).finish(mock)
}

/// Like [`handle`], stopping at a computed step so a host whose callbacks answer later (a JS Promise) can
/// resume the request when its callback has answered ([`crate::Turn`]).
pub fn handle_turn(mock: &MockModel, request: &HttpRequest) -> Turn<HttpReply> {
    // The admin surface is `/_cuecard/...` only. Under `/v1` it is an unknown path like any other: answered 404
    // and journaled, with a hint (an SDK's base URL ends in /v1, so this is an easy slip).
    if is_admin_path(&request.path) && !request.path.starts_with("/v1/") {
        return Turn::Done(admin::admin(mock, request));
    }
    if crate::mcp::is_mcp_path(&request.path) {
        return Turn::Done(crate::mcp::handle_http(mock, request));
    }
    match routes::find(request) {
        Some((route, matched)) => route.answer(mock, request, &matched),
        None => Turn::Done(unknown_path(mock, request)),
    }
}

/// The 404 for a path no protocol serves, in the dialect of the client that asked (by its headers and path),
/// listing what is served.
fn unknown_path(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let dialect = Dialect::of_client(request);
    let hint =
        if is_admin_path(&request.path) { "; the admin endpoints are under /_cuecard/, without /v1" } else { "" };
    let message =
        format!("unknown path: {} {} (cuecard serves {}{hint})", request.method, request.path, routes::SERVED);
    let index = mock.reject(ChatRequest::default(), Some(raw(request)), message.clone());
    errors::cuecard_reply(dialect, 404, ErrorKind::NotFound, &message, &request_id(index))
}

/// The reply to a request whose body could not be read whole (malformed chunked encoding, a client that broke off,
/// a body that stalled past the server's timeout), journaled as rejected with `reason`: `status` (400 or 408) in
/// the dialect of the client that asked. `request` carries the method, path and headers; its body is ignored.
pub fn unreadable_body_reply(mock: &MockModel, request: &HttpRequest, status: u16, reason: &str) -> HttpReply {
    let dialect = Dialect::of_client(request);
    let raw = RawRequest { path: request.path.as_str().into(), body: Box::default(), contract_violation: None };
    let index = mock.reject(ChatRequest::default(), Some(raw), reason);
    let mut reply = errors::cuecard_reply(dialect, status, ErrorKind::InvalidRequest, reason, &request_id(index));
    if let HttpReply::Full { headers, .. } = &mut reply {
        // The rest of the body cannot be told apart from a next request: the connection ends with this answer.
        headers.push(("connection".into(), "close".into()));
    }
    reply
}

/// The journaled request of an endpoint that answers without the script (a model list, embeddings, token counts):
/// its model, its endpoint, and what it was asked about as user messages.
pub(crate) fn served_request(model: &str, endpoint: &str, messages: Vec<crate::model::Message>) -> ChatRequest {
    ChatRequest {
        model: model.to_string(),
        messages,
        metadata: crate::model::RequestMetadata { endpoint: Some(endpoint.into()), ..Default::default() },
        ..ChatRequest::default()
    }
}

pub(crate) fn raw(request: &HttpRequest) -> RawRequest {
    RawRequest { path: request.path.as_str().into(), body: lossy_text(&request.body).into(), contract_violation: None }
}

/// The request id of the request journaled at `index` (`req_1` for the first).
pub(crate) fn request_id(index: u64) -> String {
    crate::stream::numbered_id("req_", index + 1)
}

/// A 200 JSON reply to the served request journaled at `index` (models, embeddings, token counts, ...), with its
/// request id in `x-request-id`.
pub(crate) fn served_reply(index: u64, body: &impl Serialize) -> HttpReply {
    json_reply(200, vec![("x-request-id".into(), request_id(index).into())], body)
}

fn chat<P: ChatProtocol + 'static>(mock: &MockModel, http: &HttpRequest, matched: &Matched) -> Turn<HttpReply> {
    let dialect = P::DIALECT;
    if http.body.len() > MAX_BODY_BYTES {
        let message =
            // The server stops reading one byte past the limit, so the real size is unknown: name the limit only.
            format!("the request body is larger than the limit of {MAX_BODY_BYTES} bytes (32 MiB)");
        let request = ChatRequest { metadata: endpoint_metadata(matched.endpoint, http), ..ChatRequest::default() };
        let index = mock.reject(
            request,
            Some(RawRequest { path: http.path.as_str().into(), body: Box::default(), contract_violation: None }),
            message.clone(),
        );
        return Turn::Done(errors::cuecard_reply(
            dialect,
            413,
            ErrorKind::RequestTooLarge,
            &message,
            &request_id(index),
        ));
    }
    let mut decoded = match decode_chat::<P>(http, matched) {
        Ok(decoded) => decoded,
        Err(message) => {
            let request = ChatRequest { metadata: endpoint_metadata(matched.endpoint, http), ..ChatRequest::default() };
            let index = mock.reject(request, Some(raw(http)), message.clone());
            return Turn::Done(errors::cuecard_reply(
                dialect,
                400,
                ErrorKind::InvalidRequest,
                &message,
                &request_id(index),
            ));
        }
    };
    decoded.reasoning_field = mock.reasoning_field();
    let mut raw_request = raw(http);
    let contracts = mock.contracts_for(&decoded.request);
    let violation = match contracts.mode {
        ContractMode::Off => None,
        _ => contract_violation(mock, http, matched.endpoint, &contracts),
    };
    match (contracts.mode, violation) {
        (ContractMode::Strict, Some(violation)) => {
            let index = mock.refuse_by_contract(Arc::unwrap_or_clone(decoded.request), Some(raw_request), &violation);
            return Turn::Done(errors::contract_reply(dialect, &violation, &request_id(index)));
        }
        (ContractMode::Warn, Some(violation)) => raw_request.contract_violation = Some(Box::new(violation)),
        _ => {}
    }
    resolve_item_references(mock, Arc::make_mut(&mut decoded.request));
    let (endpoint, speed) = (matched.endpoint, mock.replay_speed());
    if decoded.request.stream {
        let turn = mock.chat_stream_turn(Arc::clone(&decoded.request), Some(raw_request));
        // The journal keeps the request's delivery seed (`MockModel::take`); the reply is cut with it here.
        let delivery = mock.delivery().map(|delivery| (delivery, mock.seed()));
        turn.map(move |result| {
            let step_headers =
                result.as_ref().map(|stream| reply_headers(P::DIALECT, stream.envelope())).unwrap_or_default();
            let reply = match recorded_stream_reply(&result, endpoint, speed) {
                Some(reply) => reply,
                None => streamed_reply::<P>(result, &decoded),
            };
            delivered(with_step_headers(reply, step_headers), delivery, P::FRAMING)
        })
    } else {
        let turn = mock.chat_timed_turn(Arc::clone(&decoded.request), Some(raw_request));
        turn.map(move |exchange| {
            let step_headers = exchange.envelope.as_ref().map(|e| reply_headers(P::DIALECT, e)).unwrap_or_default();
            let recorded = exchange.envelope.as_ref().and_then(|e| e.recorded.as_ref());
            let reply = match recorded.filter(|r| r.replays_for(endpoint, false)) {
                Some(recorded) => recorded.reply(speed),
                None => whole_reply::<P>(exchange, &decoded),
            };
            with_step_headers(reply, step_headers)
        })
    }
}

/// The first rule of the real API that the request breaks, read from its body (only when contracts are checked:
/// the body is parsed again).
fn contract_violation(mock: &MockModel, http: &HttpRequest, endpoint: &str, setting: &Contracts) -> Option<Violation> {
    let body: serde_json::Value = serde_json::from_slice(&http.body).ok()?;
    crate::contracts::check(endpoint, &body, setting, &JournalHistory(mock))
}

/// The mock's journal as the answers the Responses rules look back at.
struct JournalHistory<'a>(&'a MockModel);

impl crate::contracts::History for JournalHistory<'_> {
    fn response(&self, id: &str) -> Option<crate::contracts::Issued> {
        // The journal keeps an answer under its neutral id: `resp_3` was answer 3, `chatcmpl-3`.
        let neutral = match id.strip_prefix("resp_").filter(|n| n.parse::<u64>().is_ok()) {
            Some(number) => format!("chatcmpl-{number}"),
            None => id.to_string(),
        };
        let entry = self.0.answer_entry(&neutral)?;
        let raw = entry.raw.as_ref().filter(|raw| raw.path.ends_with("/responses"))?;
        let body: serde_json::Value = serde_json::from_str(&raw.body).unwrap_or_default();
        let message = &entry.response.as_ref()?.message;
        Some(crate::contracts::Issued {
            stored: body.get("store") != Some(&serde_json::Value::Bool(false)),
            call_ids: message.tool_calls.iter().map(|call| call.id.clone()).collect(),
            reasoned: message.thinking.is_some(),
        })
    }
}

/// The headers an answer adds to its reply: the provider's rate-limit headers (not on a recorded reply, which
/// keeps its own), then the step's own, which replace any of the same name.
fn reply_headers(dialect: Dialect, envelope: &Envelope) -> Vec<ReplyHeader> {
    let mut headers = match envelope.rate_limit.filter(|_| envelope.recorded.is_none()) {
        Some(reading) => errors::rate_limit_headers(dialect, &reading),
        None => Vec::new(),
    };
    for (name, value) in &envelope.headers {
        headers.retain(|(existing, _)| existing != name);
        headers.push((name.clone().into(), value.clone().into()));
    }
    headers
}

/// `reply` with a step's own headers (`headers` in a scenario step), each replacing any of the same name. Not
/// generic, so that the protocols share one copy of it.
#[inline(never)]
fn with_step_headers(mut reply: HttpReply, step_headers: Vec<ReplyHeader>) -> HttpReply {
    if let HttpReply::Full { headers, .. } | HttpReply::Stream { headers, .. } = &mut reply {
        headers.reserve(step_headers.len()); // one growth, not one per header (the rate limits are six)
        for (name, value) in step_headers {
            headers.retain(|(existing, _)| *existing != name);
            headers.push((name, value));
        }
    }
    reply
}

/// A streamed reply delivered as the `delivery` setting says (`(setting, scenario seed)`), when it is set. Not
/// generic, so that the protocols share one copy of it.
#[inline(never)]
fn delivered(
    reply: HttpReply,
    delivery: Option<(Delivery, u64)>,
    framing: crate::delivery::StreamFraming,
) -> HttpReply {
    match (delivery, &reply) {
        (Some((delivery, seed)), HttpReply::Stream { entry: Some(ticket), .. }) => {
            let index = ticket.index;
            crate::delivery::deliver(reply, &delivery, framing, seed, index)
        }
        _ => reply,
    }
}

/// The recorded reply of the step that answers a streaming request, when it was recorded from this endpoint as a
/// stream: sent as recorded, and journaled as the scripted stream would be (a client that leaves early shows).
fn recorded_stream_reply(result: &StreamResult, endpoint: &str, speed: f64) -> Option<HttpReply> {
    let stream = result.as_ref().ok()?;
    let recorded = stream.envelope().recorded.as_ref().filter(|r| r.replays_for(endpoint, true))?;
    match recorded.reply(speed) {
        HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, .. } => {
            let entry = Some(stream.entry());
            Some(HttpReply::Stream { stall_ms, status, headers, frames, end, base64, separate_writes, entry })
        }
        whole => Some(whole),
    }
}

/// A chat request as the neutral request and its protocol options: the body decoded, then what the path and
/// headers say (the endpoint and operation; Gemini's model and stream verb and Azure's deployment win over the
/// body).
fn decode_chat<P: ChatProtocol>(http: &HttpRequest, matched: &Matched) -> Result<DecodedRequest, String> {
    let text = std::str::from_utf8(&http.body)
        .map_err(|e| format!("the request body is not valid UTF-8 (byte {})", e.valid_up_to()))?;
    let mut decoded = match P::decode_common(text) {
        Some(decoded) => decoded,
        None => {
            let body: serde_json::Value =
                serde_json::from_str(text).map_err(|e| format!("the request body is not valid JSON: {e}"))?;
            P::decode(&body)?
        }
    };
    let metadata = endpoint_metadata(matched.endpoint, http);
    let request = Arc::make_mut(&mut decoded.request); // not shared yet: no copy
    request.metadata.endpoint = metadata.endpoint;
    if metadata.operation.is_some() {
        request.metadata.operation = metadata.operation;
    }
    if let Some(model) = &matched.model {
        request.model.clone_from(model);
    }
    if let Some(stream) = matched.stream {
        request.stream = stream;
    }
    Ok(decoded)
}

/// The neutral request of a chat protocol's HTTP request (the protocol table's `decode`).
fn decode_http<P: ChatProtocol>(http: &HttpRequest, matched: &Matched) -> Result<ChatRequest, String> {
    decode_chat::<P>(http, matched).map(|decoded| Arc::unwrap_or_clone(decoded.request))
}

/// The endpoint an HTTP request is for and, when it is a chat endpoint's, its neutral request (or what is wrong
/// with it): what a recorder keeps of a request. `None` for a path the protocol table does not serve.
pub fn decode_request(http: &HttpRequest) -> Option<(&'static str, Option<Result<ChatRequest, String>>)> {
    let (route, matched) = routes::find(http)?;
    Some((matched.endpoint, route.decode(http, &matched)))
}

/// The name of an assistant message that stands for an OpenAI `item_reference` (`item_reference:msg_1`).
pub(crate) const ITEM_REFERENCE: &str = "item_reference:";

/// Resolves OpenAI `item_reference`s (earlier output sent back by id, as the AI SDK does with `store` on) from
/// the journal: `msg_N` is the text cuecard answered as response N, `rs_N` its reasoning, `fc_N_I` its tool call
/// I. An id cuecard did not issue (or no longer keeps) stays visible as an empty assistant message named
/// `item_reference:<id>`.
fn resolve_item_references(mock: &MockModel, request: &mut ChatRequest) {
    let is_reference = |m: &crate::model::Message| m.name.as_deref().is_some_and(|n| n.starts_with(ITEM_REFERENCE));
    if !request.messages.iter().any(is_reference) {
        return;
    }
    let entries = mock.entries();
    for message in &mut request.messages {
        let Some(id) = message.name.as_deref().and_then(|n| n.strip_prefix(ITEM_REFERENCE)) else { continue };
        if let Some(resolved) = referenced_output(&entries, id) {
            *message = resolved;
        }
    }
}

fn referenced_output(entries: &[crate::journal::JournalEntry], id: &str) -> Option<crate::model::Message> {
    use crate::model::Message;
    let (kind, rest) = id.split_once('_')?;
    let (number, call) = match kind {
        "fc" => {
            let (number, index) = rest.split_once('_')?;
            (number, Some(index.parse::<usize>().ok()?))
        }
        _ => (rest, None),
    };
    let response_id = format!("chatcmpl-{number}");
    let message = &entries
        .iter()
        .rev()
        .filter_map(|e| e.response.as_ref())
        .find(|r| r.id.as_deref() == Some(response_id.as_str()))?
        .message;
    match (kind, call) {
        ("msg", None) => message.text.clone().map(Message::assistant),
        ("rs", None) => message
            .thinking
            .clone()
            .map(|thinking| Message { thinking: Some(thinking), ..Message::assistant_tool_calls(Vec::new()) }),
        ("fc", Some(index)) => {
            message.tool_calls.get(index).map(|call| Message::assistant_tool_calls(vec![call.clone()]))
        }
        _ => None,
    }
}

/// The usage a reply reports when the script gave none: real providers always send usage, so every endpoint
/// sends the word-like estimate (`docs/tokens.md`), whole and streamed, whatever the mock's `usage` setting.
/// The step's cached count of its answer stands for the response's output tokens when the response is that answer.
fn estimated_usage(
    request: &ChatRequest,
    response: &crate::model::ChatResponse,
    answered_by: &crate::stream::AnsweredBy,
) -> crate::model::Usage {
    let message = &response.message;
    let output = answered_by.output_tokens().unwrap_or_else(|| {
        crate::usage::estimate_output_tokens(message.text.as_deref(), message.thinking.as_deref(), &message.tool_calls)
    });
    crate::model::Usage::new(crate::usage::estimate_input_tokens(request), output)
}

/// A streamed answer, or its failure.
fn streamed_reply<P: ChatProtocol>(result: StreamResult, decoded: &DecodedRequest) -> HttpReply {
    let dialect = P::DIALECT;
    match result {
        Ok(stream) => {
            let request_id = request_id(stream.request_index());
            if let Some(error) = stream.error().filter(|_| stream.fails_before_streaming()) {
                // A failure before anything is streamed is an HTTP error, also when a stream was asked for.
                let delay_ms = stream.first_delay_ms() + stream.stall_ms();
                return error_reply(dialect, error, &request_id, delay_ms);
            }
            let answered_by = stream.envelope().answered_by.clone();
            let stream =
                stream.with_usage_if_missing(|response| estimated_usage(&decoded.request, response, &answered_by));
            P::encode_stream(&stream, decoded, &request_id)
        }
        Err((index, error)) => call_error_reply(dialect, &error, &request_id(index), 0),
    }
}

/// A non-streaming answer: the response (or failure) after the step's whole virtual duration.
fn whole_reply<P: ChatProtocol>(exchange: Exchange, decoded: &DecodedRequest) -> HttpReply {
    let request_id = request_id(exchange.index);
    let delay_ms = exchange.delay_ms + exchange.stall_ms;
    match (exchange.result, exchange.envelope) {
        (Ok(response), Some(envelope)) => {
            let usage =
                response.usage.unwrap_or_else(|| estimated_usage(&decoded.request, &response, &envelope.answered_by));
            match P::encode_response(&response, usage, &envelope, decoded, &request_id) {
                HttpReply::Full { status, headers, body, .. } => HttpReply::Full { delay_ms, status, headers, body },
                other => other,
            }
        }
        (Ok(_), None) => {
            let error =
                CallError::Cuecard(crate::error::Error::new(ErrorKind::Internal, "an answer without an envelope"));
            call_error_reply(P::DIALECT, &error, &request_id, delay_ms)
        }
        (Err(error), _) => call_error_reply(P::DIALECT, &error, &request_id, delay_ms),
    }
}

/// A failed call on the wire: a scripted failure in the provider's shape, or cuecard's own refusal (script
/// exhausted, no route, a callback that failed) as a provider-shaped 422. Those are bugs of the test, never
/// transient, and no mainstream client retries a 422: the Stainless SDKs (openai, anthropic) and the AI SDK retry
/// 408, 409, 429 and 5xx, and the AI SDK and LangChain4j ignore `x-should-retry` (a 500 cost the AI SDK three
/// requests and about 6 s of back-off). cuecard's own bug (`internal`) stays a 500.
fn call_error_reply(dialect: Dialect, error: &CallError, request_id: &str, delay_ms: u64) -> HttpReply {
    let (kind, message) = match error {
        CallError::Provider(error) => return error_reply(dialect, error, request_id, delay_ms),
        CallError::Cuecard(e) => (e.kind(), e.message().to_string()),
        CallError::Host(h) => (ErrorKind::HostError, h.message().to_string()),
    };
    let status = if kind == ErrorKind::Internal { 500 } else { 422 };
    errors::cuecard_reply(dialect, status, kind, &message, request_id)
}

fn endpoint_metadata(endpoint: &str, http: &HttpRequest) -> crate::model::RequestMetadata {
    crate::model::RequestMetadata {
        operation: http.header(OPERATION_HEADER).map(str::to_string),
        endpoint: Some(endpoint.to_string()),
        ..crate::model::RequestMetadata::default()
    }
}

#[cfg(test)]
mod tests;
