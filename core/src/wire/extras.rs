//! `GET /v1/models`, `POST /v1/embeddings` and the admin surface under `/_cuecard/`.

use super::errors::{cuecard_reply, Dialect};
use super::{json_reply, raw, request_id, HttpReply, HttpRequest};
use crate::error::ErrorKind;
use crate::mock::MockModel;
use crate::model::{ChatRequest, Message};
use crate::scenario::Scenario;
use base64::Engine;
use serde_json::{json, Value};

/// The model list: every model a route matches on, plus `cuecard-mock`.
pub(crate) fn models(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let served = ChatRequest { metadata: metadata("models"), ..ChatRequest::default() };
    let index = mock.record_served(served, Some(raw(request)));
    let mut ids = mock.route_models();
    ids.push(crate::clock::DEFAULT_MODEL.to_string());
    ids.dedup();
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "created": crate::clock::CLOCK_EPOCH_SECONDS, "owned_by": "cuecard"}))
        .collect();
    json_reply(200, vec![("x-request-id".into(), request_id(index))], &json!({"object": "list", "data": data}))
}

fn metadata(endpoint: &str) -> crate::model::RequestMetadata {
    crate::model::RequestMetadata { endpoint: Some(endpoint.into()), ..crate::model::RequestMetadata::default() }
}

/// The most inputs one embeddings request may have (OpenAI's own limit).
pub const MAX_EMBEDDING_INPUTS: usize = 2048;

/// The most values (inputs x dimensions) one embeddings request is answered with: a reply of at most about 20 MB as
/// JSON floats (5.6 MB in base64), made in well under a second, so one request cannot stall the server.
pub const MAX_EMBEDDING_VALUES: usize = 1 << 20;

/// Deterministic embeddings: each input's vector is derived from its text, the model and the mock's seed, and
/// L2-normalised. `encoding_format: "base64"` (what the OpenAI SDKs send by default) gives little-endian f32.
pub(crate) fn embeddings(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let parsed: Result<Value, String> =
        serde_json::from_slice(&request.body).map_err(|e| format!("the request body is not valid JSON: {e}"));
    let decoded = parsed.and_then(|body| {
        let model = body.get("model").and_then(Value::as_str).ok_or("request.model is required")?.to_string();
        let inputs: Vec<String> = match body.get("input") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => {
                items.iter().filter_map(Value::as_str).map(str::to_string).collect()
            }
            Some(Value::Array(items)) => items.iter().map(Value::to_string).collect(),
            _ => return Err("request.input must be a string or an array".to_string()),
        };
        let dimensions = match body.get("dimensions") {
            None | Some(Value::Null) => 1536,
            Some(v) => {
                v.as_u64().filter(|d| (1..=8192).contains(d)).ok_or("request.dimensions must be 1 to 8192")? as usize
            }
        };
        let base64 = body.get("encoding_format").and_then(Value::as_str) == Some("base64");
        if inputs.len() > MAX_EMBEDDING_INPUTS {
            return Err(format!(
                "request.input has {} items; at most {MAX_EMBEDDING_INPUTS} are allowed",
                inputs.len()
            ));
        }
        let values = inputs.len().saturating_mul(dimensions);
        if values > MAX_EMBEDDING_VALUES {
            return Err(format!(
                "the request asks for {} inputs x {dimensions} dimensions = {values} values; cuecard answers at most \
                 {MAX_EMBEDDING_VALUES} per request (send fewer inputs or fewer dimensions)",
                inputs.len()
            ));
        }
        Ok((model, inputs, dimensions, base64))
    });
    let (model, inputs, dimensions, base64) = match decoded {
        Ok(d) => d,
        Err(message) => {
            let index = mock.reject(
                ChatRequest { metadata: metadata("embeddings"), ..ChatRequest::default() },
                Some(raw(request)),
                message.clone(),
            );
            return cuecard_reply(Dialect::OpenAi, 400, ErrorKind::InvalidRequest, &message, &request_id(index));
        }
    };
    let served = ChatRequest {
        model: model.clone(),
        messages: inputs.iter().map(|i| Message::user(i.clone())).collect(),
        metadata: metadata("embeddings"),
        ..ChatRequest::default()
    };
    let index = mock.record_served(served, Some(raw(request)));
    let seed = mock.seed();
    let mut tokens = 0usize;
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, input)| {
            tokens += crate::count_tokens(input);
            let vector = embedding(seed, &model, input, dimensions);
            let embedding = if base64 {
                let bytes: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
                Value::from(base64::engine::general_purpose::STANDARD.encode(bytes))
            } else {
                Value::from(vector.iter().map(|v| f64::from(*v)).collect::<Vec<f64>>())
            };
            json!({"object": "embedding", "index": index, "embedding": embedding})
        })
        .collect();
    let body = json!({"object": "list", "data": data, "model": model,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens}});
    json_reply(200, vec![("x-request-id".into(), request_id(index))], &body)
}

/// A unit vector derived from the text: FNV-1a of (seed, model, text) seeds a xorshift generator.
pub fn embedding(seed: u64, model: &str, text: &str, dimensions: usize) -> Vec<f32> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for byte in model.bytes().chain([0]).chain(text.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let mut state = hash | 1;
    let mut values: Vec<f32> = (0..dimensions)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect();
    let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        for v in &mut values {
            *v /= norm;
        }
    }
    values
}

/// The content types `PUT /_cuecard/scenario` takes.
const SCENARIO_CONTENT_TYPES: &str = "application/json or application/yaml (also text/yaml, application/x-yaml)";

/// `PUT /_cuecard/scenario` loads a scenario (JSON or YAML as the content type says; without one, JSON when it
/// starts with `{`, else YAML), `GET /_cuecard/journal` reads the journal, `POST /_cuecard/reset` forgets
/// requests and rewinds the script. Admin requests are not journaled. Errors are `{"error": <cuecard error>}`.
pub(crate) fn admin(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    if let Some(refusal) = foreign_admin_request(request) {
        return admin_error(403, &crate::error::Error::new(ErrorKind::InvalidRequest, refusal));
    }
    if request.body.len() > super::MAX_BODY_BYTES {
        let message = format!("the request body is larger than the limit of {} bytes (32 MiB)", super::MAX_BODY_BYTES);
        return admin_error(413, &crate::error::Error::new(ErrorKind::RequestTooLarge, message));
    }
    let path = request.path.trim_end_matches('/');
    match (request.method.as_str(), path) {
        ("POST", "/_cuecard/scenario") => admin_error(
            405,
            &crate::error::Error::new(
                ErrorKind::InvalidRequest,
                "a scenario is replaced with PUT /_cuecard/scenario (POST is what a web page can send without asking)",
            ),
        ),
        ("PUT", "/_cuecard/scenario") => match load_scenario(mock, request) {
            Ok(s) => json_reply(200, vec![], &json!({"ok": true, "routes": s.routes().len(), "steps": s.step_count()})),
            Err((status, error)) => admin_error(status, &error),
        },
        ("GET", "/_cuecard/journal") => match journal_page(&request.query) {
            Ok((None, None)) => json_reply(200, vec![], &journal_document(mock)),
            Ok((after, limit)) => json_reply(200, vec![], &journal_page_document(mock, after, limit)),
            Err(error) => admin_error(400, &error),
        },
        ("POST", "/_cuecard/reset") => {
            mock.reset();
            json_reply(200, vec![], &json!({"ok": true}))
        }
        ("GET", "/_cuecard/health") => json_reply(200, vec![], &json!({"ok": true, "version": crate::VERSION})),
        (method, _) => admin_error(
            404,
            &crate::error::Error::new(
                ErrorKind::NotFound,
                format!("unknown admin endpoint {method} {path} (PUT /_cuecard/scenario, GET /_cuecard/journal, POST /_cuecard/reset, GET /_cuecard/health)"),
            ),
        ),
    }
}

/// Why an admin request is refused as coming from a web page, if it is: a browser adds `Origin` to requests a
/// page makes (tests and SDKs do not), and a page reaching the server through DNS rebinding sends its own name
/// as `Host`, never a loopback one. The admin surface replaces the script and reads every request, so it answers
/// only requests without an `Origin` whose `Host`, when given, is `localhost`, `127.x.x.x` or `[::1]`.
fn foreign_admin_request(request: &HttpRequest) -> Option<String> {
    if let Some(origin) = request.header("origin") {
        return Some(format!(
            "admin requests come from tests, not from web pages: a request with an Origin header ({origin}) is refused"
        ));
    }
    let host = request.header("host")?;
    if is_loopback_host(host) {
        None
    } else {
        Some(format!(
            "admin requests are answered on a loopback name only (localhost, 127.0.0.1, [::1]), not Host {host}"
        ))
    }
}

/// `localhost`, `*.localhost`, `127.x.x.x` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host
            .rsplit_once(':')
            .map_or(host, |(name, port)| if port.chars().all(|c| c.is_ascii_digit()) { name } else { host }),
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name == "::1"
        || name.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

/// The journal page a query asks for: `after` (entries with a greater index) and `limit` (at most that many).
fn journal_page(query: &str) -> Result<(Option<u64>, Option<usize>), crate::error::Error> {
    let (mut after, mut limit) = (None, None);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let bad = |what: &str| {
            crate::error::Error::new(
                ErrorKind::InvalidArgument,
                format!("GET /_cuecard/journal takes after=<index> and limit=<count>, whole numbers; {what}"),
            )
        };
        match name {
            "after" => after = Some(value.parse().map_err(|_| bad(&format!("after={value} is not one")))?),
            "limit" => limit = Some(value.parse().map_err(|_| bad(&format!("limit={value} is not one")))?),
            other => return Err(bad(&format!("{other} is not a parameter of it"))),
        }
    }
    Ok((after, limit))
}

/// A page of the journal: `{"count", "counts", "entries", "next_after"}`; `next_after` is the `after` of the next
/// page, or null when this page reaches the newest entry.
fn journal_page_document(mock: &MockModel, after: Option<u64>, limit: Option<usize>) -> Value {
    let entries = mock.entries_page(after, limit);
    let newest = mock.request_count().checked_sub(1);
    let last = entries.last().map(|e| e.index);
    let next_after = match (last, newest) {
        (Some(last), Some(newest)) if last < newest => json!(last),
        _ => Value::Null,
    };
    json!({"count": mock.request_count(), "counts": mock.counts(), "entries": entries, "next_after": next_after})
}

/// The journal as one document: `{"count", "counts", "unused_steps", "entries"}` (the admin endpoint's body, and
/// what the C ABI's `cuecard_mock_journal` gives).
pub fn journal_document(mock: &MockModel) -> Value {
    json!({"count": mock.request_count(), "counts": mock.counts(), "unused_steps": mock.unused_steps(),
        "entries": mock.entries()})
}

/// Whether `request` reads the whole journal (`GET /_cuecard/journal` without a page) and passes the admin
/// surface's checks: a server may then send [`write_journal_document`]'s pieces as they come instead of asking
/// [`super::handle`] for the document whole. Every other request, a refused one included, goes to `handle`.
pub fn is_whole_journal_read(request: &HttpRequest) -> bool {
    request.method == "GET"
        && request.path.trim_end_matches('/') == "/_cuecard/journal"
        && request.body.len() <= super::MAX_BODY_BYTES
        && foreign_admin_request(request).is_none()
        && matches!(journal_page(&request.query), Ok((None, None)))
}

/// The journal document of [`journal_document`], byte for byte as `serde_json::to_string` writes it, given to
/// `emit` in pieces: the entries go `page` at a time, each page copied under the mock's lock and written outside
/// it, so a long journal never sits in memory twice. The entries are those that had arrived when it began (its
/// `count`). `emit` returns `false` to stop (the reader went away).
pub fn write_journal_document(mock: &MockModel, page: usize, mut emit: impl FnMut(Vec<u8>) -> bool) {
    // Through `Value`, as `journal_document` does: its objects' keys come out sorted.
    let write = |out: &mut Vec<u8>, value: Value| {
        let _ = serde_json::to_writer(&mut *out, &value);
    };
    let count = mock.request_count();
    let mut piece = format!(r#"{{"count":{count},"counts":"#).into_bytes();
    write(&mut piece, json!(mock.counts()));
    piece.extend_from_slice(br#","entries":["#);
    let mut after = None;
    let mut first = true;
    loop {
        let entries = mock.entries_page(after, Some(page.max(1)));
        let Some(last) = entries.last().map(|e| e.index) else { break };
        for entry in entries.iter().filter(|e| e.index < count) {
            if !std::mem::take(&mut first) {
                piece.push(b',');
            }
            write(&mut piece, json!(entry));
        }
        if !emit(std::mem::take(&mut piece)) {
            return;
        }
        if last.saturating_add(1) >= count {
            break;
        }
        after = Some(last);
    }
    piece.extend_from_slice(br#"],"unused_steps":"#);
    write(&mut piece, json!(mock.unused_steps()));
    piece.push(b'}');
    emit(piece);
}

fn load_scenario(mock: &MockModel, request: &HttpRequest) -> Result<Scenario, (u16, crate::error::Error)> {
    let text = std::str::from_utf8(&request.body).map_err(|e| {
        let message = format!("the scenario is not valid UTF-8 (byte {})", e.valid_up_to());
        (400, crate::error::Error::new(ErrorKind::InvalidUtf8, message))
    })?;
    let content_type = request.header("content-type").map(|c| c.to_ascii_lowercase());
    let parsed = match content_type.as_deref() {
        Some(c) if c.contains("yaml") => Scenario::from_yaml(text),
        Some(c) if c.contains("json") => Scenario::from_json(text),
        Some(other) => {
            let message = format!("a scenario is sent as {SCENARIO_CONTENT_TYPES}, not {other}");
            return Err((415, crate::error::Error::new(ErrorKind::InvalidScenario, message)));
        }
        None => Scenario::from_text(text),
    };
    let parsed = parsed.map_err(|e| {
        // A document that is not a scenario at all: say what the endpoint takes.
        if e.issues().first().is_some_and(|i| i.path.is_empty()) {
            let what = format!("invalid scenario (send a JSON or YAML scenario as {SCENARIO_CONTENT_TYPES})");
            (400, crate::error::Error::with_issues(e.kind(), &what, e.issues().to_vec()))
        } else {
            (400, e)
        }
    })?;
    mock.load_scenario(&parsed).map_err(|e| (400, e))?;
    Ok(parsed)
}

/// See [`super::admin_token_refusal`].
pub(crate) fn admin_token_refusal() -> HttpReply {
    let error = crate::error::Error::new(
        ErrorKind::InvalidRequest,
        "this server's admin surface needs its admin token: send Authorization: Bearer <token> (or \
         x-cuecard-admin-token: <token>), as given to --admin-token",
    );
    match admin_error(401, &error) {
        HttpReply::Full { delay_ms, status, mut headers, body } => {
            headers.push(("www-authenticate".into(), "Bearer realm=\"cuecard admin\"".into()));
            HttpReply::Full { delay_ms, status, headers, body }
        }
        other => other,
    }
}

fn admin_error(status: u16, error: &crate::error::Error) -> HttpReply {
    json_reply(status, vec![], &json!({ "error": error.to_json() }))
}
