//! MCP recordings (issue #54 §2): the JSON-RPC exchanges a client had with a real MCP server, kept as the `mcp`
//! section of a recording — the server's name, version and instructions, its tools (with their schemas), resources
//! and prompts as it listed them, and each tool call's result (or JSON-RPC error) as a step matching the call's
//! arguments. Every language replays the section as it serves any scripted MCP server (`/mcp` over HTTP,
//! `cuecard mcp` over stdio), in the revision the client speaks.
//!
//! Exchanges arrive from the recording proxy (Streamable HTTP: the JSON-RPC body, and the reply as JSON or as an SSE
//! stream) or from `cuecard record -- COMMAND` (stdio: one JSON message a line). Methods that say nothing about the
//! server (`ping`, notifications, logging) are not kept.

use crate::error::{invalid_argument, Result};
use crate::script::mcp::{
    McpError, McpPrompt, McpPromptArgument, McpPromptMessage, McpResource, McpServer, McpTool, McpToolMatch,
    McpToolStep,
};
use serde_json::{json, Value};

/// The servers recorded, in the order they were first seen.
#[derive(Debug, Default)]
pub(super) struct McpRecording {
    servers: Vec<McpServer>,
}

/// A server before its name is known (a client that skipped `initialize`, as the stateless revision does).
const UNNAMED: &str = "recorded";

impl McpRecording {
    /// The `mcp` section of an existing recording, to go on from.
    pub(super) fn from_document(document: &Value) -> Result<McpRecording> {
        let Some(section) = document.get("mcp") else { return Ok(McpRecording::default()) };
        let mcp: crate::script::mcp::Mcp = serde_json::from_value(section.clone())
            .map_err(|e| invalid_argument(format!("the recording's mcp section: {e}")))?;
        Ok(McpRecording { servers: mcp.servers })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The section as data: `{"servers": [...]}`.
    pub(super) fn to_value(&self) -> Value {
        json!({"servers": self.servers})
    }

    /// The server an exchange on `path` belongs to (`/mcp/{name}` names one; any other path is the first).
    fn server(&mut self, path: &str) -> Option<&mut McpServer> {
        match path.trim_end_matches('/').rsplit_once("/mcp/").map(|(_, name)| name.to_string()) {
            Some(name) => entry(&mut self.servers, |s| s.name == name, || new_server(&name)),
            None => {
                if self.servers.is_empty() {
                    self.servers.push(new_server(UNNAMED));
                }
                self.servers.first_mut()
            }
        }
    }

    /// Records one request and the server's response to it (a JSON-RPC `result` or `error`). Returns whether the
    /// exchange said something the recording keeps.
    pub(super) fn record(&mut self, path: &str, request: &Value, response: &Value) -> bool {
        let (Some(method), params) = (request.get("method").and_then(Value::as_str), request.get("params")) else {
            return false;
        };
        let params = params.cloned().unwrap_or(Value::Null);
        let result = response.get("result");
        let Some(server) = self.server(path) else { return false };
        match (method, result) {
            ("initialize" | "server/discover", Some(result)) => {
                if let Some(info) = result.get("serverInfo") {
                    if let Some(name) = info.get("name").and_then(Value::as_str) {
                        server.name = name.to_string();
                    }
                    server.version = info.get("version").and_then(Value::as_str).map(str::to_string);
                }
                if let Some(instructions) = result.get("instructions").and_then(Value::as_str) {
                    server.instructions = Some(instructions.to_string());
                }
            }
            ("tools/list", Some(result)) => {
                for listed in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                    let Some(tool) = text(listed, "name").and_then(|name| tool_named(server, &name)) else { continue };
                    tool.title = text(listed, "title");
                    tool.description = text(listed, "description");
                    tool.input_schema = listed.get("inputSchema").cloned();
                    tool.output_schema = listed.get("outputSchema").cloned();
                    tool.annotations = listed.get("annotations").cloned();
                }
            }
            ("tools/call", _) => {
                let Some(name) = text(&params, "name") else { return false };
                let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
                let step = tool_step(arguments, params.get("inputResponses").cloned(), response);
                let Some(tool) = tool_named(server, &name) else { return false };
                tool.steps.push(step);
            }
            ("resources/list", Some(result)) => {
                for listed in result.get("resources").and_then(Value::as_array).into_iter().flatten() {
                    let Some(resource) = text(listed, "uri").and_then(|uri| resource_at(server, &uri)) else {
                        continue;
                    };
                    resource.name = text(listed, "name");
                    resource.description = text(listed, "description");
                    resource.mime_type = text(listed, "mimeType").or(resource.mime_type.take());
                }
            }
            ("resources/read", Some(result)) => {
                let Some(uri) = text(&params, "uri") else { return false };
                let contents = result.get("contents").and_then(|c| c.get(0)).cloned().unwrap_or(Value::Null);
                let Some(resource) = resource_at(server, &uri) else { return false };
                resource.text = text(&contents, "text");
                resource.blob = text(&contents, "blob");
                resource.mime_type = text(&contents, "mimeType").or(resource.mime_type.take());
            }
            ("prompts/list", Some(result)) => {
                for listed in result.get("prompts").and_then(Value::as_array).into_iter().flatten() {
                    let Some(prompt) = text(listed, "name").and_then(|name| prompt_named(server, &name)) else {
                        continue;
                    };
                    prompt.description = text(listed, "description");
                    prompt.arguments = listed
                        .get("arguments")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|a| {
                            Some(McpPromptArgument {
                                name: text(a, "name")?,
                                description: text(a, "description"),
                                required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
                            })
                        })
                        .collect();
                }
            }
            ("prompts/get", Some(result)) => {
                let Some(name) = text(&params, "name") else { return false };
                let messages = result.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
                let Some(prompt) = prompt_named(server, &name) else { return false };
                prompt.messages = messages.iter().map(prompt_message).collect();
            }
            _ => return false,
        }
        true
    }
}

fn new_server(name: &str) -> McpServer {
    McpServer {
        name: name.to_string(),
        version: None,
        instructions: None,
        tools: Vec::new(),
        resources: Vec::new(),
        prompts: Vec::new(),
        on_exhausted: None,
        page_size: None,
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The item `is` picks, made and added when there is none.
fn entry<T>(items: &mut Vec<T>, is: impl Fn(&T) -> bool, make: impl FnOnce() -> T) -> Option<&mut T> {
    if !items.iter().any(&is) {
        items.push(make());
    }
    items.iter_mut().find(|item| is(item))
}

fn tool_named<'a>(server: &'a mut McpServer, name: &str) -> Option<&'a mut McpTool> {
    entry(
        &mut server.tools,
        |t| t.name == name,
        || McpTool {
            name: name.to_string(),
            title: None,
            description: None,
            input_schema: None,
            output_schema: None,
            annotations: None,
            steps: Vec::new(),
            on_exhausted: None,
        },
    )
}

fn resource_at<'a>(server: &'a mut McpServer, uri: &str) -> Option<&'a mut McpResource> {
    entry(
        &mut server.resources,
        |r| r.uri == uri,
        || McpResource { uri: uri.to_string(), name: None, description: None, mime_type: None, text: None, blob: None },
    )
}

fn prompt_named<'a>(server: &'a mut McpServer, name: &str) -> Option<&'a mut McpPrompt> {
    entry(
        &mut server.prompts,
        |p| p.name == name,
        || McpPrompt { name: name.to_string(), description: None, arguments: Vec::new(), messages: Vec::new() },
    )
}

/// A call's answer as a step that takes calls with the same arguments (and a retry's, the same `inputResponses`):
/// the result's content, structured content and `isError`, its `inputRequests` (an `input_required` result), or the
/// JSON-RPC error.
fn tool_step(arguments: Value, input_responses: Option<Value>, response: &Value) -> McpToolStep {
    let matcher = Some(McpToolMatch { arguments, input_responses });
    if let Some(error) = response.get("error") {
        return McpToolStep {
            matcher,
            error: Some(McpError {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                message: text(error, "message").unwrap_or_default(),
                data: error.get("data").cloned(),
            }),
            ..McpToolStep::default()
        };
    }
    let result = response.get("result").cloned().unwrap_or(Value::Null);
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        let requests = result.get("inputRequests").and_then(Value::as_object).cloned().unwrap_or_default();
        return McpToolStep { matcher, input_required: Some(requests), ..McpToolStep::default() };
    }
    McpToolStep {
        matcher,
        content: result.get("content").and_then(Value::as_array).cloned(),
        structured: result.get("structuredContent").cloned(),
        is_error: result.get("isError").and_then(Value::as_bool).unwrap_or(false),
        ..McpToolStep::default()
    }
}

/// A `prompts/get` message: its text, or its content block as sent.
fn prompt_message(message: &Value) -> McpPromptMessage {
    let role = text(message, "role").unwrap_or_else(|| "user".into());
    let content = message.get("content").cloned().unwrap_or(Value::Null);
    match (content.get("type").and_then(Value::as_str), text(&content, "text")) {
        (Some("text"), Some(text)) => McpPromptMessage { role, text: Some(text), content: None },
        _ => McpPromptMessage { role, text: None, content: Some(content) },
    }
}

/// The JSON-RPC request of an HTTP body: one object with `jsonrpc` and `method` (batches are not MCP's since
/// 2025-06-18, and are not recorded).
pub(crate) fn request_of(body: &[u8]) -> Option<Value> {
    let value: Value = serde_json::from_slice(body).ok()?;
    (value.get("jsonrpc").is_some() && value.get("method").is_some()).then_some(value)
}

/// The response to the request `id` in a reply body: the JSON body itself, or the SSE event that carries it (a
/// Streamable HTTP server may send progress notifications first).
pub(crate) fn response_of(body: &[u8], id: &Value) -> Option<Value> {
    let answers =
        |value: &Value| value.get("id") == Some(id) && (value.get("result").is_some() || value.get("error").is_some());
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        return answers(&value).then_some(value);
    }
    let text = String::from_utf8_lossy(body);
    text.split("\n\n").find_map(|event| {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        let value: Value = serde_json::from_str(&data.join("\n")).ok()?;
        answers(&value).then_some(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(recording: &mut McpRecording, method: &str, params: Value, result: Value) -> bool {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        recording.record("/mcp", &request, &json!({"jsonrpc": "2.0", "id": 1, "result": result}))
    }

    #[test]
    fn a_session_becomes_a_server_that_replays_it() {
        let mut recording = McpRecording::default();
        let info = json!({"serverInfo": {"name": "weather", "version": "2.1.0"}, "instructions": "Weather tools",
                          "protocolVersion": "2025-06-18", "capabilities": {}});
        assert!(exchange(&mut recording, "initialize", json!({}), info));
        let schema = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
        let tools = json!({"tools": [{"name": "get_forecast", "description": "Forecast", "inputSchema": schema}]});
        assert!(exchange(&mut recording, "tools/list", json!({}), tools));
        let paris = json!({"content": [{"type": "text", "text": "22 °C"}], "structuredContent": {"temp_c": 22}});
        assert!(exchange(
            &mut recording,
            "tools/call",
            json!({"name": "get_forecast", "arguments": {"city": "Paris"}}),
            paris
        ));
        let failed = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "unknown city"}});
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_forecast", "arguments": {"city": "Atlantis"}}});
        assert!(recording.record("/mcp", &call, &failed));
        let resources = json!({"resources": [{"uri": "file:///notes.txt", "name": "notes"}]});
        assert!(exchange(&mut recording, "resources/list", json!({}), resources));
        let read =
            json!({"contents": [{"uri": "file:///notes.txt", "mimeType": "text/plain", "text": "Bring an umbrella."}]});
        assert!(exchange(&mut recording, "resources/read", json!({"uri": "file:///notes.txt"}), read));
        let prompt =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Forecast for Paris?"}}]});
        assert!(exchange(
            &mut recording,
            "prompts/get",
            json!({"name": "ask", "arguments": {"city": "Paris"}}),
            prompt
        ));
        assert!(!exchange(&mut recording, "ping", json!({}), json!({})));

        let scenario =
            crate::scenario::Scenario::from_value(json!({"cuecard": 1, "mcp": recording.to_value()})).unwrap();
        let section = recording.to_value();
        assert_eq!(section["servers"][0]["name"], "weather");
        assert_eq!(section["servers"][0]["tools"][0]["steps"][0]["match"]["arguments"], json!({"city": "Paris"}));
        assert_eq!(section["servers"][0]["tools"][0]["steps"][1]["error"]["code"], -32602);
        assert_eq!(section["servers"][0]["resources"][0]["text"], "Bring an umbrella.");
        assert_eq!(section["servers"][0]["prompts"][0]["messages"][0]["text"], "Forecast for Paris?");
        // Replayed: the call with the recorded arguments gets the recorded result.
        let mock = crate::mock::MockModel::from_scenario(&scenario).unwrap();
        let call = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Paris"}}}"#;
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let headers = |session: Option<&str>| {
            let mut headers = vec![
                ("content-type".to_string(), "application/json".to_string()),
                ("accept".to_string(), "application/json, text/event-stream".to_string()),
            ];
            headers.extend(session.map(|s| ("mcp-session-id".to_string(), s.to_string())));
            headers
        };
        let reply =
            crate::wire::handle(&mock, &crate::http::HttpRequest::new("POST", "/mcp", headers(None), init.into()));
        let session = reply.header("mcp-session-id").map(str::to_string);
        let reply = crate::wire::handle(
            &mock,
            &crate::http::HttpRequest::new("POST", "/mcp", headers(session.as_deref()), call.into()),
        );
        let answer = response_of(reply.body_text().as_bytes(), &json!(7)).unwrap();
        assert_eq!(answer["result"]["structuredContent"], json!({"temp_c": 22}));
        assert_eq!(answer["result"]["content"][0]["text"], "22 °C");
    }

    #[test]
    fn responses_are_found_in_json_and_in_sse() {
        let id = json!(3);
        assert!(response_of(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#, &id).is_some());
        assert!(response_of(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#, &id).is_none());
        let sse = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"ok\":true}}\n\n";
        assert_eq!(response_of(sse, &id).unwrap()["result"]["ok"], true);
        assert!(request_of(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#).is_some());
        assert!(request_of(br#"{"model":"gpt-4o"}"#).is_none());
    }

    #[test]
    fn a_call_that_asked_for_input_and_its_retry_become_two_steps() {
        let mut recording = McpRecording::default();
        let confirm = json!({"method": "elicitation/create", "params": {"message": "Sure?"}});
        let asked =
            json!({"resultType": "input_required", "inputRequests": {"confirm": confirm}, "requestState": "s1"});
        assert!(exchange(&mut recording, "tools/call", json!({"name": "delete", "arguments": {}}), asked));
        let retry = json!({"name": "delete", "arguments": {}, "requestState": "s1",
                           "inputResponses": {"confirm": {"action": "accept"}}});
        let done = json!({"resultType": "complete", "content": [{"type": "text", "text": "Deleted."}]});
        assert!(exchange(&mut recording, "tools/call", retry, done));
        let section = recording.to_value();
        let steps = &section["servers"][0]["tools"][0]["steps"];
        assert_eq!(steps[0]["input_required"], json!({"confirm": confirm}));
        assert_eq!(steps[1]["match"]["input_responses"], json!({"confirm": {"action": "accept"}}));
        assert_eq!(steps[1]["content"][0]["text"], "Deleted.");
        // It reads back as a scenario (the upstream's own requestState is not kept: a replay issues its own).
        assert!(crate::scenario::Scenario::from_value(json!({"cuecard": 1, "mcp": section})).is_ok());
    }
}
