//! The server's WebSockets: an upgrade the wire layer opens a session for (`wire::sockets`) is answered `101`,
//! and the upgraded connection then carries the session's messages both ways. Each client message is passed to
//! `wire::handle` as the face's `WS` request; the messages it answers with are sent in order, each after its delay
//! (skipped when instant), and a later client message can interrupt those still unsent (a cancelled response).

use crate::http::{Frame, HttpReply, HttpRequest, SocketEnd};
use crate::mock::pending::Turn;
use crate::mock::MockModel;
use crate::wire::sockets::{CLOSED_HEADER, DELIVERED_HEADER, MESSAGE_METHOD, SOCKET_HEADER};
use futures_util::{SinkExt, StreamExt};
use hyper_util::rt::TokioIo;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;

/// The `101 Switching Protocols` for an opened socket, with the accept key of the client's `sec-websocket-key`.
pub(super) fn switching(key: &[u8], headers: Vec<crate::http::ReplyHeader>) -> hyper::Response<super::ReplyBody> {
    let mut builder = hyper::Response::builder()
        .status(101)
        .header("upgrade", "websocket")
        .header("connection", "Upgrade")
        .header("sec-websocket-accept", tokio_tungstenite::tungstenite::handshake::derive_accept_key(key));
    for (name, value) in headers {
        builder = builder.header(name.as_ref(), value.as_ref());
    }
    builder
        .body(super::ReplyBody::full(Vec::new()))
        .unwrap_or_else(|_| hyper::Response::new(super::ReplyBody::full(Vec::new())))
}

/// What a session's connection needs: the mock that serves it, its id and path, and how to pace.
pub(super) struct Connection {
    pub mock: Arc<MockModel>,
    pub socket: String,
    pub path: String,
    pub instant: bool,
    pub stopping: tokio::sync::watch::Receiver<bool>,
}

/// Serves a session on its upgraded connection until either side closes it or the server stops.
pub(super) async fn serve(
    upgrade: hyper::upgrade::OnUpgrade,
    connection: Connection,
    frames: Vec<Frame>,
    end: SocketEnd,
) {
    let Ok(upgraded) = upgrade.await else {
        closed_by_client(&connection, 1006, "the upgrade did not complete").await;
        return;
    };
    // Realtime messages can be large (15 MiB of audio in one append); the limit is the body limit of every request.
    let mut config = WebSocketConfig::default();
    config.max_message_size = Some(crate::http::MAX_BODY_BYTES);
    config.max_frame_size = Some(crate::http::MAX_BODY_BYTES);
    let socket =
        tokio_tungstenite::WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config)).await;
    let (mut sink, mut incoming) = socket.split();
    let mut queue: VecDeque<Frame> = frames.into();
    let mut end = end;
    // The size of the last answer, to tell the core how much of it was sent when a client message cuts in.
    let mut last_answer = queue.len();
    let mut due = Instant::now() + delay(&queue, connection.instant);
    let mut stopping = connection.stopping.clone();
    loop {
        if queue.is_empty() {
            match end {
                SocketEnd::Open => {}
                SocketEnd::Close { code, reason } => {
                    let frame = CloseFrame { code: CloseCode::from(code), reason: reason.into() };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                    // The client answers the close; wait a moment for it so the connection ends cleanly.
                    let _ = tokio::time::timeout(Duration::from_secs(1), async {
                        while incoming.next().await.is_some() {}
                    })
                    .await;
                    return;
                }
                SocketEnd::Cut => return,
            }
        }
        // Biased: a message that is due is sent before a client message is read, so what the client saw before it
        // wrote is what the core is told was delivered (an unbiased select could read a client's reply to the
        // last event of a response while that event still sat in the queue, and the core would think the
        // response still in flight: conversation_already_has_active_response, seen once in CI).
        tokio::select! {
            biased;
            () = tokio::time::sleep_until(due), if !queue.is_empty() => {
                let Some(frame) = queue.pop_front() else { continue };
                if sink.send(Message::text(frame.data)).await.is_err() {
                    closed_by_client(&connection, 1006, "the connection broke").await;
                    return;
                }
                due = Instant::now() + delay(&queue, connection.instant);
            }
            message = incoming.next() => {
                let body = match message {
                    Some(Ok(Message::Text(text))) => text.as_bytes().to_vec(),
                    Some(Ok(Message::Binary(bytes))) => bytes.to_vec(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
                    Some(Ok(Message::Close(frame))) => {
                        let (code, reason) = frame.map_or((1005, String::new()), |f| (u16::from(f.code), f.reason.to_string()));
                        closed_by_client(&connection, code, &reason).await;
                        return;
                    }
                    Some(Err(_)) | None => {
                        closed_by_client(&connection, 1006, "").await;
                        return;
                    }
                };
                let unsent = queue.len().min(last_answer);
                let delivered = (unsent > 0).then(|| last_answer - unsent);
                let Some(HttpReply::Socket { frames, end: next, interrupt, .. }) =
                    answer(&connection, body, delivered, None).await
                else {
                    return;
                };
                if interrupt {
                    queue.clear();
                }
                let was_empty = queue.is_empty();
                last_answer = frames.len();
                queue.extend(frames);
                end = next;
                if was_empty {
                    due = Instant::now() + delay(&queue, connection.instant);
                }
            }
            true = async { stopping.wait_for(|stopped| *stopped).await.is_ok() } => {
                let frame = CloseFrame { code: CloseCode::Away, reason: "the server is stopping".into() };
                let _ = sink.send(Message::Close(Some(frame))).await;
                closed_by_client(&connection, 1001, "the server stopped").await;
                return;
            }
        }
    }
}

/// The wait before the next frame.
fn delay(queue: &VecDeque<Frame>, instant: bool) -> Duration {
    match queue.front() {
        Some(frame) if !instant => Duration::from_millis(frame.delay_ms),
        _ => Duration::ZERO,
    }
}

/// Tells the core the client closed the socket (journaled, and the session forgotten).
async fn closed_by_client(connection: &Connection, code: u16, reason: &str) {
    let _ = answer(connection, reason.as_bytes().to_vec(), None, Some(code)).await;
}

/// One client message through the wire layer, as the face's `WS` request. A computed step's callback is the host's
/// code: it runs on the blocking pool.
async fn answer(
    connection: &Connection,
    body: Vec<u8>,
    delivered: Option<usize>,
    closed: Option<u16>,
) -> Option<HttpReply> {
    let mut headers = vec![(SOCKET_HEADER.to_string(), connection.socket.clone())];
    if let Some(sent) = delivered {
        headers.push((DELIVERED_HEADER.to_string(), sent.to_string()));
    }
    if let Some(code) = closed {
        headers.push((CLOSED_HEADER.to_string(), code.to_string()));
    }
    let request = HttpRequest::new(MESSAGE_METHOD, &connection.path, headers, body);
    let mock = Arc::clone(&connection.mock);
    match crate::wire::handle_turn(&mock, &request) {
        Turn::Done(reply) => Some(reply),
        Turn::Pending(pending) => tokio::task::spawn_blocking(move || pending.respond_here(&mock)).await.ok(),
    }
}
