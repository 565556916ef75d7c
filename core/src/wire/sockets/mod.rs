//! The realtime protocols over WebSocket (`../shared/spec/realtime.md`): OpenAI Realtime, the Responses API's
//! WebSocket mode and Gemini Live, as pure functions like every protocol of `wire`.
//!
//! A socket crosses the face as HTTP-shaped values, so every transport (the server's WebSocket, a binding's
//! in-process socket) drives it with the one entry point `wire::handle`:
//! - the upgrade request (`GET` with `upgrade: websocket` on a socket path) opens a session and is answered with
//!   [`HttpReply::Socket`] status 101: the session id (`x-cuecard-socket`), the subprotocol to accept, and the
//!   messages the server sends first; a path or handshake it refuses is an ordinary HTTP reply;
//! - each message the client sends is a request with method [`MESSAGE_METHOD`] (`WS`), the session in
//!   [`SOCKET_HEADER`] and the message as the body, answered with the messages to send back and how the socket goes
//!   on (open, closed with a code, cut);
//! - a close by the client is a `WS` request with [`CLOSED_HEADER`] (its code; the body is the reason);
//! - a transport still sending an earlier answer's messages when the next client message arrives says how many it
//!   has sent in [`DELIVERED_HEADER`]: a cancel then ends the response where the client saw it end.
//!
//! A model turn (OpenAI's `response.create`, a Gemini turn) takes the next step through the engine, journaled as a
//! model request (endpoint `realtime`, `responses_websocket` or `gemini_live`); every message of a session, both
//! ways, is journaled in order as a [`crate::journal::SocketEvent`].

mod audio;
mod gemini_live;
mod openai_realtime;
mod responses_ws;
#[cfg(test)]
mod tests;

use super::*;
use crate::http::SocketEnd;
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use serde_json::Value;

/// Whether this build serves realtime sockets (the WebAssembly module does not: `absent.rs`).
pub const SERVED: bool = true;
/// The method of a message on an open socket, on the face.
pub const MESSAGE_METHOD: &str = "WS";
/// The session a message belongs to (and, on the upgrade reply, the session opened).
pub const SOCKET_HEADER: &str = "x-cuecard-socket";
/// On a `WS` request: the client closed the socket with this code; the body is the reason.
pub const CLOSED_HEADER: &str = "x-cuecard-socket-closed";
/// On a `WS` request: how many messages of the previous answer the transport had sent when this one arrived
/// (absent when it had sent them all).
pub const DELIVERED_HEADER: &str = "x-cuecard-delivered";

/// The protocols served over a socket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SocketProtocol {
    /// OpenAI Realtime (`/v1/realtime`).
    OpenAiRealtime,
    /// The Responses API's WebSocket mode (`/v1/responses`, upgraded).
    ResponsesWebSocket,
    /// Gemini Live (`BidiGenerateContent`); `vertex` for Vertex AI's path, whose usage spells output as candidates.
    GeminiLive { vertex: bool },
}

impl SocketProtocol {
    /// The name journaled with each message.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SocketProtocol::OpenAiRealtime => "openai_realtime",
            SocketProtocol::ResponsesWebSocket => "responses_websocket",
            SocketProtocol::GeminiLive { .. } => "gemini_live",
        }
    }

    /// The protocol served at `path` (with `//` collapsed, `/v1` optional for OpenAI's), if any.
    pub(crate) fn at(path: &str) -> Option<SocketProtocol> {
        let collapsed = collapse_slashes(path);
        let path = collapsed.trim_end_matches('/');
        let openai = path.strip_prefix("/v1").unwrap_or(path);
        match openai {
            "/realtime" | "/openai/v1/realtime" => return Some(SocketProtocol::OpenAiRealtime),
            "/responses" | "/openai/v1/responses" => return Some(SocketProtocol::ResponsesWebSocket),
            _ => {}
        }
        let rest = path.strip_prefix("/ws/")?;
        let gemini = rest
            .strip_prefix("google.ai.generativelanguage.")
            .and_then(|r| r.split_once('.'))
            .map(|(_, service)| service)
            .is_some_and(|s| {
                matches!(
                    s,
                    "GenerativeService.BidiGenerateContent" | "GenerativeService.BidiGenerateContentConstrained"
                )
            });
        let vertex = rest
            .strip_prefix("google.cloud.aiplatform.")
            .and_then(|r| r.split_once('.'))
            .is_some_and(|(_, service)| service == "LlmBidiService/BidiGenerateContent");
        match (gemini, vertex) {
            (true, _) => Some(SocketProtocol::GeminiLive { vertex: false }),
            (_, true) => Some(SocketProtocol::GeminiLive { vertex: true }),
            _ => None,
        }
    }
}

/// `path` with runs of `/` made one (`@google/genai` asks for `//ws/...`).
fn collapse_slashes(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if !(c == '/' && out.ends_with('/')) {
            out.push(c);
        }
    }
    out
}

/// Whether `request` asks to open a socket (`upgrade: websocket`).
pub fn is_upgrade(request: &HttpRequest) -> bool {
    request.header("upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// Answers a socket request (an upgrade on a socket path, or a `WS` message); `None` when `request` is neither.
pub(crate) fn handle(mock: &MockModel, request: &HttpRequest) -> Option<Turn<HttpReply>> {
    if request.method == MESSAGE_METHOD {
        return Some(message(mock, request));
    }
    let protocol = SocketProtocol::at(&request.path)?;
    if !is_upgrade(request) {
        // A plain request on a socket path no HTTP endpoint serves (`GET /v1/realtime`): say it is a socket.
        if super::routes::find(request).is_some() {
            return None;
        }
        let message = format!(
            "{} {} is a WebSocket ({}): connect with an upgrade (`Upgrade: websocket`, ws:// or wss://)",
            request.method,
            request.path,
            protocol.name()
        );
        let index = mock.reject(crate::model::ChatRequest::default(), Some(raw(request)), message.clone());
        let dialect = Dialect::of_client(request);
        let reply =
            errors::cuecard_reply(dialect, 426, crate::error::ErrorKind::InvalidRequest, &message, &request_id(index));
        return Some(Turn::Done(reply));
    }
    Some(Turn::Done(open(mock, request, protocol)))
}

/// A session's state, as the mock's store keeps it.
struct Session {
    protocol: SocketProtocol,
    /// The server closed or cut the socket: later messages are refused (a transport closes it anyway).
    closed: bool,
    /// The messages of the last answer, and where in them a response began and ended (for a cancel mid-way).
    last_answer: usize,
    state: ProtocolState,
}

enum ProtocolState {
    OpenAi(Box<openai_realtime::Session>),
    Responses(responses_ws::Session),
    Gemini(Box<gemini_live::Session>),
}

/// Opens a session: the 101 and the server's first messages.
fn open(mock: &MockModel, request: &HttpRequest, protocol: SocketProtocol) -> HttpReply {
    let state = match protocol {
        SocketProtocol::OpenAiRealtime => ProtocolState::OpenAi(Box::new(openai_realtime::Session::new(request))),
        SocketProtocol::ResponsesWebSocket => ProtocolState::Responses(responses_ws::Session::default()),
        SocketProtocol::GeminiLive { vertex } => ProtocolState::Gemini(Box::new(gemini_live::Session::new(vertex))),
    };
    let socket = mock.open_socket(Box::new(Session { protocol, closed: false, last_answer: 0, state }));
    let mut out = Outbox::new(mock, &socket, protocol);
    out.log_client("open", serde_json::json!({"path": request.path, "query": request.query}));
    if let Some(slot) = mock.socket(&socket) {
        let mut guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(session) = guard.downcast_mut::<Session>() {
            if let ProtocolState::OpenAi(state) = &mut session.state {
                state.opened(&mut out);
            }
            session.last_answer = out.frames.len();
        }
    }
    let mut headers: Vec<ReplyHeader> = vec![(SOCKET_HEADER.into(), socket.clone().into())];
    // A browser-style client offers `realtime` (and its credentials as pseudo-protocols): `realtime` is accepted,
    // never a credential; a client that offered none gets none.
    let offered = request.header("sec-websocket-protocol").unwrap_or_default();
    if offered.split(',').any(|p| p.trim() == "realtime") {
        headers.push(("sec-websocket-protocol".into(), "realtime".into()));
    }
    HttpReply::Socket { status: 101, headers, socket, frames: out.frames, end: SocketEnd::Open, interrupt: false }
}

/// Answers one message of an open session.
fn message(mock: &MockModel, request: &HttpRequest) -> Turn<HttpReply> {
    let socket = request.header(SOCKET_HEADER).unwrap_or_default().to_string();
    let Some(slot) = mock.socket(&socket) else {
        let reason = format!("cuecard has no open socket {socket:?} (closed, or never opened)");
        return Turn::Done(closing(socket, 1008, &reason));
    };
    let protocol = {
        let guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match guard.downcast_ref::<Session>() {
            Some(session) if session.closed => {
                return Turn::Done(closing(socket, 1008, "the server closed this socket"));
            }
            Some(session) => session.protocol,
            None => return Turn::Done(closing(socket, 1011, "the session's state is not a socket session")),
        }
    };
    let mut out = Outbox::new(mock, &socket, protocol);
    if let Some(code) = request.header(CLOSED_HEADER) {
        let reason = lossy_text(&request.body);
        out.log_client("close", serde_json::json!({"code": code.parse::<u16>().unwrap_or(1005), "reason": reason}));
        mock.close_socket(&socket);
        return Turn::Done(out.reply(SocketEnd::Open));
    }
    let delivered = request.header(DELIVERED_HEADER).and_then(|v| v.parse::<usize>().ok());
    let text = lossy_text(&request.body);
    let event = match serde_json::from_str::<Value>(&text) {
        Ok(value @ Value::Object(_)) => value,
        _ => {
            out.log_client("invalid", serde_json::json!({"text": text}));
            let mut guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(session) = guard.downcast_mut::<Session>() else { return Turn::Done(out.reply(SocketEnd::Open)) };
            let end = match &mut session.state {
                ProtocolState::OpenAi(state) => {
                    state.unreadable(&mut out);
                    SocketEnd::Open
                }
                ProtocolState::Responses(_) => {
                    responses_ws::unreadable(&mut out);
                    SocketEnd::Open
                }
                ProtocolState::Gemini(_) => {
                    SocketEnd::Close { code: 1007, reason: "Request contains an invalid argument.".into() }
                }
            };
            drop(guard);
            out.end = end;
            return Turn::Done(finish(&slot, out));
        }
    };
    let kind = match protocol {
        SocketProtocol::GeminiLive { .. } => gemini_live::message_kind(&event),
        _ => event.get("type").and_then(Value::as_str).unwrap_or_default().to_string(),
    };
    out.log_client(&kind, event.clone());
    let slot_for_turn = std::sync::Arc::clone(&slot);
    let mut guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let Some(session) = guard.downcast_mut::<Session>() else { return Turn::Done(out.reply(SocketEnd::Open)) };
    // Messages of the last answer that the client never saw: the answer was cut short by this message.
    let undelivered = delivered.map(|sent| session.last_answer.saturating_sub(sent));
    let step = match &mut session.state {
        ProtocolState::OpenAi(state) => state.receive(&kind, &event, undelivered, &mut out),
        ProtocolState::Responses(state) => state.receive(&kind, &event, &mut out),
        ProtocolState::Gemini(state) => state.receive(&kind, &event, undelivered, &mut out),
    };
    drop(guard);
    match step {
        None => Turn::Done(finish(&slot_for_turn, out)),
        Some(ask) => {
            // The engine runs without the session's lock: a computed step may take any time.
            let request = std::sync::Arc::clone(&ask.request);
            let turn = mock.chat_stream_turn(ask.request, Some(ask.raw));
            turn.map(move |result| {
                let mut out = out;
                let result = with_usage(result, &request);
                let mut guard = slot_for_turn.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(session) = guard.downcast_mut::<Session>() {
                    match &mut session.state {
                        ProtocolState::OpenAi(state) => state.answer(result, ask.context, &mut out),
                        ProtocolState::Responses(state) => state.answer(result, ask.context, &mut out),
                        ProtocolState::Gemini(state) => state.answer(result, ask.context, &mut out),
                    }
                }
                drop(guard);
                finish(&slot_for_turn, out)
            })
        }
    }
}

/// The reply of an answer, remembering how many messages it sends.
fn finish(slot: &crate::mock::sockets::SessionSlot, out: Outbox) -> HttpReply {
    let mut guard = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(session) = guard.downcast_mut::<Session>() {
        session.last_answer = out.frames.len();
        session.closed = out.end != SocketEnd::Open;
    }
    drop(guard);
    let end = out.end.clone();
    out.reply(end)
}

/// A reply that closes the socket at once.
fn closing(socket: String, code: u16, reason: &str) -> HttpReply {
    let end = SocketEnd::Close { code, reason: reason.to_string() };
    HttpReply::Socket { status: 0, headers: Vec::new(), socket, frames: Vec::new(), end, interrupt: false }
}

/// What a protocol asks the engine for: a model turn's request, and what it needs to encode the answer.
pub(super) struct Ask {
    request: std::sync::Arc<crate::model::ChatRequest>,
    raw: crate::journal::RawRequest,
    context: TurnContext,
}

/// What a protocol remembers of the message that asked for a turn.
#[derive(Clone, Debug, Default)]
pub(super) struct TurnContext {
    /// The client event's `event_id` (OpenAI), echoed by an error it causes.
    pub event_id: Option<String>,
    /// Whether the answer is spoken (audio output).
    pub audio: bool,
    /// The response's own options (OpenAI `response.create`'s `response`), or the Responses create body.
    pub options: Value,
}

/// The step's stream with the usage the API reports when the script gave none (the word-like estimate of the
/// request and the answer, as on every endpoint).
pub(super) fn with_usage(
    result: crate::mock::StreamResult,
    request: &crate::model::ChatRequest,
) -> crate::mock::StreamResult {
    result.map(|stream| {
        let answered_by = stream.envelope().answered_by.clone();
        stream.with_usage_if_missing(|response| super::chat::estimated_usage(request, response, &answered_by))
    })
}

/// The messages of one answer, journaled as they are added.
pub(super) struct Outbox {
    log: crate::mock::sockets::SocketLog,
    socket: String,
    protocol: SocketProtocol,
    frames: Vec<Frame>,
    end: SocketEnd,
    interrupt: bool,
    /// The journal entry the messages being added belong to.
    request: Option<u64>,
    /// Model requests journaled before the messages being added.
    after_requests: u64,
    /// The virtual time of the messages being added.
    at_ms: u64,
}

impl Outbox {
    fn new(mock: &MockModel, socket: &str, protocol: SocketProtocol) -> Outbox {
        let (log, after_requests, at_ms) = mock.socket_log();
        Outbox {
            log,
            socket: socket.to_string(),
            protocol,
            frames: Vec::new(),
            end: SocketEnd::Open,
            interrupt: false,
            request: None,
            after_requests,
            at_ms,
        }
    }

    fn journal(&self, direction: &'static str, kind: String, event: Value) {
        let entry = crate::journal::SocketEvent {
            index: 0,
            after_requests: self.after_requests,
            at_ms: self.at_ms,
            session: self.socket.clone(),
            protocol: self.protocol.name(),
            direction,
            kind,
            event,
            request: self.request,
        };
        crate::mock::sockets::push(&self.log, entry);
    }

    /// Journals a client message.
    fn log_client(&mut self, kind: &str, event: Value) {
        self.journal("client", kind.to_string(), event);
    }

    /// Sends `event` after `delay_ms`, journaled.
    pub(super) fn send(&mut self, event: Value, delay_ms: u64) {
        let kind = match self.protocol {
            SocketProtocol::GeminiLive { .. } => gemini_live::message_kind(&event),
            _ => event.get("type").and_then(Value::as_str).unwrap_or_default().to_string(),
        };
        let data = event.to_string();
        self.journal("server", kind, event);
        self.frames.push(Frame { delay_ms, data });
    }

    /// Ends the answer with a close (after its messages).
    pub(super) fn close(&mut self, code: u16, reason: &str) {
        self.end = SocketEnd::Close { code, reason: reason.to_string() };
    }

    /// Ends the answer with a cut connection.
    pub(super) fn cut(&mut self) {
        self.end = SocketEnd::Cut;
    }

    /// The messages still unsent of the previous answer (the newest `undelivered` this session sent) are dropped,
    /// and forgotten by the journal: the client never saw them.
    pub(super) fn interrupt(&mut self, undelivered: usize) {
        self.interrupt = true;
        self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).forget_unsent(&self.socket, undelivered);
    }

    /// The journal entry (model request) the messages added next belong to, and the time they are sent.
    pub(super) fn for_request(&mut self, index: u64, at_ms: u64) {
        self.request = Some(index);
        self.after_requests = self.after_requests.max(index + 1);
        self.at_ms = self.at_ms.max(at_ms);
    }

    fn reply(self, end: SocketEnd) -> HttpReply {
        HttpReply::Socket {
            status: 0,
            headers: Vec::new(),
            socket: self.socket,
            frames: self.frames,
            end,
            interrupt: self.interrupt,
        }
    }
}
