//! The entry points: one HTTP request in, its reply out ([`handle`], [`handle_turn`]), through the protocol
//! table, the admin surface, the unknown-path 404 and the unreadable-body reply.

use super::*;
use crate::error::ErrorKind;
use crate::journal::RawRequest;
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::model::ChatRequest;

/// Whether `request` is for an endpoint this server answers (a row of the protocol table, or MCP): what may make
/// a per-test mock (`isolation`), so a stray `GET /t/{id}/favicon.ico` makes none.
pub(crate) fn serves(request: &HttpRequest) -> bool {
    super::routes::find(request).is_some()
        || crate::mcp::is_mcp_path(&request.path)
        || crate::a2a::is_a2a_path(&request.path)
        || serves_sockets_at(&request.path)
}

#[cfg(not(target_arch = "wasm32"))]
fn serves_sockets_at(path: &str) -> bool {
    super::sockets::SocketProtocol::at(path).is_some()
}

/// The WebAssembly builds serve no sockets (`sockets/absent.rs`).
#[cfg(target_arch = "wasm32")]
fn serves_sockets_at(_path: &str) -> bool {
    false
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
    if crate::a2a::is_a2a_path(&request.path) {
        return Turn::Done(crate::a2a::handle_http(mock, request));
    }
    if let Some(turn) = sockets::handle(mock, request) {
        return turn;
    }
    match routes::find(request) {
        Some((route, matched)) => route.answer(mock, request, &matched),
        None => Turn::Done(unknown_path(mock, request)),
    }
}

/// The 404 for a path no protocol serves, in the dialect of the client that asked (by its headers and path),
/// listing what is served.
pub(super) fn unknown_path(mock: &MockModel, request: &HttpRequest) -> HttpReply {
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

/// The endpoint an HTTP request is for and, when it is a chat endpoint's, its neutral request (or what is wrong
/// with it): what a recorder keeps of a request. `None` for a path the protocol table does not serve.
pub fn decode_request(http: &HttpRequest) -> Option<(&'static str, Option<Result<ChatRequest, String>>)> {
    let (route, matched) = routes::find(http)?;
    Some((matched.endpoint, route.decode(http, &matched)))
}
