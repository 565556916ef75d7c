//! The realtime sockets are not in the WebAssembly module: the protocols of `sockets/mod.rs` cost it 33 KB gzipped
//! (611,085 bytes against 578,068 without them, 2026-12-06), over the browser module's budget, which issue #57 is
//! to bring down, not up. A browser test of a realtime app connects to `cuecard serve` (`ws://`, or `wss://` with
//! `--tls`). Here a socket request is refused by name instead of being an unknown path.

use super::*;
use crate::mock::pending::Turn;
use crate::mock::MockModel;

/// Whether this build serves realtime sockets.
pub const SERVED: bool = false;
/// The method of a message on an open socket, on the face (as in `sockets/mod.rs`).
pub const MESSAGE_METHOD: &str = "WS";
/// The session a message belongs to.
pub const SOCKET_HEADER: &str = "x-cuecard-socket";
/// The client closed the socket with this code.
pub const CLOSED_HEADER: &str = "x-cuecard-socket-closed";
/// How many messages of the previous answer the transport had sent.
pub const DELIVERED_HEADER: &str = "x-cuecard-delivered";

/// Whether `request` asks to open a socket (`upgrade: websocket`).
pub fn is_upgrade(request: &HttpRequest) -> bool {
    request.header("upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket"))
}

/// A socket request (an upgrade, or a `WS` message) is a journaled 501 saying where sockets are served.
pub(crate) fn handle(mock: &MockModel, request: &HttpRequest) -> Option<Turn<HttpReply>> {
    if request.method != MESSAGE_METHOD && !is_upgrade(request) {
        return None;
    }
    let message = format!(
        "{} {}: realtime sockets are not in cuecard's WebAssembly module; connect to `cuecard serve` (ws:// or wss://)",
        request.method, request.path
    );
    let index = mock.reject(crate::model::ChatRequest::default(), Some(raw(request)), message.clone());
    let reply = errors::cuecard_reply(
        Dialect::of_client(request),
        501,
        crate::error::ErrorKind::InvalidRequest,
        &message,
        &request_id(index),
    );
    Some(Turn::Done(reply))
}
