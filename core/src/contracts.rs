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

// The rules index a request's message list at positions they have just bounded (`i + 1 < len`, `checked_sub`), and
// read JSON with `value["key"]`, which yields null for anything absent and cannot panic. (These files lived in
// `wire/`, whose module-wide allowance covered them.)
#![allow(clippy::indexing_slicing)]

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `contracts` setting: a mode (`"strict"`), or `{"mode", "except", "models"}` to leave rules out (a test
/// that exercises a broken client on purpose) and to give the caps of models the built-in table does not know.
/// Per scenario, server or route.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contracts {
    /// Whether and how requests are checked.
    pub mode: ContractMode,
    /// Rule ids not checked (`["A12", "S1"]`).
    pub except: Vec<String>,
    /// Model caps by model name prefix: `{"my-model": {"max_output_tokens": 4096, "context_window": 8192}}`,
    /// before the built-in table (a JSON map: the WASM module carries no map type of its own for it).
    pub models: Map<String, Value>,
}

impl From<ContractMode> for Contracts {
    fn from(mode: ContractMode) -> Contracts {
        Contracts { mode, ..Contracts::default() }
    }
}

/// The object form of the setting, as read and written.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContractsObject {
    mode: ContractMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    except: Vec<String>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    models: Map<String, Value>,
}

impl Serialize for Contracts {
    /// The mode alone when nothing else is set, as the setting is usually written.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.except.is_empty() && self.models.is_empty() {
            return self.mode.serialize(serializer);
        }
        let object = ContractsObject { mode: self.mode, except: self.except.clone(), models: self.models.clone() };
        object.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Contracts {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Contracts, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(mode) => {
                ContractMode::deserialize(Value::String(mode)).map(Contracts::from).map_err(serde::de::Error::custom)
            }
            object @ Value::Object(_) => {
                let ContractsObject { mode, except, models } =
                    ContractsObject::deserialize(object).map_err(serde::de::Error::custom)?;
                Ok(Contracts { mode, except, models })
            }
            other => Err(serde::de::Error::custom(format!(
                "contracts is \"off\", \"warn\", \"strict\" or {{\"mode\", \"except\", \"models\"}}, not {other}"
            ))),
        }
    }
}

impl Contracts {
    /// What is wrong with the setting, if anything: `(field path below "contracts", problem)`.
    pub fn problem(&self) -> Option<(String, String)> {
        if let Some(rule) = self.except.iter().find(|r| !RULES.contains(&r.as_str())) {
            return Some(("except".into(), format!("{rule:?} is not a rule id (one of {})", RULES.join(", "))));
        }
        for (model, caps) in &self.models {
            let Some(caps) = caps.as_object() else {
                return Some((format!("models.{model}"), "an object of max_output_tokens and context_window".into()));
            };
            for (key, value) in caps {
                if !matches!(key.as_str(), "max_output_tokens" | "context_window") {
                    return Some((
                        format!("models.{model}.{key}"),
                        "not a cap (max_output_tokens, context_window)".into(),
                    ));
                }
                if value.as_u64().is_none_or(|n| n == 0) {
                    return Some((format!("models.{model}.{key}"), format!("{value} is not a positive integer")));
                }
            }
        }
        None
    }

    fn checks(&self, rule: &str) -> bool {
        !self.except.iter().any(|r| r == rule)
    }
}

/// Every rule id, for `except`.
pub const RULES: &[&str] = &[
    "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "A11", "A12", "A13", "A14", "A15", "C1", "C2", "C3",
    "C4", "C5", "C6", "C7", "C8", "C9", "S1", "S2", "R1", "R2", "R3", "R4", "R5", "R6",
];

/// The `contracts` mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContractMode {
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

/// What the mock answered earlier, for the rules that look back at it (Responses chaining: R1, R2, R4, R5).
pub(crate) trait History {
    /// The answer given on the Responses endpoint as `id` (`resp_3`), if this mock gave it.
    fn response(&self, id: &str) -> Option<Issued>;
}

/// An answer the mock gave on the Responses endpoint.
pub(crate) struct Issued {
    /// Its request did not say `store: false`.
    pub stored: bool,
    /// The `call_id`s of its function calls.
    pub call_ids: Vec<String>,
    /// It had reasoning (an `rs_` item came before its other items).
    pub reasoned: bool,
}

/// No earlier answers (a check of one request alone).
#[cfg(test)]
pub(crate) struct NoHistory;

#[cfg(test)]
impl History for NoHistory {
    fn response(&self, _id: &str) -> Option<Issued> {
        None
    }
}

/// The first rule the request to `endpoint` breaks, if any (endpoints without rules pass). Rules in
/// `contracts.except` are not checked.
pub(crate) fn check(endpoint: &str, body: &Value, contracts: &Contracts, history: &dyn History) -> Option<Violation> {
    let on = Rules { contracts, model: str_of(body, "model") };
    match endpoint {
        "messages" => anthropic(body, &on),
        "chat_completions" => chat(body, &on),
        "responses" => responses(body, &on, history),
        _ => None,
    }
}

/// The rules in force for one request.
struct Rules<'a> {
    contracts: &'a Contracts,
    model: &'a str,
}

impl Rules<'_> {
    fn on(&self, rule: &str) -> bool {
        self.contracts.checks(rule)
    }

    /// The model's caps: `(max_output_tokens, context_window)`, from the setting's `models` and then the built-in
    /// table, by the longest name prefix (`claude-sonnet-4-5-20250929` is `claude-sonnet-4-5`).
    fn caps(&self) -> (Option<u64>, Option<u64>) {
        let given = self.contracts.models.iter().filter(|(name, _)| self.model.starts_with(name.as_str()));
        if let Some((_, caps)) = given.max_by_key(|(name, _)| name.len()) {
            let cap = |key: &str| caps.get(key).and_then(Value::as_u64);
            return (cap("max_output_tokens"), cap("context_window"));
        }
        let known = MODEL_CAPS.iter().filter(|(name, ..)| self.model.starts_with(name));
        known
            .max_by_key(|(name, ..)| name.len())
            .map_or((None, None), |(_, output, context)| (Some(*output), Some(*context)))
    }
}

/// The models' output caps and context windows, from their providers' model pages (December 2026). A model that
/// is not here has no cap checked; `contracts.models` adds or corrects one.
const MODEL_CAPS: &[(&str, u64, u64)] = &[
    ("claude-opus-4-5", 64_000, 200_000),
    ("claude-opus-4-1", 32_000, 200_000),
    ("claude-opus-4", 32_000, 200_000),
    ("claude-sonnet-4-5", 64_000, 200_000),
    ("claude-sonnet-4", 64_000, 200_000),
    ("claude-haiku-4-5", 64_000, 200_000),
    ("claude-3-7-sonnet", 64_000, 200_000),
    ("claude-3-5-haiku", 8_192, 200_000),
    ("claude-3-haiku", 4_096, 200_000),
    ("gpt-4o", 16_384, 128_000),
    ("gpt-4.1", 32_768, 1_047_576),
    ("gpt-4-turbo", 4_096, 128_000),
    ("gpt-3.5-turbo", 4_096, 16_385),
    ("gpt-5", 128_000, 400_000),
    ("o1", 100_000, 200_000),
    ("o3", 100_000, 200_000),
    ("o4-mini", 100_000, 200_000),
];

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

/// Anthropic's largest inline image, measured on the base64 text (A14).
const IMAGE_BASE64_LIMIT: usize = 5_242_880;

fn anthropic(body: &Value, on: &Rules) -> Option<Violation> {
    for (i, tool) in array(body, "tools").iter().enumerate() {
        // Custom tools (server tools have a `type` such as `web_search_20250305` and their own names).
        let custom = tool.get("type").is_none_or(|t| t == "custom");
        let name = str_of(tool, "name");
        if on.on("A13") && custom && !valid_function_name(name) {
            let message = format!("tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'");
            return Some(violation("A13", message));
        }
    }
    let max_tokens = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
    if let (true, (Some(cap), _)) = (on.on("A9"), on.caps()) {
        if max_tokens > cap {
            let message = format!(
                "max_tokens: {max_tokens} > {cap}, which is the maximum allowed number of output tokens for {}",
                on.model
            );
            return Some(violation("A9", message));
        }
    }
    let thinking = body.get("thinking").filter(|t| str_of(t, "type") == "enabled");
    if let Some(thinking) = thinking {
        let budget = thinking.get("budget_tokens").and_then(Value::as_u64).unwrap_or(0);
        if on.on("A7") && budget < 1024 {
            let message = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
            return Some(violation("A7", message));
        }
        if on.on("A8") && max_tokens <= budget {
            let message = format!(
                "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at \
                 {THINKING_DOCS}#max-tokens-and-context-window-size"
            );
            return Some(violation("A8", message));
        }
        if on.on("A6") && matches!(body.get("tool_choice").map(|c| str_of(c, "type")), Some("any" | "tool")) {
            return Some(violation("A6", "Thinking may not be enabled when tool_choice forces tool use."));
        }
    }
    let messages = array(body, "messages");
    let last = messages.len().saturating_sub(1);
    // A15: image sides up to 8000 pixels, 2000 in a request of more than 20 images.
    let image_count = messages.iter().flat_map(blocks).filter(|b| str_of(b, "type") == "image").count();
    let many_images = image_count > 20;
    let side_limit = if many_images { 2000 } else { 8000 };
    for (i, message) in messages.iter().enumerate() {
        let role = str_of(message, "role");
        let content = blocks(message);
        let final_assistant = i == last && role == "assistant";
        if on.on("A10") && content.is_empty() && !final_assistant {
            let message =
                format!("messages.{i}: all messages must have non-empty content except for the optional final assistant message");
            return Some(violation("A10", message));
        }
        let texts: Vec<&str> =
            content.iter().filter(|b| str_of(b, "type") == "text").map(|b| str_of(b, "text")).collect();
        if on.on("A11") {
            if texts.iter().any(|t| t.is_empty()) && !(final_assistant && texts.len() == 1 && content.len() == 1) {
                return Some(violation("A11", "messages: text content blocks must be non-empty"));
            }
            if content.len() == 1 && texts.len() == 1 && texts.iter().all(|t| !t.is_empty() && t.trim().is_empty()) {
                return Some(violation("A11", "messages: text content blocks must contain non-whitespace text"));
            }
        }
        if on.on("A12") && final_assistant && texts.last().is_some_and(|t| t.ends_with(char::is_whitespace)) {
            return Some(violation("A12", "messages: final assistant content cannot end with trailing whitespace"));
        }
        for (j, block) in content.iter().enumerate() {
            if let Some(problem) = thinking_block_problem(on, block, i, j, thinking.is_some() || !final_assistant) {
                return Some(problem);
            }
            let data = block.get("source").filter(|s| str_of(s, "type") == "base64").map(|s| str_of(s, "data"));
            let image = data.filter(|_| str_of(block, "type") == "image");
            if on.on("A14") && image.is_some_and(|d| d.len() > IMAGE_BASE64_LIMIT) {
                let size = data.map_or(0, str::len);
                let message = format!(
                    "messages.{i}.content.{j}.image.source.base64: image exceeds 5 MB maximum: {size} bytes > \
                     {IMAGE_BASE64_LIMIT} bytes"
                );
                return Some(violation("A14", message));
            }
            let sides = image.filter(|_| on.on("A15")).and_then(image_size::dimensions);
            if sides.is_some_and(|(width, height)| width.max(height) > side_limit) {
                let limit = if many_images {
                    "max allowed size for many-image requests: 2000"
                } else {
                    "max allowed size: 8000"
                };
                let message = format!(
                    "messages.{i}.content.{j}.image.source.base64.data: At least one of the image dimensions exceed \
                     {limit} pixels"
                );
                return Some(violation("A15", message));
            }
        }
        if on.on("A1") && role == "assistant" && i < last {
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
        if on.on("A2") && role == "user" {
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
    if let (true, Some(_), true, Some(i)) = (on.on("A3"), thinking, last_is_results, last.checked_sub(1)) {
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

/// A thinking block sent back (A4, A5): not in a final assistant message when thinking is off (`allowed` is false
/// there), with its signature, and byte-identical to what cuecard issued (its signature is a digest of its text;
/// a signature that is not cuecard's, from a recording of the real API, is not checked).
fn thinking_block_problem(on: &Rules, block: &Value, i: usize, j: usize, allowed: bool) -> Option<Violation> {
    if str_of(block, "type") != "thinking" {
        return None;
    }
    if on.on("A4") && !allowed {
        let message = format!(
            "messages.{i}.content.{j}: When thinking is disabled, an `assistant` message in the final position cannot \
             contain `thinking`. To use thinking blocks, enable `thinking` in your request."
        );
        return Some(violation("A4", message));
    }
    if !on.on("A5") {
        return None;
    }
    let Some(signature) = block.get("signature").and_then(Value::as_str) else {
        return Some(violation("A5", format!("messages.{i}.content.{j}.thinking.signature: Field required")));
    };
    let issued = signature.starts_with(SIGNATURE_PREFIX);
    if issued && signature != thinking_signature(str_of(block, "thinking")) {
        return Some(violation("A5", format!("messages.{i}.content.{j}: Invalid `signature` in `thinking` block")));
    }
    None
}

fn chat(body: &Value, on: &Rules) -> Option<Violation> {
    let tools = array(body, "tools");
    if on.on("C6") && tools.len() > 128 {
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
        if on.on("C7") && !valid_function_name(name) {
            let message = format!(
                "Invalid 'tools[{i}].function.name': string does not match pattern. Expected a string that matches \
                 the pattern '^[a-zA-Z0-9_-]+$'."
            );
            return Some(violation("C7", message).param(format!("tools[{i}].function.name")).code("invalid_value"));
        }
        if function.get("strict") == Some(&Value::Bool(true)) {
            let schema = function.get("parameters").unwrap_or(&Value::Null);
            if let Some((rule, tail)) = strict_schema_problem(on, schema) {
                return Some(violation(rule, format!("Invalid schema for function '{name}': {tail}")).param("tools"));
            }
        }
    }
    if let Some(format) = body.get("response_format") {
        if on.on("C5") && str_of(format, "type") == "json_object" && !body.get("messages").is_some_and(mentions_json) {
            let message = "'messages' must contain the word 'json' in some form, to use 'response_format' of type \
                           'json_object'.";
            return Some(violation("C5", message).param("messages"));
        }
        let schema = format.get("json_schema").filter(|s| s.get("strict") == Some(&Value::Bool(true)));
        if let Some(spec) = schema {
            let name = str_of(spec, "name");
            if let Some((rule, tail)) = strict_schema_problem(on, spec.get("schema").unwrap_or(&Value::Null)) {
                let message = format!("Invalid schema for response_format '{name}': {tail}");
                return Some(violation(rule, message).param("response_format"));
            }
        }
    }
    if let Some(problem) = output_limits(body, on) {
        return Some(problem);
    }
    let messages = array(body, "messages");
    let mut open_calls: Option<(usize, Vec<String>)> = None; // the assistant message whose calls are being answered
    for (i, message) in messages.iter().enumerate() {
        let role = str_of(message, "role");
        let calls: Vec<String> = array(message, "tool_calls").iter().map(|c| str_of(c, "id").to_string()).collect();
        let may_be_null = role == "assistant" && !calls.is_empty();
        if on.on("C4") && !may_be_null && message.get("content") == Some(&Value::Null) {
            let message = "Invalid value for 'content': expected a string, got null.";
            return Some(violation("C4", message).param(format!("messages.[{i}].content")));
        }
        if role == "tool" {
            let Some((_, pending)) = open_calls.as_mut() else {
                if !on.on("C1") {
                    continue;
                }
                let message = "Invalid parameter: messages with role 'tool' must be a response to a preceeding \
                               message with 'tool_calls'.";
                return Some(violation("C1", message).param(format!("messages.[{i}].role")));
            };
            let id = str_of(message, "tool_call_id");
            match pending.iter().position(|p| p == id) {
                Some(at) => {
                    pending.remove(at);
                }
                None if on.on("C3") => {
                    let message = format!(
                        "Invalid parameter: 'tool_call_id' of '{id}' not found in 'tool_calls' of previous message."
                    );
                    return Some(violation("C3", message).param(format!("messages.[{i}].tool_call_id")));
                }
                None => {}
            }
            continue;
        }
        if let Some((_, pending)) = open_calls.take().filter(|(_, pending)| on.on("C2") && !pending.is_empty()) {
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

/// C8 and C9: `max_tokens` (or `max_completion_tokens`) within the model's completion cap, and the prompt plus it
/// within the context window. The prompt is counted in cuecard's word-like tokens, not the model's own.
fn output_limits(body: &Value, on: &Rules) -> Option<Violation> {
    let (cap, window) = on.caps();
    let field = ["max_completion_tokens", "max_tokens"].into_iter().find(|f| body.get(*f).is_some_and(Value::is_u64));
    let requested = field.and_then(|f| body.get(f)).and_then(Value::as_u64);
    if let (true, Some(field), Some(n), Some(cap)) = (on.on("C8"), field, requested, cap) {
        if n > cap {
            let message = format!(
                "{field} is too large: {n}. This model supports at most {cap} completion tokens, whereas you provided \
                 {n}."
            );
            return Some(violation("C8", message).param(field));
        }
    }
    let window = window.filter(|_| on.on("C9"))?;
    let prompt: u64 = array(body, "messages").iter().map(|m| m.get("content").map_or(0, text_tokens)).sum();
    let completion = requested.unwrap_or(0);
    if prompt + completion > window {
        let message = format!(
            "This model's maximum context length is {window} tokens. However, you requested {} tokens ({prompt} in \
             the messages, {completion} in the completion). Please reduce the length of the messages or completion.",
            prompt + completion
        );
        return Some(violation("C9", message).param("messages").code("context_length_exceeded"));
    }
    None
}

/// The word-like tokens of every string in a message's content (its text, and its parts' fields).
fn text_tokens(value: &Value) -> u64 {
    match value {
        Value::String(text) => crate::tokenize::count_tokens(text) as u64,
        Value::Array(items) => items.iter().map(text_tokens).sum(),
        Value::Object(map) => map.values().map(text_tokens).sum(),
        _ => 0,
    }
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

fn responses(body: &Value, on: &Rules, history: &dyn History) -> Option<Violation> {
    for (i, tool) in array(body, "tools").iter().enumerate() {
        if str_of(tool, "type") == "function" {
            let name = str_of(tool, "name");
            if on.on("C7") && !valid_function_name(name) {
                let message = format!(
                    "Invalid 'tools[{i}].name': string does not match pattern. Expected a string that matches the \
                     pattern '^[a-zA-Z0-9_-]+$'."
                );
                return Some(violation("C7", message).param(format!("tools[{i}].name")).code("invalid_value"));
            }
            if tool.get("strict") == Some(&Value::Bool(true)) {
                if let Some((rule, tail)) = strict_schema_problem(on, tool.get("parameters").unwrap_or(&Value::Null)) {
                    let message = format!("Invalid schema for function '{name}': {tail}");
                    return Some(violation(rule, message).param("tools").code("invalid_function_parameters"));
                }
            }
        }
    }
    let format = body.get("text").and_then(|t| t.get("format"));
    if let Some(format) =
        format.filter(|f| str_of(f, "type") == "json_schema" && f.get("strict") == Some(&Value::Bool(true)))
    {
        if let Some((rule, tail)) = strict_schema_problem(on, format.get("schema").unwrap_or(&Value::Null)) {
            let message = format!("Invalid schema for response_format '{}': {tail}", str_of(format, "name"));
            return Some(violation(rule, message).param("text.format.schema").code("invalid_json_schema"));
        }
    }
    let input = array(body, "input");
    let previous_id = body.get("previous_response_id").and_then(Value::as_str);
    // R1: the chained response is one this mock gave, and stored.
    let previous = match previous_id {
        Some(id) => match history.response(id).filter(|issued| issued.stored) {
            Some(issued) => Some(issued),
            None if on.on("R1") => {
                let message = format!("Previous response with id '{id}' not found.");
                return Some(
                    violation("R1", message).param("previous_response_id").code("previous_response_not_found"),
                );
            }
            None => None,
        },
        None => None,
    };
    let calls: Vec<&str> = input
        .iter()
        .filter(|item| str_of(item, "type") == "function_call")
        .map(|item| str_of(item, "call_id"))
        .collect();
    let outputs: Vec<&str> = input
        .iter()
        .filter(|item| str_of(item, "type") == "function_call_output")
        .map(|item| str_of(item, "call_id"))
        .collect();
    // R2: every call of the chained response is answered in this input.
    if let (true, Some(previous)) = (on.on("R2"), &previous) {
        if let Some(open) = previous.call_ids.iter().find(|id| !outputs.contains(&id.as_str())) {
            return Some(violation("R2", format!("No tool output found for function call {open}.")).param("input"));
        }
    }
    let chained_calls = previous.as_ref().map_or(&[][..], |p| p.call_ids.as_slice());
    for (i, item) in input.iter().enumerate() {
        let kind = str_of(item, "type");
        let call_id = str_of(item, "call_id");
        let answers_a_call = calls.contains(&call_id) || chained_calls.iter().any(|c| c == call_id);
        if on.on("R3") && kind == "function_call_output" && !answers_a_call && previous_id.is_none() {
            let message = format!("No tool call found for function call output with call_id {call_id}.");
            return Some(violation("R3", message).param("input"));
        }
        if let Some(problem) = item_problem(on, history, input, i) {
            return Some(problem);
        }
        if on.on("R6") && str_of(item, "role") == "assistant" {
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

/// R4 and R5 for the input item at `i`: a reasoning item is followed by the item it produced, an item of an answer
/// that reasoned comes with its reasoning item, and an item of an answer that was not stored is not referenced by
/// id (only a reasoning item carrying `encrypted_content` travels without being stored). Only this mock's own ids
/// (`rs_3`, `msg_3`, `fc_3_0`) are checked: it cannot know another server's.
fn item_problem(on: &Rules, history: &dyn History, input: &[Value], i: usize) -> Option<Violation> {
    let item = &input[i];
    let kind = str_of(item, "type");
    let id = str_of(item, "id");
    let number = issued_number(id)?;
    let issued = history.response(&format!("resp_{number}"))?;
    let referenced = kind == "item_reference" || (kind == "reasoning" && item.get("encrypted_content").is_none());
    if on.on("R5") && referenced && !issued.stored {
        let message = format!(
            "Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again with \
             `store` set to true, or remove this item from your input."
        );
        return Some(violation("R5", message).param("input"));
    }
    if !on.on("R4") || kind == "item_reference" {
        return None;
    }
    if kind == "reasoning" {
        let followed = input.get(i + 1).is_some_and(|next| issued_number(str_of(next, "id")) == Some(number));
        if !followed {
            let message = format!("Item '{id}' of type 'reasoning' was provided without its required following item.");
            return Some(violation("R4", message).param("input"));
        }
        return None;
    }
    let reasoning = format!("rs_{number}");
    let with_reasoning = input[..i].iter().any(|earlier| str_of(earlier, "id") == reasoning);
    if issued.reasoned && !with_reasoning {
        let message = format!("Item '{id}' was provided without its required 'reasoning' item: '{reasoning}'.");
        return Some(violation("R4", message).param("input"));
    }
    None
}

/// The answer number of an item id this mock gives on the Responses endpoint: `rs_3`, `msg_3`, `fc_3_0`.
fn issued_number(id: &str) -> Option<u64> {
    let (kind, rest) = id.split_once('_')?;
    let number = match kind {
        "rs" | "msg" => rest,
        "fc" => rest.split_once('_')?.0,
        _ => return None,
    };
    number.parse().ok()
}

/// The first rule of OpenAI's strict structured outputs that `schema` breaks, with the message's tail after
/// `Invalid schema for ... '{name}': ` (spec B.2.1). S1: every object sets `additionalProperties: false` and lists
/// every property in `required`, no `default`, the root is an object. S2: at most 10 levels of nested objects.
/// (Whether `anyOf` objects share a first key is not checked: the parsed JSON does not keep key order.)
fn strict_schema_problem(on: &Rules, schema: &Value) -> Option<(&'static str, String)> {
    let root = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        _ => "None",
    };
    if on.on("S1") && (root != "object" || schema.get("anyOf").is_some()) {
        return Some(("S1", format!("schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{root}\"'.")));
    }
    if on.on("S1") {
        if let Some(problem) = object_problem(schema, &mut Vec::new()) {
            return Some(("S1", problem));
        }
    }
    let depth = nesting(schema);
    (on.on("S2") && depth > NESTING_LIMIT)
        .then(|| ("S2", format!("{depth} levels of nesting exceeds limit of {NESTING_LIMIT}")))
}

/// OpenAI's limit on nested objects in a strict schema (it was 5 until 2025).
const NESTING_LIMIT: usize = 10;

/// The levels of objects nested in a schema: 1 for an object of scalars.
fn nesting(schema: &Value) -> usize {
    let children = schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.values());
    let below = children.chain(schema.get("items")).chain(array(schema, "anyOf")).map(nesting).max().unwrap_or(0);
    let level = usize::from(schema.get("properties").is_some());
    level + below
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

/// How every signature cuecard issues begins (`cuecard-` in base64), so `contracts` can tell its own from a
/// recorded real one.
pub(crate) const SIGNATURE_PREFIX: &str = "Y3VlY2FyZC1";

/// The signature of a thinking block: a digest of its text (FNV-1a, 64 bits) after the prefix. The SDKs only carry
/// it along; the `contracts` rule A5 recomputes it, so a thinking block edited before it is sent back is refused as
/// the real API refuses it.
pub(crate) fn thinking_signature(thinking: &str) -> String {
    let digest = crate::seeded::fnv1a64(thinking.bytes());
    format!("{SIGNATURE_PREFIX}{digest:016x}")
}

mod image_size;

#[cfg(test)]
mod tests;
