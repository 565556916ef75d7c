//! Request contracts: the rules the real APIs enforce on a request, with their exact error texts
//! (`../shared/spec/recording-contracts-streams.md` part B). A mock that accepts any request gives false greens: a
//! `tool_result` without its `tool_use`, a tool message after no call, a strict schema without
//! `additionalProperties: false` pass against it and fail in production.
//!
//! Each rule has the spec's id (A1 … R6), reads the request JSON, and never rejects what the real API accepts (the
//! spec lists those too: consecutive same-role turns are merged, a final assistant message is a prefill,
//! `max_tokens: 0` pre-warms the cache, thinking blocks may be dropped from old turns). Under `contracts: strict`
//! a violation is answered with the API's status and error body and journaled as `contract_violation` with its
//! rule; under `warn` the request is answered as scripted and the violation is kept beside the journal.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `contracts` setting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Contracts {
    /// Not checked (default).
    #[default]
    Off,
    /// Checked; a violation is kept beside the journal, and the request is answered as scripted.
    Warn,
    /// Checked; a violation is answered as the real API answers it.
    Strict,
}

/// A rule a request broke.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The spec's rule id: `A1` (Anthropic), `C3` (Chat Completions), `R3` (Responses), `S1` (strict schemas).
    pub rule: String,
    /// The real API's message.
    pub message: String,
    /// OpenAI's `param`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// OpenAI's `code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

fn violation(rule: &str, message: impl Into<String>) -> Violation {
    Violation { rule: rule.into(), message: message.into(), param: None, code: None }
}

impl Violation {
    fn param(mut self, param: impl Into<String>) -> Violation {
        self.param = Some(param.into());
        self
    }

    fn code(mut self, code: &str) -> Violation {
        self.code = Some(code.into());
        self
    }
}

/// The first rule the request to `endpoint` breaks, if any (endpoints without rules pass).
pub(crate) fn check(endpoint: &str, body: &Value) -> Option<Violation> {
    match endpoint {
        "messages" => anthropic(body),
        "chat_completions" => chat(body),
        "responses" => responses(body),
        _ => None,
    }
}

fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A message's content blocks (a string content is one text block).
fn blocks(message: &Value) -> Vec<Value> {
    match message.get("content") {
        Some(Value::String(text)) => vec![serde_json::json!({"type": "text", "text": text})],
        Some(Value::Array(blocks)) => blocks.clone(),
        _ => Vec::new(),
    }
}

fn ids_of(blocks: &[Value], kind: &str, key: &str) -> Vec<String> {
    blocks.iter().filter(|b| str_of(b, "type") == kind).map(|b| str_of(b, key).to_string()).collect()
}

const THINKING_DOCS: &str = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

fn anthropic(body: &Value) -> Option<Violation> {
    for (i, tool) in array(body, "tools").iter().enumerate() {
        // Custom tools (server tools have a `type` such as `web_search_20250305` and their own names).
        let custom = tool.get("type").is_none_or(|t| t == "custom");
        let name = str_of(tool, "name");
        let valid =
            (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if custom && !valid {
            let message = format!("tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'");
            return Some(violation("A13", message));
        }
    }
    let thinking = body.get("thinking").filter(|t| str_of(t, "type") == "enabled");
    if let Some(thinking) = thinking {
        let budget = thinking.get("budget_tokens").and_then(Value::as_u64).unwrap_or(0);
        if budget < 1024 {
            let message = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
            return Some(violation("A7", message));
        }
        let max_tokens = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
        if max_tokens <= budget {
            let message = format!(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at \
                 {THINKING_DOCS}#max-tokens-and-context-window-size"
            );
            return Some(violation("A8", message));
        }
        if matches!(body.get("tool_choice").map(|c| str_of(c, "type")), Some("any" | "tool")) {
            return Some(violation("A6", "Thinking may not be enabled when tool_choice forces tool use."));
        }
    }
    let messages = array(body, "messages");
    let last = messages.len().saturating_sub(1);
    for (i, message) in messages.iter().enumerate() {
        let role = str_of(message, "role");
        let content = blocks(message);
        let final_assistant = i == last && role == "assistant";
        if content.is_empty() && !final_assistant {
            let message =
                format!("messages.{i}: all messages must have non-empty content except for the optional final assistant message");
            return Some(violation("A10", message));
        }
        let texts: Vec<&str> =
            content.iter().filter(|b| str_of(b, "type") == "text").map(|b| str_of(b, "text")).collect();
        if texts.iter().any(|t| t.is_empty()) && !(final_assistant && texts.len() == 1 && content.len() == 1) {
            return Some(violation("A11", "messages: text content blocks must be non-empty"));
        }
        if content.len() == 1 && texts.len() == 1 && texts.iter().all(|t| !t.is_empty() && t.trim().is_empty()) {
            return Some(violation("A11", "messages: text content blocks must contain non-whitespace text"));
        }
        if final_assistant && texts.last().is_some_and(|t| t.ends_with(char::is_whitespace)) {
            return Some(violation("A12", "messages: final assistant content cannot end with trailing whitespace"));
        }
        if role == "assistant" && i < last {
            let uses = ids_of(&content, "tool_use", "id");
            let next = blocks(&messages[i + 1]);
            let answered = ids_of(&next, "tool_result", "tool_use_id");
            let missing: Vec<&str> = uses.iter().filter(|id| !answered.contains(id)).map(String::as_str).collect();
            if !missing.is_empty() {
                let message = format!(
                    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. \
                     Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
                    missing.join(", ")
                );
                return Some(violation("A1", message));
            }
        }
        if role == "user" {
            let previous = i.checked_sub(1).map(|p| &messages[p]).filter(|p| str_of(p, "role") == "assistant");
            let uses = previous.map(|p| ids_of(&blocks(p), "tool_use", "id")).unwrap_or_default();
            for (j, block) in content.iter().enumerate() {
                let id = str_of(block, "tool_use_id");
                if str_of(block, "type") == "tool_result" && !uses.iter().any(|u| u == id) {
                    let message = format!(
                        "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. \
                         Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    );
                    return Some(violation("A2", message));
                }
            }
        }
    }
    // A3: with thinking on, the assistant turn of the tool loop in progress starts with its thinking.
    let last_is_results = messages.last().is_some_and(|m| !ids_of(&blocks(m), "tool_result", "tool_use_id").is_empty());
    if let (Some(_), true, Some(i)) = (thinking, last_is_results, last.checked_sub(1)) {
        let content = blocks(&messages[i]);
        let first = content.first().map(|b| str_of(b, "type")).unwrap_or("text");
        if str_of(&messages[i], "role") == "assistant" && !matches!(first, "thinking" | "redacted_thinking") {
            let message = format!(
                "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When \
                 `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the \
                 lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from \
                 previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at \
                 {THINKING_DOCS}"
            );
            return Some(violation("A3", message));
        }
    }
    None
}

fn chat(body: &Value) -> Option<Violation> {
    let tools = array(body, "tools");
    if tools.len() > 128 {
        let message = format!(
            "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with \
             length {} instead.",
            tools.len()
        );
        return Some(violation("C6", message).param("tools").code("array_above_max_length"));
    }
    for (i, tool) in tools.iter().enumerate() {
        let function = tool.get("function").unwrap_or(&Value::Null);
        let name = str_of(function, "name");
        if !valid_function_name(name) {
            let message = format!(
                "Invalid 'tools[{i}].function.name': string does not match pattern. Expected a string that matches \
                 the pattern '^[a-zA-Z0-9_-]+$'."
            );
            return Some(violation("C7", message).param(format!("tools[{i}].function.name")).code("invalid_value"));
        }
        if function.get("strict") == Some(&Value::Bool(true)) {
            let schema = function.get("parameters").unwrap_or(&Value::Null);
            if let Some(tail) = strict_schema_problem(schema) {
                return Some(violation("S1", format!("Invalid schema for function '{name}': {tail}")).param("tools"));
            }
        }
    }
    if let Some(format) = body.get("response_format") {
        if str_of(format, "type") == "json_object" && !body.get("messages").is_some_and(mentions_json) {
            let message = "'messages' must contain the word 'json' in some form, to use 'response_format' of type \
                           'json_object'.";
            return Some(violation("C5", message).param("messages"));
        }
        let schema = format.get("json_schema").filter(|s| s.get("strict") == Some(&Value::Bool(true)));
        if let Some(spec) = schema {
            let name = str_of(spec, "name");
            if let Some(tail) = strict_schema_problem(spec.get("schema").unwrap_or(&Value::Null)) {
                let message = format!("Invalid schema for response_format '{name}': {tail}");
                return Some(violation("S1", message).param("response_format"));
            }
        }
    }
    let messages = array(body, "messages");
    let mut open_calls: Option<(usize, Vec<String>)> = None; // the assistant message whose calls are being answered
    for (i, message) in messages.iter().enumerate() {
        let role = str_of(message, "role");
        let calls: Vec<String> = array(message, "tool_calls").iter().map(|c| str_of(c, "id").to_string()).collect();
        let may_be_null = role == "assistant" && !calls.is_empty();
        if !may_be_null && message.get("content") == Some(&Value::Null) {
            let message = "Invalid value for 'content': expected a string, got null.";
            return Some(violation("C4", message).param(format!("messages.[{i}].content")));
        }
        if role == "tool" {
            let Some((_, pending)) = open_calls.as_mut() else {
                let message = "Invalid parameter: messages with role 'tool' must be a response to a preceeding \
                               message with 'tool_calls'.";
                return Some(violation("C1", message).param(format!("messages.[{i}].role")));
            };
            let id = str_of(message, "tool_call_id");
            match pending.iter().position(|p| p == id) {
                Some(at) => {
                    pending.remove(at);
                }
                None => {
                    let message = format!(
                        "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                    );
                    return Some(violation("C3", message).param(format!("messages.[{i}].tool_call_id")));
                }
            }
            continue;
        }
        if let Some((_, pending)) = open_calls.take().filter(|(_, pending)| !pending.is_empty()) {
            let message = format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each \
                 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                pending.join(", ")
            );
            return Some(violation("C2", message).param(format!("messages.[{i}].role")));
        }
        if role == "assistant" && !calls.is_empty() {
            open_calls = Some((i, calls));
        }
    }
    None
}

fn valid_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Whether the word "json" appears in the messages, in any case (OpenAI's `json_object` rule).
fn mentions_json(messages: &Value) -> bool {
    match messages {
        Value::String(text) => text.to_ascii_lowercase().contains("json"),
        Value::Array(items) => items.iter().any(mentions_json),
        Value::Object(map) => map.values().any(mentions_json),
        _ => false,
    }
}

fn responses(body: &Value) -> Option<Violation> {
    for (i, tool) in array(body, "tools").iter().enumerate() {
        if str_of(tool, "type") == "function" {
            let name = str_of(tool, "name");
            if !valid_function_name(name) {
                let message = format!(
                    "Invalid 'tools[{i}].name': string does not match pattern. Expected a string that matches the \
                     pattern '^[a-zA-Z0-9_-]+$'."
                );
                return Some(violation("C7", message).param(format!("tools[{i}].name")).code("invalid_value"));
            }
            if tool.get("strict") == Some(&Value::Bool(true)) {
                if let Some(tail) = strict_schema_problem(tool.get("parameters").unwrap_or(&Value::Null)) {
                    let message = format!("Invalid schema for function '{name}': {tail}");
                    return Some(violation("S1", message).param("tools").code("invalid_function_parameters"));
                }
            }
        }
    }
    let format = body.get("text").and_then(|t| t.get("format"));
    if let Some(format) =
        format.filter(|f| str_of(f, "type") == "json_schema" && f.get("strict") == Some(&Value::Bool(true)))
    {
        if let Some(tail) = strict_schema_problem(format.get("schema").unwrap_or(&Value::Null)) {
            let message = format!("Invalid schema for response_format '{}': {tail}", str_of(format, "name"));
            return Some(violation("S1", message).param("text.format.schema").code("invalid_json_schema"));
        }
    }
    let input = array(body, "input");
    let chained = body.get("previous_response_id").is_some_and(|id| !id.is_null());
    let calls: Vec<&str> = input
        .iter()
        .filter(|item| str_of(item, "type") == "function_call")
        .map(|item| str_of(item, "call_id"))
        .collect();
    for (i, item) in input.iter().enumerate() {
        if str_of(item, "type") == "function_call_output" && !chained && !calls.contains(&str_of(item, "call_id")) {
            let message =
                format!("No tool call found for function call output with call_id {}.", str_of(item, "call_id"));
            return Some(violation("R3", message).param("input"));
        }
        if str_of(item, "role") == "assistant" {
            for (j, part) in array(item, "content").iter().enumerate() {
                if str_of(part, "type") == "input_text" {
                    let message = "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'.";
                    return Some(
                        violation("R6", message).param(format!("input[{i}].content[{j}]")).code("invalid_value"),
                    );
                }
            }
        }
    }
    None
}

/// The first rule of OpenAI's strict structured outputs that `schema` breaks, as the message's tail after
/// `Invalid schema for ... '{name}': ` (spec B.2.1): every object sets `additionalProperties: false` and lists every
/// property in `required`, no `default`, the root is an object.
fn strict_schema_problem(schema: &Value) -> Option<String> {
    let root = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        _ => "None",
    };
    if root != "object" || schema.get("anyOf").is_some() {
        return Some(format!("schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{root}\"'."));
    }
    object_problem(schema, &mut Vec::new())
}

fn context(path: &[String]) -> String {
    let quoted: Vec<String> = path.iter().map(|p| format!("'{p}'")).collect();
    match quoted.len() {
        0 => "()".into(),
        1 => format!("({},)", quoted[0]),
        _ => format!("({})", quoted.join(", ")),
    }
}

fn object_problem(schema: &Value, path: &mut Vec<String>) -> Option<String> {
    if schema.get("default").is_some() && !path.is_empty() {
        return Some(format!("In context={}, 'default' is not permitted.", context(path)));
    }
    let is_object = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => schema.get("properties").is_some(),
    };
    if is_object {
        if schema.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Some(format!(
                "In context={}, 'additionalProperties' is required to be supplied and to be false.",
                context(path)
            ));
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = array(schema, "required").iter().filter_map(Value::as_str).collect();
        if let Some(properties) = properties {
            if let Some(missing) = properties.keys().find(|k| !required.contains(&k.as_str())) {
                return Some(format!(
                    "In context={}, 'required' is required to be supplied and to be an array including every key in \
                     properties. Missing '{missing}'.",
                    context(path)
                ));
            }
            for (key, property) in properties {
                path.extend(["properties".to_string(), key.clone()]);
                let problem = object_problem(property, path);
                path.truncate(path.len() - 2);
                if problem.is_some() {
                    return problem;
                }
            }
        }
    }
    if let Some(items) = schema.get("items") {
        path.push("items".into());
        let problem = object_problem(items, path);
        path.pop();
        if problem.is_some() {
            return problem;
        }
    }
    for key in ["anyOf", "$defs", "definitions"] {
        let children: Vec<(String, &Value)> = match schema.get(key) {
            Some(Value::Array(items)) => items.iter().enumerate().map(|(i, v)| (i.to_string(), v)).collect(),
            Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
            _ => Vec::new(),
        };
        for (name, child) in children {
            path.extend([key.to_string(), name]);
            let problem = object_problem(child, path);
            path.truncate(path.len() - 2);
            if problem.is_some() {
                return problem;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
