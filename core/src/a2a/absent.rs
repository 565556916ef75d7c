//! The A2A agents are not in the WebAssembly module: the engine of `a2a/` costs it 28 KB gzipped (623,176 bytes
//! against 594,994 without it, 2026-12-06), over the browser module's budget, which issue #57 is to bring down, not
//! up. A browser test of an agent that delegates connects to `cuecard serve`. Here an A2A request is refused by name
//! (journaled as a rejected request) instead of being an unknown path.

use crate::http::{HttpReply, HttpRequest};
use crate::mock::MockModel;

/// Whether this build serves A2A agents.
pub const SERVED: bool = false;

const CARD_FILES: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/// Whether `path` is A2A's (as in `a2a/http.rs`).
pub fn is_a2a_path(path: &str) -> bool {
    path == "/a2a" || path.starts_with("/a2a/") || CARD_FILES.contains(&path)
}

/// A 501 saying where A2A agents are served, journaled as a rejected request (as a socket request is here).
pub fn handle_http(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let message = format!(
        "{} {}: A2A agents are not in cuecard's WebAssembly module; point the client at `cuecard serve`",
        request.method, request.path
    );
    let raw = crate::journal::RawRequest {
        path: request.path.as_str().into(),
        body: String::from_utf8_lossy(&request.body).into(),
        contract_violation: None,
    };
    mock.reject(crate::model::ChatRequest::default(), Some(raw), message.clone());
    let body = serde_json::json!({"error": message}).to_string();
    HttpReply::Full {
        delay_ms: 0,
        status: 501,
        headers: vec![("content-type".into(), "application/json".into())],
        body,
    }
}
