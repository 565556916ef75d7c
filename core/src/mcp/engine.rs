//! The JSON-RPC side of MCP, shared by every transport: one message in, what to send back (notifications first,
//! then the response), journaled once under the mock's lock.

use super::{LATEST_PROTOCOL_VERSION, MODERN_VERSIONS, PROTOCOL_VERSIONS};
use crate::journal::McpEntry;
use crate::journal::Outcome;
use crate::mock::mcp::{McpState, Now};
use crate::mock::MockModel;
use crate::script::mcp::{contains, McpServer, McpTool, McpToolStep};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// JSON-RPC's and MCP's error codes used here.
pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const RESOURCE_NOT_FOUND: i64 = -32002;
/// 2026-07-28: a header that is missing or does not match the body (`Mcp-Method`, `Mcp-Name`, the version).
pub(crate) const HEADER_MISMATCH: i64 = -32020;
/// 2026-07-28: the protocol version is not served; `data` lists those that are.
pub(crate) const UNSUPPORTED_VERSION: i64 = -32022;

/// Where a 2026-07-28 request names its protocol version.
const VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";

/// The protocol version a stateless (2026-07-28) request names in `params._meta`, if any.
pub(crate) fn modern_version(message: &Value) -> Option<&str> {
    message.get("params")?.get("_meta")?.get(VERSION_META)?.as_str()
}

/// The levels `logging/setLevel` takes (RFC 5424).
const LOG_LEVELS: [&str; 8] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// Where a message came from.
#[derive(Clone, Copy)]
pub(crate) struct Incoming<'a> {
    /// The server it is for (`None` when it named none that exists).
    pub server: Option<usize>,
    pub transport: &'static str,
    pub session: Option<&'a str>,
    /// Whether requests other than `initialize`, `ping` and `server/discover` may come: a stdio session that has
    /// not initialized is refused them, as the reference server refuses them.
    pub initialized: bool,
}

/// What to send for one message.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// Notifications to send before the response, each after waiting its delay (virtual ms since the previous one).
    pub before: Vec<(u64, Value)>,
    /// The response; `None` for a notification or a client's response.
    pub response: Option<Value>,
    /// Virtual ms to wait before the response (after the last notification).
    pub delay_ms: u64,
    /// Close the connection instead of answering.
    pub dropped: bool,
    /// The version an `initialize` agreed.
    pub negotiated: Option<String>,
}

/// What a method answers, before it is wrapped with the id.
enum Reply {
    Result(Value),
    Error {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// A notification, or a client's response: nothing is sent.
    Nothing,
}

/// Sets `key` of a JSON object (what `value[key] = ...` does, without its panic on a non-object).
fn insert(object: &mut Value, key: &str, value: Value) {
    if let Some(object) = object.as_object_mut() {
        object.insert(key.to_string(), value);
    }
}

fn error(code: i64, message: impl Into<String>) -> Reply {
    Reply::Error { code, message: message.into(), data: None }
}

/// A JSON-RPC error response.
pub(crate) fn error_response(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Answers `message` and journals it.
pub(crate) fn answer(mock: &MockModel, incoming: &Incoming, message: &Value) -> Answer {
    mock.with_mcp(|state, now| answer_locked(state, now, incoming, message))
}

/// Journals a message the transport answered itself, before reading it as JSON-RPC (a bad Origin, an unknown
/// session, a GET): `method` and `id` as far as they could be read.
pub(crate) fn journal_transport(mock: &MockModel, incoming: &Incoming, message: Option<&Value>, outcome: Outcome) {
    mock.with_mcp(|state, now| {
        let mut entry = new_entry(state, &now, incoming);
        if let Some(message) = message {
            entry.method = message.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
            entry.id = message.get("id").cloned();
        }
        entry.outcome = outcome;
        state.record(entry, now.journal_limit);
    });
}

fn new_entry(state: &McpState, now: &Now, incoming: &Incoming) -> McpEntry {
    let server = incoming.server.and_then(|s| state.mcp.servers.get(s)).map(|s| s.name.clone()).unwrap_or_default();
    McpEntry {
        index: state.received,
        after_requests: now.requests,
        at_ms: *now.clock_ms,
        server,
        transport: incoming.transport,
        session: incoming.session.map(str::to_string),
        method: String::new(),
        id: None,
        name: None,
        arguments: None,
        step: None,
        outcome: Outcome::Answered,
        result: None,
        error: None,
        dropped_connection: false,
        input_responses: None,
        revision: None,
    }
}

fn answer_locked(state: &mut McpState, now: Now, incoming: &Incoming, message: &Value) -> Answer {
    let mut entry = new_entry(state, &now, incoming);
    let mut answer = Answer::default();
    let (id, reply) = match read_message(message) {
        Err((id, message)) => {
            entry.outcome = Outcome::Rejected { reason: message.clone() };
            (Some(id), error(INVALID_REQUEST, message))
        }
        Ok(Message::Response) => {
            entry.outcome = Outcome::Rejected { reason: "a response to no request: the server sends none".into() };
            (None, Reply::Nothing)
        }
        Ok(Message::Notification(method)) => {
            entry.method = method.to_string();
            (None, Reply::Nothing)
        }
        Ok(Message::Request { id, method, params }) => {
            entry.method = method.to_string();
            entry.id = Some(id.clone());
            // A stateless request: it names its revision (and `server/discover` is that revision's own method).
            let modern = modern_version(message)
                .map(str::to_string)
                .or_else(|| (method == "server/discover").then(|| MODERN_VERSIONS[0].to_string()));
            entry.revision = modern.clone();
            let reply = match (incoming.server, modern.as_deref()) {
                (Some(_), Some(version)) if !MODERN_VERSIONS.contains(&version) => {
                    entry.outcome = Outcome::Rejected { reason: format!("unsupported protocol version {version}") };
                    unsupported_version(version)
                }
                (Some(server), Some(_)) => {
                    let reply = request(state, server, method, params, &mut entry, &mut answer);
                    modern_reply(reply, method, &state.mcp.servers.get(server).map(server_info))
                }
                (Some(server), None)
                    if incoming.initialized || matches!(method, "initialize" | "ping" | "server/discover") =>
                {
                    request(state, server, method, params, &mut entry, &mut answer)
                }
                (Some(_), None) => {
                    let reason = "Invalid request parameters: the session is not initialized (initialize comes first)";
                    entry.outcome = Outcome::Rejected { reason: reason.into() };
                    error(INVALID_PARAMS, reason)
                }
                (None, _) => {
                    entry.outcome = Outcome::Unmatched;
                    error(METHOD_NOT_FOUND, "no such MCP server in the scenario")
                }
            };
            (Some(id), reply)
        }
    };
    answer.response = match (id, reply) {
        (_, Reply::Nothing) | (None, _) => None,
        (Some(id), Reply::Result(result)) => {
            entry.result = Some(result.clone());
            Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
        }
        (Some(id), Reply::Error { code, message, data }) => {
            let mut error = json!({"code": code, "message": message});
            if let Some(data) = data {
                insert(&mut error, "data", data);
            }
            entry.error = Some(error.clone());
            Some(json!({"jsonrpc": "2.0", "id": id, "error": error}))
        }
    };
    if answer.dropped {
        entry.dropped_connection = true;
        entry.result = None;
        answer.response = None;
    }
    let waited: u64 = answer.before.iter().map(|(delay, _)| delay).sum::<u64>() + answer.delay_ms;
    *now.clock_ms += waited;
    state.record(entry, now.journal_limit);
    answer
}

/// The -32022 of a version not served, with those that are (`data.supported`) for the client's retry.
fn unsupported_version(version: &str) -> Reply {
    Reply::Error {
        code: UNSUPPORTED_VERSION,
        message: format!("Unsupported protocol version: {version} (this server speaks {})", MODERN_VERSIONS.join(", ")),
        data: Some(json!({"supported": MODERN_VERSIONS, "requested": version})),
    }
}

/// A 2026-07-28 result: `resultType`, the server's info in `_meta`, and for what a client may cache (lists, reads,
/// discover) `ttlMs` and `cacheScope` (nothing is cached: a scenario can change between requests). Methods the
/// revision removed are unknown there; a resource not found is -32602 in it.
fn modern_reply(reply: Reply, method: &str, server_info: &Option<Value>) -> Reply {
    match reply {
        Reply::Result(mut result) => {
            if matches!(method, "ping" | "logging/setLevel" | "initialize") {
                return error(METHOD_NOT_FOUND, format!("Method not found: {method} (not in revision 2026-07-28)"));
            }
            // A tool step's `input_required` result says so itself.
            if result.get("resultType").is_none() {
                insert(&mut result, "resultType", json!("complete"));
            }
            let cacheable = method.ends_with("/list") || matches!(method, "resources/read" | "server/discover");
            if cacheable {
                insert(&mut result, "ttlMs", json!(0));
                insert(&mut result, "cacheScope", json!("private"));
            }
            if let Some(info) = server_info {
                insert(&mut result, "_meta", json!({"io.modelcontextprotocol/serverInfo": info}));
            }
            Reply::Result(result)
        }
        Reply::Error { code: RESOURCE_NOT_FOUND, message, data } => {
            Reply::Error { code: INVALID_PARAMS, message, data }
        }
        other => other,
    }
}

enum Message<'a> {
    Request { id: Value, method: &'a str, params: &'a Value },
    Notification(&'a str),
    Response,
}

static NO_PARAMS: Value = Value::Null;

/// Reads a JSON-RPC message, or says why it is not one (with the id to answer, `null` when it cannot be read).
fn read_message(message: &Value) -> Result<Message<'_>, (Value, String)> {
    let Some(object) = message.as_object() else {
        let what = if message.is_array() {
            "a batch: JSON-RPC batching is not supported (MCP removed it in 2025-06-18)"
        } else {
            "not a JSON-RPC message (an object)"
        };
        return Err((Value::Null, format!("Invalid Request: {what}")));
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id.clone()),
        Some(other) => {
            return Err((Value::Null, format!("Invalid Request: the id {other} is not a string or an integer")));
        }
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err((id.unwrap_or(Value::Null), "Invalid Request: jsonrpc must be \"2.0\"".into()));
    }
    let params = object.get("params").unwrap_or(&NO_PARAMS);
    if !(params.is_object() || params.is_null()) {
        return Err((id.unwrap_or(Value::Null), "Invalid Request: params must be an object".into()));
    }
    match (object.get("method"), id) {
        (Some(Value::String(method)), Some(id)) => Ok(Message::Request { id, method, params }),
        (Some(Value::String(method)), None) => Ok(Message::Notification(method)),
        (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => Ok(Message::Response),
        (_, id) => Err((id.unwrap_or(Value::Null), "Invalid Request: a method (a string) is missing".into())),
    }
}

fn request(
    state: &mut McpState,
    server: usize,
    method: &str,
    params: &Value,
    entry: &mut McpEntry,
    answer: &mut Answer,
) -> Reply {
    let mcp = Arc::clone(&state.mcp);
    let Some(spec) = mcp.servers.get(server) else { return error(METHOD_NOT_FOUND, "no such MCP server") };
    let reply = match method {
        "initialize" => match params.get("protocolVersion").and_then(Value::as_str) {
            Some(asked) => {
                let agreed = if PROTOCOL_VERSIONS.contains(&asked) { asked } else { LATEST_PROTOCOL_VERSION };
                answer.negotiated = Some(agreed.to_string());
                let mut result = json!({"protocolVersion": agreed, "capabilities": capabilities(spec),
                    "serverInfo": server_info(spec)});
                if let Some(instructions) = &spec.instructions {
                    insert(&mut result, "instructions", json!(instructions));
                }
                Reply::Result(result)
            }
            None => error(INVALID_PARAMS, "Invalid params: initialize needs params.protocolVersion"),
        },
        "ping" => Reply::Result(json!({})),
        // 2026-07-28's discovery: the versions served (the stateless one first, then the handshake ones a client
        // may fall back to with `initialize`), what the server offers, and its instructions.
        "server/discover" => {
            let mut supported: Vec<&str> = MODERN_VERSIONS.to_vec();
            supported.extend(PROTOCOL_VERSIONS);
            let mut result = json!({"supportedVersions": supported, "capabilities": capabilities(spec)});
            if let Some(instructions) = &spec.instructions {
                insert(&mut result, "instructions", json!(instructions));
            }
            Reply::Result(result)
        }
        "tools/list" => page(params, spec.page_size, "tools", spec.tools.iter().map(tool_listing).collect()),
        "tools/call" => call_tool(state, server, params, entry, answer),
        "resources/list" if !spec.resources.is_empty() => {
            let listed = spec.resources.iter().map(resource_listing).collect();
            page(params, spec.page_size, "resources", listed)
        }
        "resources/templates/list" if !spec.resources.is_empty() => {
            page(params, spec.page_size, "resourceTemplates", Vec::new())
        }
        "resources/read" if !spec.resources.is_empty() => read_resource(spec, params, entry),
        "prompts/list" if !spec.prompts.is_empty() => {
            page(params, spec.page_size, "prompts", spec.prompts.iter().map(prompt_listing).collect())
        }
        "prompts/get" if !spec.prompts.is_empty() => get_prompt(spec, params, entry),
        "logging/setLevel" => match params.get("level").and_then(Value::as_str) {
            Some(level) if LOG_LEVELS.contains(&level) => Reply::Result(json!({})),
            _ => error(INVALID_PARAMS, format!("Invalid params: level is one of {}", LOG_LEVELS.join(", "))),
        },
        _ => {
            entry.outcome = Outcome::Unmatched;
            error(METHOD_NOT_FOUND, format!("Method not found: {method}"))
        }
    };
    // A request the engine refused as malformed is rejected; a step that scripts -32602 was answered as scripted.
    let scripted = entry.step.is_some();
    if matches!(reply, Reply::Error { code: INVALID_PARAMS, .. }) && entry.outcome == Outcome::Answered && !scripted {
        entry.outcome = Outcome::Rejected { reason: "invalid params".into() };
    }
    reply
}

fn server_info(spec: &McpServer) -> Value {
    json!({"name": spec.name, "version": spec.version.as_deref().unwrap_or("1.0.0")})
}

/// What the server offers: tools and logging always (every agent lists tools), resources and prompts when it has any.
fn capabilities(spec: &McpServer) -> Value {
    let mut capabilities = json!({"tools": {"listChanged": false}, "logging": {}});
    if !spec.resources.is_empty() {
        insert(&mut capabilities, "resources", json!({"subscribe": false, "listChanged": false}));
    }
    if !spec.prompts.is_empty() {
        insert(&mut capabilities, "prompts", json!({"listChanged": false}));
    }
    capabilities
}

/// One page of `items` under `key`, from the request's cursor (`cuecard-page-{offset}`, opaque to clients).
fn page(params: &Value, page_size: Option<usize>, key: &str, items: Vec<Value>) -> Reply {
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(cursor) => {
            match cursor.as_str().and_then(|c| c.strip_prefix("cuecard-page-")).and_then(|n| n.parse().ok()) {
                Some(offset) if offset < items.len() => offset,
                _ => {
                    return error(
                        INVALID_PARAMS,
                        format!("Invalid params: the cursor {cursor} was not given by this server"),
                    )
                }
            }
        }
    };
    let end = page_size.map_or(items.len(), |size| (start + size).min(items.len()));
    let mut result = Map::new();
    result.insert(key.into(), Value::Array(items.get(start..end).unwrap_or_default().to_vec()));
    if end < items.len() {
        result.insert("nextCursor".into(), json!(format!("cuecard-page-{end}")));
    }
    Reply::Result(Value::Object(result))
}

fn tool_listing(tool: &McpTool) -> Value {
    let mut listed = json!({"name": tool.name,
        "inputSchema": tool.input_schema.clone().unwrap_or_else(|| json!({"type": "object", "properties": {}}))});
    for (key, value) in
        [("title", tool.title.as_ref().map(|t| json!(t))), ("description", tool.description.as_ref().map(|d| json!(d)))]
    {
        if let Some(value) = value {
            insert(&mut listed, key, value);
        }
    }
    if let Some(schema) = &tool.output_schema {
        insert(&mut listed, "outputSchema", schema.clone());
    }
    if let Some(annotations) = &tool.annotations {
        insert(&mut listed, "annotations", annotations.clone());
    }
    listed
}

fn call_tool(state: &mut McpState, server: usize, params: &Value, entry: &mut McpEntry, answer: &mut Answer) -> Reply {
    let mcp = Arc::clone(&state.mcp);
    let Some(spec) = mcp.servers.get(server) else { return error(METHOD_NOT_FOUND, "no such MCP server") };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return error(INVALID_PARAMS, "Invalid params: tools/call needs params.name");
    };
    entry.name = Some(name.to_string());
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(arguments @ Value::Object(_)) => arguments.clone(),
        Some(_) => return error(INVALID_PARAMS, "Invalid params: arguments must be an object"),
    };
    entry.arguments = Some(arguments.clone());
    let found = spec.tools.iter().enumerate().find(|(_, tool)| tool.name == name);
    let (Some((_, tool)), Some(used)) = (found, found.and_then(|(t, _)| state.used.get_mut(server)?.get_mut(t))) else {
        entry.outcome = Outcome::Unmatched;
        return error(INVALID_PARAMS, format!("Unknown tool: {name}"));
    };
    let responses = match retry_responses(tool, params) {
        Ok(responses) => responses,
        Err(reason) => {
            entry.outcome = Outcome::Rejected { reason: reason.clone() };
            return error(INVALID_PARAMS, reason);
        }
    };
    entry.input_responses = responses.clone();
    // What was used before this call: a refused call gives back exactly what it took (a step that `repeat_last`
    // or `cycle` took again was used before and stays so).
    let used_before = used.to_vec();
    let taken = take_step(used, tool, spec, &arguments, responses.as_ref());
    let Some(step) = taken.and_then(|s| Some((s, tool.steps.get(s)?))) else {
        let left = used.iter().filter(|u| !**u).count();
        entry.outcome = if left == 0 { Outcome::Exhausted } else { Outcome::Unmatched };
        let why = if left == 0 {
            format!("all {} of its steps were used (on_exhausted: fail)", tool.steps.len())
        } else {
            format!("none of its {left} unused steps matches")
        };
        let message = format!("cuecard: tool {name} of server {} has no step for {arguments}: {why}", spec.name);
        return error(INTERNAL_ERROR, message);
    };
    let (s, step) = step;
    if let (Some(_), None) = (&step.input_required, &entry.revision) {
        // Asked of a client that cannot answer: the step stays as it was for one that can.
        used.copy_from_slice(&used_before);
        let reason = format!(
            "cuecard: step {s} of tool {name} asks the client for input (input_required), which is served in revision \
             {} (multi-round-trip requests); this call is of the handshake era, where cuecard sends no \
             server-to-client requests",
            MODERN_VERSIONS[0]
        );
        entry.outcome = Outcome::Rejected { reason: reason.clone() };
        return error(INTERNAL_ERROR, reason);
    }
    entry.step = Some(s as u32);
    schedule(step, params, answer);
    if let Some(requests) = &step.input_required {
        let mut result = json!({"resultType": "input_required", "requestState": request_state(name, s)});
        if !requests.is_empty() {
            insert(&mut result, "inputRequests", Value::Object(requests.clone()));
        }
        return Reply::Result(result);
    }
    if step.drop_connection {
        answer.dropped = true;
        return Reply::Nothing;
    }
    if let Some(e) = &step.error {
        return Reply::Error { code: e.code, message: e.message.clone(), data: e.data.clone() };
    }
    Reply::Result(tool_result(step))
}

/// The step a call takes: the first unused one it matches, else what the tool's exhaustion policy says. A step that
/// matches `input_responses` is only for a retry that carries them.
fn take_step(
    used: &mut [bool],
    tool: &McpTool,
    server: &McpServer,
    arguments: &Value,
    responses: Option<&Value>,
) -> Option<usize> {
    let accepts = |step: &McpToolStep| {
        step.matcher.as_ref().is_none_or(|m| {
            let responded = match (&m.input_responses, responses) {
                (None, _) => true,
                (Some(want), Some(got)) => contains(got, want),
                (Some(_), None) => false,
            };
            contains(arguments, &m.arguments) && responded
        })
    };
    tool.on_exhausted.or(server.on_exhausted).unwrap_or_default().take(used, &tool.steps, accepts)
}

/// The `requestState` of step `step` of tool `tool`'s `input_required` result. It names the step that asked, as a
/// stateless server's state must (the retry may reach any replica); the client echoes it without reading it.
fn request_state(tool: &str, step: usize) -> String {
    format!("cuecard-input/{tool}/{step}")
}

/// The step of `tool` whose `input_required` result carried `state`, if one did.
fn asking_step<'a>(tool: &'a McpTool, state: &str) -> Option<&'a serde_json::Map<String, Value>> {
    let (name, step) = state.strip_prefix("cuecard-input/")?.rsplit_once('/')?;
    let step: usize = step.parse().ok()?;
    if name != tool.name || request_state(name, step) != state {
        return None; // another tool's, or not written as this server writes it ("/01")
    }
    tool.steps.get(step)?.input_required.as_ref()
}

/// A retry's `inputResponses` (2026-07-28's multi-round-trip requests) to a call of `tool`, checked against the
/// `requestState` it echoes: `None` for a first call, the reason to refuse it for a retry no step asked for.
fn retry_responses(tool: &McpTool, params: &Value) -> Result<Option<Value>, String> {
    let (responses, request_state) = (params.get("inputResponses"), params.get("requestState"));
    if responses.is_none() && request_state.is_none() {
        return Ok(None);
    }
    let Some(request_state) = request_state else {
        return Err("Invalid params: inputResponses without the requestState of the input_required result".into());
    };
    let Some(request_state) = request_state.as_str() else {
        return Err("Invalid params: requestState must be the string of the input_required result".into());
    };
    let responses = responses.cloned().unwrap_or_else(|| json!({}));
    let Some(answered) = responses.as_object() else {
        return Err("Invalid params: inputResponses must be an object of responses by key".into());
    };
    let Some(asked) = asking_step(tool, request_state) else {
        return Err(format!(
            "Invalid params: requestState {request_state:?} was not issued by this server (a retry echoes the one of \
             the input_required result, byte for byte)"
        ));
    };
    if let Some(missing) = asked.keys().find(|key| !answered.contains_key(key.as_str())) {
        return Err(format!(
            "Invalid params: inputResponses lacks {missing:?}, which the input_required result asked for"
        ));
    }
    Ok(Some(responses))
}

/// The step's progress notifications (to a client that sent a `progressToken`) spread over its delay.
fn schedule(step: &McpToolStep, params: &Value, answer: &mut Answer) {
    let token = params.pointer("/_meta/progressToken").filter(|t| t.is_string() || t.is_i64() || t.is_u64());
    let (Some(token), Some(total)) = (token, step.progress.last()) else {
        answer.delay_ms = step.delay_ms;
        return;
    };
    let parts = step.progress.len() as u64 + 1;
    let mut sent_at = 0;
    for (k, progress) in step.progress.iter().enumerate() {
        let at = step.delay_ms * (k as u64 + 1) / parts;
        let notification = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": token, "progress": progress, "total": total}});
        answer.before.push((at - sent_at, notification));
        sent_at = at;
    }
    answer.delay_ms = step.delay_ms - sent_at;
}

fn tool_result(step: &McpToolStep) -> Value {
    let mut content: Vec<Value> = step.text.iter().map(|text| json!({"type": "text", "text": text})).collect();
    content.extend(step.content.iter().flatten().cloned());
    if content.is_empty() {
        if let Some(structured) = &step.structured {
            content.push(json!({"type": "text", "text": structured.to_string()}));
        }
    }
    let mut result = json!({"content": content, "isError": step.is_error});
    if let Some(structured) = &step.structured {
        insert(&mut result, "structuredContent", structured.clone());
    }
    result
}

fn resource_listing(resource: &super::McpResource) -> Value {
    let name = resource
        .name
        .clone()
        .unwrap_or_else(|| resource.uri.trim_end_matches('/').rsplit('/').next().unwrap_or(&resource.uri).to_string());
    let mut listed = json!({"uri": resource.uri, "name": name, "mimeType": mime_type(resource)});
    if let Some(description) = &resource.description {
        insert(&mut listed, "description", json!(description));
    }
    listed
}

fn mime_type(resource: &super::McpResource) -> &str {
    let fallback = if resource.text.is_some() { "text/plain" } else { "application/octet-stream" };
    resource.mime_type.as_deref().unwrap_or(fallback)
}

fn read_resource(spec: &McpServer, params: &Value, entry: &mut McpEntry) -> Reply {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return error(INVALID_PARAMS, "Invalid params: resources/read needs params.uri");
    };
    entry.name = Some(uri.to_string());
    let Some(resource) = spec.resources.iter().find(|r| r.uri == uri) else {
        entry.outcome = Outcome::Unmatched;
        return Reply::Error {
            code: RESOURCE_NOT_FOUND,
            message: "Resource not found".into(),
            data: Some(json!({"uri": uri})),
        };
    };
    let mut contents = json!({"uri": uri, "mimeType": mime_type(resource)});
    match (&resource.text, &resource.blob) {
        (Some(text), _) => insert(&mut contents, "text", json!(text)),
        (None, Some(blob)) => insert(&mut contents, "blob", json!(blob)),
        (None, None) => insert(&mut contents, "text", json!("")),
    }
    Reply::Result(json!({"contents": [contents]}))
}

fn prompt_listing(prompt: &super::McpPrompt) -> Value {
    let mut listed = json!({"name": prompt.name});
    if let Some(description) = &prompt.description {
        insert(&mut listed, "description", json!(description));
    }
    if !prompt.arguments.is_empty() {
        insert(&mut listed, "arguments", serde_json::to_value(&prompt.arguments).unwrap_or_default());
    }
    listed
}

fn get_prompt(spec: &McpServer, params: &Value, entry: &mut McpEntry) -> Reply {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return error(INVALID_PARAMS, "Invalid params: prompts/get needs params.name");
    };
    entry.name = Some(name.to_string());
    let Some(prompt) = spec.prompts.iter().find(|p| p.name == name) else {
        entry.outcome = Outcome::Unmatched;
        return error(INVALID_PARAMS, format!("Unknown prompt: {name}"));
    };
    let given = params.get("arguments").and_then(Value::as_object).cloned().unwrap_or_default();
    entry.arguments = Some(Value::Object(given.clone()));
    let missing: Vec<&str> = prompt
        .arguments
        .iter()
        .filter(|a| a.required && !given.contains_key(&a.name))
        .map(|a| a.name.as_str())
        .collect();
    if !missing.is_empty() {
        return error(INVALID_PARAMS, format!("Missing required arguments: {}", missing.join(", ")));
    }
    let fill = |text: &str| {
        given.iter().fold(text.to_string(), |text, (key, value)| {
            let value = value.as_str().map_or_else(|| value.to_string(), str::to_string);
            text.replace(&format!("{{{{{key}}}}}"), &value)
        })
    };
    let messages: Vec<Value> = prompt
        .messages
        .iter()
        .map(|m| {
            let content = match (&m.text, &m.content) {
                (Some(text), _) => json!({"type": "text", "text": fill(text)}),
                (None, content) => content.clone().unwrap_or_default(),
            };
            json!({"role": m.role, "content": content})
        })
        .collect();
    let mut result = json!({"messages": messages});
    if let Some(description) = &prompt.description {
        insert(&mut result, "description", json!(description));
    }
    Reply::Result(result)
}
