//! The reply helpers every protocol shares: JSON and SSE bodies written straight into their frames, streamed
//! replies, and the replies and journal entries of the served (non-chat) endpoints.

use super::*;
use crate::journal::RawRequest;
use crate::model::ChatRequest;
use crate::stream::EventStream;
use serde::Serialize;

/// `bytes` as text, with U+FFFD for what is not UTF-8. Valid text (nearly always) is checked by `str::from_utf8`'s
/// fast path: `String::from_utf8_lossy` walks it in chunks, byte by byte, which a profile of the server showed.
pub(crate) fn lossy_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

pub(crate) fn json_reply(status: u16, headers: Vec<ReplyHeader>, body: &impl Serialize) -> HttpReply {
    // Written to a Vec directly (`to_string` through Display goes through fmt::Write piece by piece), which starts
    // at 1 KiB: serde_json's own 128 bytes grew three times for a short chat completion.
    let mut out = Vec::with_capacity(1024);
    let _ = serde_json::to_writer(&mut out, body); // into a Vec, this cannot fail
    json_text_reply(status, headers, out)
}

/// A JSON reply whose body is already written (`json_text`'s rule applies to `body`).
pub(super) fn json_text_reply(status: u16, headers: Vec<ReplyHeader>, body: Vec<u8>) -> HttpReply {
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
pub(super) fn json_text(bytes: Vec<u8>) -> String {
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

/// A binary body (speech, an uploaded file's content): a stream of base64 frames of at most 48 KiB each, which every
/// host decodes before sending (whole bodies are text; a stream's frames may be binary, as Bedrock's are).
pub(crate) fn binary_reply(headers: Vec<ReplyHeader>, bytes: &[u8]) -> HttpReply {
    use base64::Engine;
    let frames: Vec<Frame> = bytes
        .chunks(48 * 1024)
        .map(|chunk| Frame { delay_ms: 0, data: base64::engine::general_purpose::STANDARD.encode(chunk) })
        .collect();
    HttpReply::Stream {
        stall_ms: 0,
        status: 200,
        headers,
        frames: frames.into(),
        end: StreamEnd::Close,
        base64: true,
        separate_writes: false,
        entry: None,
    }
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
    let body = match form_summary(request) {
        Some(summary) => summary,
        None => lossy_text(&request.body),
    };
    RawRequest { path: request.path.as_str().into(), body: body.into(), contract_violation: None }
}

/// A `multipart/form-data` body as the journal keeps it: a JSON object of its text fields, each file as
/// `{filename, content_type, bytes}` (an upload's bytes are not journaled as text).
fn form_summary(request: &HttpRequest) -> Option<String> {
    let parts = super::multipart::parse(request.header("content-type"), &request.body).ok()?;
    let mut fields = serde_json::Map::new();
    for part in &parts {
        let value = match (&part.filename, std::str::from_utf8(part.body)) {
            (None, Ok(text)) => serde_json::Value::from(text),
            _ => serde_json::json!({"filename": part.filename, "content_type": part.content_type,
                "bytes": part.body.len()}),
        };
        match fields.get_mut(&part.name) {
            // A repeated field (`image[]`, `timestamp_granularities[]`) is a list of its values.
            Some(serde_json::Value::Array(values)) => values.push(value),
            Some(first) => *first = serde_json::Value::Array(vec![first.take(), value]),
            None => {
                fields.insert(part.name.clone(), value);
            }
        }
    }
    Some(serde_json::Value::Object(fields).to_string())
}

/// The request id of the request journaled at `index` (`req_1` for the first).
pub(crate) fn request_id(index: u64) -> String {
    crate::stream::numbered_id("req_", index + 1)
}

/// A 200 JSON reply to the served request journaled at `index` (models, embeddings, token counts, ...), with its
/// request id in `x-request-id`.
pub(crate) fn served_reply(index: u64, body: &impl Serialize) -> HttpReply {
    served_reply_as(Dialect::OpenAi, index, body)
}

/// A 200 JSON reply to the served request journaled at `index`, with its request id in the dialect's header
/// (`request-id` for Anthropic's).
pub(crate) fn served_reply_as(dialect: Dialect, index: u64, body: &impl Serialize) -> HttpReply {
    json_reply(200, vec![(dialect.request_id_header().into(), request_id(index).into())], body)
}

pub(super) fn endpoint_metadata(endpoint: &str, http: &HttpRequest) -> crate::model::RequestMetadata {
    let mut extra = std::collections::BTreeMap::new();
    // A batch's line (`wire::batches`): the batch and the line's custom id.
    if let Some((batch, custom_id)) = http.header(super::batches::BATCH_HEADER).and_then(|v| v.split_once(' ')) {
        extra.insert("batch".to_string(), serde_json::Value::from(batch));
        extra.insert("custom_id".to_string(), serde_json::Value::from(custom_id));
    }
    crate::model::RequestMetadata {
        operation: http.header(OPERATION_HEADER).map(str::to_string),
        endpoint: Some(endpoint.to_string()),
        extra,
    }
}
