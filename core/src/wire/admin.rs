//! The admin surface under `/_cuecard/`: load a scenario, read the journal (paged, or whole as a written stream),
//! reset. Admin requests are not journaled, and web pages are refused (`foreign_admin_request`).

use super::json_reply;
use crate::error::ErrorKind;
use crate::http::{is_loopback_host, HttpReply, HttpRequest};
use crate::mock::MockModel;
use crate::scenario::Scenario;
use crate::verify::{run_check, Check};
use serde_json::{json, Value};

/// The content types `PUT /_cuecard/scenario` takes.
const SCENARIO_CONTENT_TYPES: &str = "application/json or application/yaml (also text/yaml, application/x-yaml)";

/// `PUT /_cuecard/scenario` loads a scenario (JSON or YAML as the content type says; without one, JSON when it
/// starts with `{`, else YAML), `GET /_cuecard/journal` reads the journal, `POST /_cuecard/checks` runs checks as
/// data against it (a test's end-of-test check on a shared server), `POST /_cuecard/reset` forgets requests and
/// rewinds the script. Admin requests are not journaled. Errors are `{"error": <cuecard error>}`.
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
        ("POST", "/_cuecard/checks") => match read_checks(&request.body) {
            Ok(checks) => json_reply(200, vec![], &checks_document(mock, &checks)),
            Err(error) => admin_error(400, &error),
        },
        ("POST", "/_cuecard/reset") => {
            mock.reset();
            json_reply(200, vec![], &json!({"ok": true}))
        }
        #[cfg(feature = "server")]
        ("GET", "/_cuecard") => dashboard(),
        ("GET", "/_cuecard/health") => json_reply(200, vec![], &json!({"ok": true, "version": crate::clock::VERSION})),
        (method, _) => admin_error(
            404,
            &crate::error::Error::new(
                ErrorKind::NotFound,
                format!("unknown admin endpoint {method} {path} (GET /_cuecard/ a server's dashboard, PUT /_cuecard/scenario, GET /_cuecard/journal, POST /_cuecard/checks, POST /_cuecard/reset, GET /_cuecard/health)"),
            ),
        ),
    }
}

/// The journal dashboard (`dashboard.html`): one page, no external assets, that reads this admin surface with
/// same-origin GETs. Only on a server (the in-process transports have no browser to show it in), and under the
/// admin surface's rules like any admin path: loopback `Host`, no foreign `Origin`, the admin token when set.
#[cfg(feature = "server")]
fn dashboard() -> HttpReply {
    let headers = vec![
        ("content-type".into(), "text/html; charset=utf-8".into()),
        ("cache-control".into(), "no-store".into()),
        // Its own inline script and style, same-origin fetches, nothing else; never framed by another page.
        (
            "content-security-policy".into(),
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; \
             frame-ancestors 'none'"
                .into(),
        ),
    ];
    HttpReply::Full { delay_ms: 0, status: 200, headers, body: include_str!("dashboard.html").to_string() }
}

/// Why an admin request is refused as coming from a web page, if it is: a browser adds `Origin` to requests a
/// page makes (tests and SDKs do not), and a page reaching the server through DNS rebinding sends its own name
/// as `Host`, never a loopback one. The admin surface replaces the script and reads every request, so it answers
/// only requests without an `Origin` whose `Host`, when given, is `localhost`, `127.x.x.x` or `[::1]`, or, on a
/// server with an admin token, that carried the token (whatever their `Host`: a page cannot know the token).
pub(crate) fn foreign_admin_request(request: &HttpRequest) -> Option<String> {
    if let Some(origin) = request.header("origin") {
        return Some(format!(
            "admin requests come from tests, not from web pages: a request with an Origin header ({origin}) is refused"
        ));
    }
    let host = request.header("host")?;
    if request.admin_token_checked || is_loopback_host(host) {
        None
    } else {
        Some(format!(
            "admin requests are answered on a loopback name only (localhost, 127.0.0.1, [::1]), not Host {host}, \
             unless the server has an admin token and the request carries it"
        ))
    }
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
    let mut document = json!({"count": mock.request_count(), "counts": mock.counts(),
        "unused_steps": mock.unused_steps(), "entries": mock.entries()});
    if let Some(mcp) = mcp_journal(mock) {
        document["mcp"] = mcp;
    }
    if let Some(a2a) = a2a_journal(mock) {
        document["a2a"] = a2a;
    }
    let sockets = mock.socket_events();
    if !sockets.is_empty() {
        document["sockets"] = json!(sockets);
    }
    document
}

/// The MCP journal, `{"entries", "unused_steps"}`, when the mock has MCP servers (the journal document's `mcp`).
fn mcp_journal(mock: &MockModel) -> Option<Value> {
    let has_servers = mock.has_mcp_servers();
    has_servers.then(|| json!({"entries": mock.mcp_entries(), "unused_steps": mock.mcp_unused_steps()}))
}

/// The A2A journal, `{"entries", "unused_steps"}`, when the mock has agents (the journal document's `a2a`).
#[cfg(not(target_arch = "wasm32"))]
fn a2a_journal(mock: &MockModel) -> Option<Value> {
    let has_agents = mock.has_a2a_agents();
    has_agents.then(|| json!({"entries": mock.a2a_entries(), "unused_steps": mock.a2a_unused_steps()}))
}

/// The WebAssembly module serves no agents (`a2a/absent.rs`): its journal has no `a2a`.
#[cfg(target_arch = "wasm32")]
fn a2a_journal(_: &MockModel) -> Option<Value> {
    None
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
    // `a2a` sorts first.
    let mut piece = b"{".to_vec();
    if let Some(a2a) = a2a_journal(mock) {
        piece.extend_from_slice(br#""a2a":"#);
        write(&mut piece, a2a);
        piece.push(b',');
    }
    piece.extend_from_slice(format!(r#""count":{count},"counts":"#).as_bytes());
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
    piece.extend_from_slice(b"]");
    if let Some(mcp) = mcp_journal(mock) {
        piece.extend_from_slice(br#","mcp":"#);
        write(&mut piece, mcp);
    }
    let sockets = mock.socket_events();
    if !sockets.is_empty() {
        piece.extend_from_slice(br#","sockets":"#);
        write(&mut piece, json!(sockets));
    }
    piece.extend_from_slice(br#","unused_steps":"#);
    write(&mut piece, json!(mock.unused_steps()));
    piece.push(b'}');
    emit(piece);
}

/// The checks of `POST /_cuecard/checks`: one check as data (`{"check": "script_fully_used"}`) or a list of them.
fn read_checks(body: &[u8]) -> Result<Vec<Check>, crate::error::Error> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let message = format!("POST /_cuecard/checks takes a check as JSON or a list of them: {e}");
        crate::error::Error::new(ErrorKind::InvalidArgument, message)
    })?;
    match value {
        Value::Array(items) => items.into_iter().map(Check::from_value).collect(),
        one => Check::from_value(one).map(|check| vec![check]),
    }
}

/// `{"ok": true, "ran": n}` when every check holds, else `{"ok": false, "ran": <checks run>, "failure": <the
/// first that did not hold, as core's AssertionFailure>}`: a check that fails is an answer, not an error (200).
fn checks_document(mock: &MockModel, checks: &[Check]) -> Value {
    for (ran, check) in (1_usize..).zip(checks) {
        if let Err(failure) = run_check(mock, None, check) {
            return json!({"ok": false, "ran": ran, "failure": failure});
        }
    }
    json!({"ok": true, "ran": checks.len()})
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

pub(crate) fn admin_error(status: u16, error: &crate::error::Error) -> HttpReply {
    json_reply(status, vec![], &json!({ "error": error.to_json() }))
}
