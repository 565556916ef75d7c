//! The `mcp` section of a scenario (and of `MockSettings`): the MCP servers a test scripts beside the model, with
//! their tools (answered by steps, in order, as routes answer the model), resources and prompts.

use super::route::Exhaustion;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `mcp` setting: `{"servers": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mcp {
    /// The servers. `/mcp` serves the first; `/mcp/{name}` each by name; `cuecard mcp --server NAME` one over stdio.
    pub servers: Vec<McpServer>,
}

/// One scripted MCP server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// Its name: `serverInfo.name`, the path segment of `/mcp/{name}` and what checks name.
    pub name: String,
    /// `serverInfo.version` (default `1.0.0`: every official client requires one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `instructions` of the initialize result (clients may put them into the system prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// The tools, listed in this order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<McpTool>,
    /// The resources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<McpResource>,
    /// The prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<McpPrompt>,
    /// What a tool without a policy of its own does after its last step (`fail` by default, as routes do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
    /// Lists are paginated this many items to a page (`nextCursor`); all on one page when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
}

/// A tool and the steps that answer its calls.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpTool {
    /// The name (1 to 128 characters of `A-Z a-z 0-9 _ - .`).
    pub name: String,
    /// `title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `inputSchema`: a JSON Schema whose root type is `object` (default: an object without properties).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// `outputSchema`: clients then check each answer's `structured` against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// `annotations` (`readOnlyHint`, ...), sent as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    /// The answers to its calls: each call takes the first step not yet used whose `match` it meets.
    #[serde(default)]
    pub steps: Vec<McpToolStep>,
    /// What it does after its last step (the server's `on_exhausted` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
}

/// One answer of a tool. Exactly one of: a result (`text`, `content` and/or `structured`, optionally `is_error`), a
/// JSON-RPC `error`, `drop_connection`, or `input_required` (a question to the client first). `progress` and
/// `delay_ms` may come with any of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolStep {
    /// Only calls whose arguments contain these (objects compared key by key, recursively) take this step.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matcher: Option<McpToolMatch>,
    /// A text content block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Content blocks as sent (`{"type": "image", "data": ..., "mimeType": ...}`), after `text`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Value>>,
    /// `structuredContent`; without `text` or `content` its JSON text is the content too, as the spec recommends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// A tool-execution error the model sees (`isError: true`), not a protocol error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// A JSON-RPC error instead of a result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<McpError>,
    /// Progress values sent before the answer (each above the last; the last is the `total`), to a client that
    /// asked for progress (a `progressToken`). Over HTTP they make the answer an SSE stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub progress: Vec<f64>,
    /// Virtual milliseconds before the answer (the progress notifications are spread over them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
    /// Close the connection (HTTP) or end the process (stdio) instead of answering.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drop_connection: bool,
    /// Ask the client for input instead of answering, as 2026-07-28's multi-round-trip requests do: each key names
    /// an input request, `{"method": "elicitation/create" | "sampling/createMessage" | "roots/list", "params": {...}}`.
    /// The call is answered `resultType: "input_required"` with them and a `requestState`; the client's retry (the
    /// same call with `inputResponses` and that `requestState`) takes the next step, which may `match` the
    /// responses. An empty map asks nothing: the client retries with the state alone (a server not ready yet). A handshake-era client cannot be asked this way: its call is refused, naming the revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_required: Option<serde_json::Map<String, Value>>,
}

/// The methods an input request of `input_required` may name (the client features a server asks for).
pub const INPUT_METHODS: [&str; 3] = ["elicitation/create", "sampling/createMessage", "roots/list"];

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// What a step's calls must carry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolMatch {
    /// Arguments the call must contain (any, when absent).
    #[serde(default = "any_arguments")]
    pub arguments: Value,
    /// The client's answers a retry must carry (`inputResponses`, contained as arguments are): only a retry after
    /// an `input_required` step takes a step with this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Value>,
}

fn any_arguments() -> Value {
    Value::Object(serde_json::Map::new())
}

/// A JSON-RPC error to answer with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpError {
    /// The code (`-32603` internal error, `-32602` invalid params, ...).
    pub code: i64,
    /// The message.
    pub message: String,
    /// `data`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A resource with its contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpResource {
    /// The URI `resources/read` asks for.
    pub uri: String,
    /// `name` (default: the URI's last segment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `mimeType` (default `text/plain` for text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Text contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Binary contents, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// A prompt template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpPrompt {
    /// The name.
    pub name: String,
    /// `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<McpPromptArgument>,
    /// The messages `prompts/get` answers, `{{name}}` in their text replaced by the argument's value.
    pub messages: Vec<McpPromptMessage>,
}

/// A prompt's argument.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpPromptArgument {
    /// The name.
    pub name: String,
    /// `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether `prompts/get` must give it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

/// A prompt's message: `role` and a `text` (or one content block as sent).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpPromptMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// The text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// One content block, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Value>,
}

/// The content block types a tool's `content` may carry (MCP 2025-11-25).
const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource_link", "resource"];

fn valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
}

impl Mcp {
    /// What is wrong with the setting, if anything: `(field path below "mcp", problem)`.
    pub fn problem(&self) -> Option<(String, String)> {
        for (s, server) in self.servers.iter().enumerate() {
            let at = |field: &str| format!("servers[{s}]{field}");
            if !valid_name(&server.name) {
                let problem = format!("{:?} is not a server name (1 to 128 of A-Z a-z 0-9 _ - .)", server.name);
                return Some((at(".name"), problem));
            }
            if self.servers.iter().take(s).any(|other| other.name == server.name) {
                return Some((at(".name"), format!("a second server named {:?}", server.name)));
            }
            if server.page_size == Some(0) {
                return Some((at(".page_size"), "0 is not a page size (1 or more)".into()));
            }
            for (t, tool) in server.tools.iter().enumerate() {
                if let Some((field, problem)) = tool_problem(tool, server.tools.iter().take(t)) {
                    return Some((at(&format!(".tools[{t}]{field}")), problem));
                }
            }
            for (r, resource) in server.resources.iter().enumerate() {
                let problem = match (&resource.text, &resource.blob) {
                    (Some(_), Some(_)) => Some("give text or blob, not both"),
                    (None, None) => Some("give its text or blob"),
                    _ if server.resources.iter().take(r).any(|o| o.uri == resource.uri) => {
                        Some("a second resource of this uri")
                    }
                    _ => None,
                };
                if let Some(problem) = problem {
                    return Some((at(&format!(".resources[{r}]")), problem.into()));
                }
            }
            for (p, prompt) in server.prompts.iter().enumerate() {
                if server.prompts.iter().take(p).any(|o| o.name == prompt.name) {
                    return Some((
                        at(&format!(".prompts[{p}].name")),
                        format!("a second prompt named {:?}", prompt.name),
                    ));
                }
                for (m, message) in prompt.messages.iter().enumerate() {
                    let field = format!(".prompts[{p}].messages[{m}]");
                    if message.role != "user" && message.role != "assistant" {
                        return Some((
                            at(&format!("{field}.role")),
                            format!("{:?} is not user or assistant", message.role),
                        ));
                    }
                    if message.text.is_some() == message.content.is_some() {
                        return Some((at(&field), "give its text or one content block".into()));
                    }
                }
            }
        }
        None
    }
}

fn tool_problem<'a>(tool: &McpTool, mut before: impl Iterator<Item = &'a McpTool>) -> Option<(String, String)> {
    if !valid_name(&tool.name) {
        return Some((".name".into(), format!("{:?} is not a tool name (1 to 128 of A-Z a-z 0-9 _ - .)", tool.name)));
    }
    if before.any(|other| other.name == tool.name) {
        return Some((".name".into(), format!("a second tool named {:?}", tool.name)));
    }
    for (field, schema) in [("input_schema", &tool.input_schema), ("output_schema", &tool.output_schema)] {
        if let Some(schema) = schema {
            if schema.get("type").and_then(Value::as_str) != Some("object") {
                return Some((
                    format!(".{field}"),
                    "its root must be {\"type\": \"object\"} (every client checks)".into(),
                ));
            }
        }
    }
    for (s, step) in tool.steps.iter().enumerate() {
        let at = format!(".steps[{s}]");
        let answers = step.text.is_some() || step.content.is_some() || step.structured.is_some();
        let kinds = usize::from(answers)
            + usize::from(step.error.is_some())
            + usize::from(step.drop_connection)
            + usize::from(step.input_required.is_some());
        if kinds != 1 {
            let problem =
                "give one answer: a result (text, content, structured), an error, drop_connection, or input_required";
            return Some((at, problem.into()));
        }
        if let Some((key, problem)) = step.input_required.as_ref().and_then(input_requests_problem) {
            return Some((format!("{at}.input_required{key}"), problem));
        }
        if step.is_error && !answers {
            return Some((format!("{at}.is_error"), "an is_error result needs its text or content".into()));
        }
        for (b, block) in step.content.iter().flatten().enumerate() {
            let kind = block.get("type").and_then(Value::as_str);
            if !kind.is_some_and(|k| CONTENT_TYPES.contains(&k)) {
                let problem = format!("a content block's type is one of {}", CONTENT_TYPES.join(", "));
                return Some((format!("{at}.content[{b}]"), problem));
            }
        }
        if let Some(structured) = &step.structured {
            if tool.output_schema.is_some() && !structured.is_object() {
                return Some((format!("{at}.structured"), "the tool has an output_schema: give an object".into()));
            }
        }
        let increasing = step.progress.windows(2).all(|w| matches!(w, [a, b] if a < b));
        if !increasing || step.progress.iter().any(|p| !p.is_finite()) {
            return Some((format!("{at}.progress"), "progress values must be numbers, each above the last".into()));
        }
        if let Some(matcher) = &step.matcher {
            if !matcher.arguments.is_object() {
                return Some((format!("{at}.match.arguments"), "give an object of arguments".into()));
            }
            if matcher.input_responses.as_ref().is_some_and(|r| !r.is_object()) {
                return Some((format!("{at}.match.input_responses"), "give an object of responses by key".into()));
            }
        }
    }
    None
}

/// What is wrong with an `input_required` map, if anything: `(field path below it, problem)`.
fn input_requests_problem(requests: &serde_json::Map<String, Value>) -> Option<(String, String)> {
    for (key, request) in requests {
        let at = format!("[{key:?}]");
        let method = request.get("method").and_then(Value::as_str);
        if !method.is_some_and(|m| INPUT_METHODS.contains(&m)) {
            return Some((
                format!("{at}.method"),
                format!("an input request's method is one of {}", INPUT_METHODS.join(", ")),
            ));
        }
        if request.get("params").is_some_and(|p| !p.is_object()) {
            return Some((format!("{at}.params"), "give the request's params as an object".into()));
        }
        if let Some(extra) =
            request.as_object().and_then(|o| o.keys().find(|k| !matches!(k.as_str(), "method" | "params")))
        {
            return Some((at, format!("an input request has a method and params, not {extra:?}")));
        }
    }
    None
}

/// Whether `actual` contains `expected`: objects key by key (recursively), numbers by value (`2` is `2.0`), the
/// rest equal.
pub(crate) fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => {
            expected.iter().all(|(key, want)| actual.get(key).is_some_and(|got| contains(got, want)))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| contains(x, y)),
        _ => actual == expected,
    }
}
