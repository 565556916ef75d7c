//! MCP's Streamable HTTP transport at `/mcp` and `/mcp/{server}`: a POST per message, answered with JSON (or SSE when
//! progress goes before the answer), `202` for notifications, and an Origin check. In the handshake era (2025-03-26
//! to 2025-11-25) a session is minted by `initialize`, the GET stream is `405` (none is offered) and `DELETE` ends a
//! session; a 2026-07-28 request (its version in `params._meta` or the `MCP-Protocol-Version` header) is stateless,
//! its `Mcp-Method` and `Mcp-Name` headers are checked against the body (`400` + -32020), an unsupported version is
//! `400` + -32022, an unknown method `404` + -32601, and GET and DELETE are `405`.

use super::engine::{self, Answer, Incoming, HEADER_MISMATCH, INVALID_REQUEST, PARSE_ERROR, UNSUPPORTED_VERSION};
use super::{MODERN_VERSIONS, PROTOCOL_VERSIONS};
use crate::http::{Frame, HttpReply, HttpRequest, ReplyHeader, StreamEnd, MAX_BODY_BYTES};
use crate::journal::Outcome;
use crate::mock::mcp::Session;
use crate::mock::MockModel;
use serde_json::{json, Value};

/// Whether `path` is MCP's: `/mcp` or `/mcp/{server}`.
pub fn is_mcp_path(path: &str) -> bool {
    path == "/mcp" || path.starts_with("/mcp/")
}

/// Answers one HTTP request to `/mcp` or `/mcp/{server}`, journaling it once in the MCP journal.
pub fn handle_http(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let named = request.path.strip_prefix("/mcp/").map(|name| name.trim_end_matches('/')).filter(|n| !n.is_empty());
    let (server, servers) = mock.with_mcp(|state, _| {
        let names: Vec<String> = state.mcp.servers.iter().map(|s| s.name.clone()).collect();
        (state.server_index(named), names)
    });
    let session = request.header("mcp-session-id");
    let incoming = Incoming { server, transport: "http", session, initialized: true };
    // A body over the limit is 413, as on every other endpoint (the server hands over one byte past the limit), not
    // a parse error of whatever it holds (issue #59, S15).
    let oversized = request.body.len() > MAX_BODY_BYTES;
    let body: Option<Value> = if oversized { None } else { serde_json::from_slice(&request.body).ok() };
    let refuse = |status: u16, code: i64, reason: &str| {
        engine::journal_transport(mock, &incoming, body.as_ref(), Outcome::Rejected { reason: reason.to_string() });
        let id = body.as_ref().and_then(|b| b.get("id")).cloned().unwrap_or(Value::Null);
        json_reply(status, Vec::new(), &engine::error_response(id, code, reason))
    };
    if let Some(origin) = request.header("origin").filter(|origin| !is_loopback_origin(origin)) {
        // A web page on another site reaching a loopback server (DNS rebinding): refused, as the spec asks, and not
        // journaled, so a page cannot grow the journal without bound (issue #59, S2), as the admin surface refuses
        // foreign pages before they reach the mock.
        let id = body.as_ref().and_then(|b| b.get("id")).cloned().unwrap_or(Value::Null);
        let reason = format!("Forbidden: the Origin {origin} is not this server's");
        return json_reply(403, Vec::new(), &engine::error_response(id, INVALID_REQUEST, &reason));
    }
    if oversized {
        let reason =
            format!("Payload Too Large: the request body is larger than the limit of {MAX_BODY_BYTES} bytes (32 MiB)");
        return refuse(413, INVALID_REQUEST, &reason);
    }
    if server.is_none() {
        let reason = match (named, servers.is_empty()) {
            (_, true) => "Not Found: the scenario has no MCP server (add an `mcp` section with servers)".to_string(),
            (Some(name), false) => {
                format!("Not Found: no MCP server named {name} (the scenario has {})", servers.join(", "))
            }
            (None, false) => "Not Found".to_string(),
        };
        return refuse(404, INVALID_REQUEST, &reason);
    }
    let modern_header = request.header("mcp-protocol-version").filter(|v| MODERN_VERSIONS.contains(v));
    if modern_header.is_some() && request.method != "POST" {
        let reason = format!(
            "Method Not Allowed: {} (the 2026-07-28 revision has no GET stream and no sessions: POST only)",
            request.method
        );
        return refuse(405, INVALID_REQUEST, &reason);
    }
    match request.method.as_str() {
        "POST" => post(mock, request, &incoming, body.as_ref(), refuse),
        "GET" => {
            // No server-initiated stream: 405, which every client takes as "request-response mode".
            engine::journal_transport(mock, &incoming, Some(&json!({"method": "GET"})), Outcome::Answered);
            HttpReply::Full {
                delay_ms: 0,
                status: 405,
                headers: vec![("allow".into(), "POST, DELETE".into())],
                body: String::new(),
            }
        }
        "DELETE" => match session {
            None => refuse(400, INVALID_REQUEST, "Bad Request: DELETE needs the Mcp-Session-Id header"),
            Some(id) => {
                if end_session(mock, id) {
                    engine::journal_transport(mock, &incoming, Some(&json!({"method": "DELETE"})), Outcome::Answered);
                    HttpReply::Full { delay_ms: 0, status: 200, headers: Vec::new(), body: String::new() }
                } else {
                    refuse(404, INVALID_REQUEST, "Session not found")
                }
            }
        },
        other => refuse(405, INVALID_REQUEST, &format!("Method Not Allowed: {other} (MCP takes POST and DELETE)")),
    }
}

fn post(
    mock: &MockModel,
    request: &HttpRequest,
    incoming: &Incoming,
    body: Option<&Value>,
    refuse: impl Fn(u16, i64, &str) -> HttpReply,
) -> HttpReply {
    if let Some(kind) = request.header("content-type").filter(|c| !c.contains("json")) {
        return refuse(
            415,
            INVALID_REQUEST,
            &format!("Unsupported Media Type: {kind} (MCP messages are application/json)"),
        );
    }
    let Some(message) = body else {
        let reason = match std::str::from_utf8(&request.body) {
            Err(_) => "Parse error: the body is not UTF-8".to_string(),
            Ok(text) => match serde_json::from_str::<Value>(text) {
                Err(e) => format!("Parse error: {e}"),
                Ok(_) => unreachable!("the body parsed once"),
            },
        };
        return refuse(400, PARSE_ERROR, &reason);
    };
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let header_version = request.header("mcp-protocol-version");
    let modern = engine::modern_version(message).is_some()
        || header_version.is_some_and(|v| MODERN_VERSIONS.contains(&v))
        || method == "server/discover";
    if modern {
        return stateless(mock, request, incoming, message, method, refuse);
    }
    if method != "initialize" {
        if let Some(version) = request.header("mcp-protocol-version").filter(|v| !PROTOCOL_VERSIONS.contains(v)) {
            let supported = PROTOCOL_VERSIONS.join(", ");
            return refuse(
                400,
                INVALID_REQUEST,
                &format!("Bad Request: unsupported MCP-Protocol-Version {version} (this server speaks {supported})"),
            );
        }
        match incoming.session {
            Some(id) if !session_is_live(mock, id, incoming.server) => {
                return refuse(404, INVALID_REQUEST, "Session not found")
            }
            Some(_) => {}
            // A probe and a ping are answered without a session; anything else needs the one initialize gave.
            None if matches!(method, "server/discover" | "ping") || message.get("id").is_none() => {}
            None => {
                return refuse(
                    400,
                    INVALID_REQUEST,
                    "Bad Request: Mcp-Session-Id header is required (initialize first)",
                )
            }
        }
    }
    let answer = engine::answer(mock, incoming, message);
    let mut headers = Vec::new();
    if let (Some(_), Some(server)) = (&answer.negotiated, incoming.server) {
        headers.push(("mcp-session-id".into(), open_session(mock, server).into()));
    }
    reply(answer, headers, request.header("accept"))
}

/// A 2026-07-28 request: its headers checked against its body, then answered without a session (an
/// `Mcp-Session-Id` is ignored and none is minted).
fn stateless(
    mock: &MockModel,
    request: &HttpRequest,
    incoming: &Incoming,
    message: &Value,
    method: &str,
    refuse: impl Fn(u16, i64, &str) -> HttpReply,
) -> HttpReply {
    let in_body = engine::modern_version(message);
    let header = request.header("mcp-protocol-version");
    if let Some(version) = header.filter(|v| !MODERN_VERSIONS.contains(v) && !PROTOCOL_VERSIONS.contains(v)) {
        let reason =
            format!("Unsupported protocol version: {version} (this server speaks {})", MODERN_VERSIONS.join(", "));
        return refuse(400, UNSUPPORTED_VERSION, &reason);
    }
    if let (Some(header), Some(body)) = (header, in_body) {
        if header != body {
            let reason = format!("Bad Request: MCP-Protocol-Version {header} does not match params._meta's {body}");
            return refuse(400, HEADER_MISMATCH, &reason);
        }
    }
    // The discovery probe may come before a client knows the revision: its headers are not required.
    if method != "server/discover" {
        match request.header("mcp-method") {
            Some(named) if named == method => {}
            named => {
                let reason = match named {
                    None => format!("Bad Request: the Mcp-Method header is required (it is {method})"),
                    Some(named) => format!("Bad Request: the Mcp-Method header says {named}, the body {method}"),
                };
                return refuse(400, HEADER_MISMATCH, &reason);
            }
        }
        let key = match method {
            "tools/call" | "prompts/get" => Some("name"),
            "resources/read" => Some("uri"),
            _ => None,
        };
        if let Some(key) = key {
            let wanted = message.pointer(&format!("/params/{key}")).and_then(Value::as_str).unwrap_or_default();
            let named = request.header("mcp-name").map(header_text);
            if named.as_deref() != Some(wanted) {
                let reason = match named {
                    None => format!("Bad Request: the Mcp-Name header is required for {method} (it is {wanted})"),
                    Some(named) => format!("Bad Request: the Mcp-Name header says {named}, params.{key} {wanted}"),
                };
                return refuse(400, HEADER_MISMATCH, &reason);
            }
        }
    }
    let stateless = Incoming { session: None, ..*incoming };
    let answer = engine::answer(mock, &stateless, message);
    // The revision's statuses for the engine's refusals: an unknown method 404, an unsupported version 400.
    let status = match answer.response.as_ref().and_then(|r| r.pointer("/error/code")).and_then(Value::as_i64) {
        Some(-32601) => 404,
        Some(UNSUPPORTED_VERSION) => 400,
        _ => 200,
    };
    if status != 200 {
        let body = answer.response.unwrap_or(Value::Null);
        return json_reply(status, Vec::new(), &body);
    }
    reply(answer, Vec::new(), request.header("accept"))
}

/// A header's text: RFC 2047's `=?base64?...?=` decoded (how a non-ASCII `Mcp-Name` travels), else as it is.
fn header_text(value: &str) -> String {
    use base64::Engine;
    value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
        .and_then(|encoded| base64::engine::general_purpose::STANDARD.decode(encoded).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| value.to_string())
}

fn reply(answer: Answer, mut headers: Vec<ReplyHeader>, accept: Option<&str>) -> HttpReply {
    let waited = answer.before.iter().map(|(delay, _)| delay).sum::<u64>() + answer.delay_ms;
    if answer.dropped {
        return HttpReply::Abort { delay_ms: waited };
    }
    let Some(response) = answer.response else {
        return HttpReply::Full { delay_ms: waited, status: 202, headers, body: String::new() };
    };
    let takes_sse = accept.is_none_or(|a| a.contains("text/event-stream") || a.contains("*/*"));
    if answer.before.is_empty() || !takes_sse {
        // Progress cannot travel on a JSON answer: a client that takes no SSE gets the answer alone.
        return json_reply_after(200, headers, &response, waited);
    }
    let event =
        |delay_ms: u64, message: &Value| Frame { delay_ms, data: format!("event: message\ndata: {message}\n\n") };
    let mut frames: Vec<Frame> = answer.before.iter().map(|(delay, note)| event(*delay, note)).collect();
    frames.push(event(answer.delay_ms, &response));
    headers.insert(0, ("content-type".into(), "text/event-stream".into()));
    headers.push(("cache-control".into(), "no-cache".into()));
    HttpReply::Stream {
        stall_ms: 0,
        status: 200,
        headers,
        frames: frames.into(),
        end: StreamEnd::Close,
        base64: false,
        separate_writes: false,
        entry: None,
    }
}

fn json_reply(status: u16, headers: Vec<ReplyHeader>, body: &Value) -> HttpReply {
    json_reply_after(status, headers, body, 0)
}

fn json_reply_after(status: u16, mut headers: Vec<ReplyHeader>, body: &Value, delay_ms: u64) -> HttpReply {
    headers.insert(0, ("content-type".into(), "application/json".into()));
    HttpReply::Full { delay_ms, status, headers, body: body.to_string() }
}

/// Whether an `Origin` is this machine's (`http://localhost:PORT`, `http://127.0.0.1:PORT`, `http://[::1]:PORT`): its
/// host part is a loopback name, by the admin surface's rule.
fn is_loopback_origin(origin: &str) -> bool {
    let host = origin.split_once("://").map_or(origin, |(_, rest)| rest);
    crate::http::is_loopback_host(host.trim_end_matches('/'))
}

/// Mints a session for an initialize (ids count up: `cuecard-mcp-1`, ...) and notes it on its journal entry.
fn open_session(mock: &MockModel, server: usize) -> String {
    mock.with_mcp(|state, _| {
        let id = format!("cuecard-mcp-{}", state.sessions.len() + 1);
        state.sessions.push(Session { id: id.clone(), server, ended: false });
        if let Some(entry) = state.journal.back_mut() {
            entry.session = Some(id.clone());
        }
        id
    })
}

fn session_is_live(mock: &MockModel, id: &str, server: Option<usize>) -> bool {
    mock.with_mcp(|state, _| state.sessions.iter().any(|s| s.id == id && !s.ended && Some(s.server) == server))
}

fn end_session(mock: &MockModel, id: &str) -> bool {
    mock.with_mcp(|state, _| match state.sessions.iter_mut().find(|s| s.id == id && !s.ended) {
        Some(session) => {
            session.ended = true;
            true
        }
        None => false,
    })
}
