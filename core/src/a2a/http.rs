//! A2A over HTTP: the paths (`/a2a` and `/a2a/{name}` for JSON-RPC, the well-known card paths), JSON replies and
//! SSE streams. JSON-RPC failures are HTTP 200 with an `error`, as both generations send them; only a path that is
//! not A2A's or a method other than POST on an endpoint is an HTTP error.

use super::engine::{self, Answer};
use crate::http::{Frame, HttpReply, HttpRequest, ReplyHeader, StreamEnd};
use crate::mock::MockModel;
use serde_json::{json, Value};

const CARD_FILES: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/// Whether `path` is A2A's: `/a2a`, `/a2a/{name}` (and their cards), or a card at the root.
pub fn is_a2a_path(path: &str) -> bool {
    path == "/a2a" || path.starts_with("/a2a/") || CARD_FILES.contains(&path)
}

/// The agent a path names: `(name, is a card fetch)`; `None` for the first agent.
fn agent_of(path: &str) -> (Option<&str>, bool) {
    let (rest, card) = match CARD_FILES.iter().find_map(|file| path.strip_suffix(file)) {
        Some(rest) => (rest, true),
        None => (path, false),
    };
    let name = rest.strip_prefix("/a2a/").map(|n| n.trim_end_matches('/')).filter(|n| !n.is_empty());
    (name, card)
}

fn json_reply(status: u16, body: &Value, miss: Option<&str>) -> HttpReply {
    let mut headers: Vec<ReplyHeader> = vec![("content-type".into(), "application/json".into())];
    headers.extend(miss_header(miss));
    HttpReply::Full { delay_ms: 0, status, headers, body: body.to_string() }
}

/// `x-cuecard-error` on an answer the scenario lacked (no such agent, no step left): how a recording proxy that
/// replays first tells a miss to forward from an answer.
fn miss_header(miss: Option<&str>) -> Option<ReplyHeader> {
    miss.map(|kind| ("x-cuecard-error".into(), kind.to_string().into()))
}

/// Answers one HTTP request to an A2A path, journaling it once in the A2A journal.
pub fn handle_http(mock: &MockModel, request: &HttpRequest) -> HttpReply {
    let (named, card) = agent_of(&request.path);
    let (agent, replays_recording) = mock.with_a2a(|state, now| (state.agent_index(named), now.replays_recording));
    let shown = named.unwrap_or_default().to_string();
    if card {
        let found = agent.and_then(|a| mock.with_a2a(|state, _| state.a2a.agents.get(a).cloned()));
        engine::journal_card(mock, found.as_ref().map_or(shown.as_str(), |a| a.name.as_str()), found.is_some());
        return match found {
            Some(agent) => {
                // The JSON-RPC endpoint as the client reached this server (its Host header, and the test's `/t/{id}`
                // when it came through one).
                let host = request.header("host").unwrap_or("127.0.0.1");
                let url = format!("http://{host}{}/a2a/{}", request.mount, agent.name);
                json_reply(200, &super::card::card(&agent, &url), None)
            }
            None => json_reply(
                404,
                &json!({"error": format!("no A2A agent at {} (the scenario's a2a section names the agents)", request.path)}),
                Some(engine::missing_agent(replays_recording)),
            ),
        };
    }
    if request.method != "POST" {
        let message = format!("{} {}: an A2A endpoint takes JSON-RPC requests by POST", request.method, request.path);
        engine::journal_refused(mock, &shown, &request.method, &message);
        return json_reply(405, &json!({"error": message}), None);
    }
    let version = request.header("a2a-version");
    let (answer, miss, pushes) = engine::answer(mock, agent, &shown, &request.body, version);
    super::push::deliver(pushes);
    match answer {
        Answer::Json(response) => json_reply(200, &response, miss),
        Answer::Stream { events, cut } => {
            let frames: Vec<Frame> = events
                .into_iter()
                .map(|(delay_ms, event)| Frame { delay_ms, data: format!("data: {event}\n\n") })
                .collect();
            let mut headers: Vec<ReplyHeader> =
                vec![("content-type".into(), "text/event-stream".into()), ("cache-control".into(), "no-cache".into())];
            headers.extend(miss_header(miss));
            HttpReply::Stream {
                stall_ms: 0,
                status: 200,
                headers,
                frames: frames.into(),
                end: if cut { StreamEnd::Cut } else { StreamEnd::Close },
                base64: false,
                separate_writes: false,
                entry: None,
            }
        }
    }
}
