//! A step's answer: thinking, then text, then tool calls, as the script gives them. Vocabulary only (the token
//! rule is the one thing it uses), so the usage estimate, the generators and the stream below the mock can all
//! hold it.

use serde_json::Value;

/// Text to stream: split by the word-like rule, or exactly the given tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunks {
    /// Split into word-like tokens (`docs/concepts/tokens.md`).
    Words(String),
    /// Exactly these tokens, in order.
    Exact(Vec<String>),
}

impl Chunks {
    /// The whole text.
    pub fn text(&self) -> String {
        match self {
            Chunks::Words(text) => text.clone(),
            Chunks::Exact(tokens) => tokens.concat(),
        }
    }

    /// The tokens to stream, in order.
    pub fn tokens(&self) -> Vec<&str> {
        match self {
            Chunks::Words(text) => crate::tokenize::tokenize(text).collect(),
            Chunks::Exact(tokens) => tokens.iter().map(String::as_str).collect(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Chunks::Words(text) => text.is_empty(),
            Chunks::Exact(tokens) => tokens.is_empty(),
        }
    }
}

/// A tool call as scripted: the id is optional (the mock assigns `call_N`), the arguments are raw JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedToolCall {
    /// A fixed id, or `None` for the mock's next id.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, possibly invalid on purpose.
    pub arguments: String,
}

impl ScriptedToolCall {
    /// A call with arguments given as a JSON value (usually an object).
    pub fn new(name: impl Into<String>, arguments: &Value) -> ScriptedToolCall {
        ScriptedToolCall { id: None, name: name.into(), arguments: arguments.to_string() }
    }

    /// A call with arguments given as raw JSON text, which may be invalid JSON.
    pub fn raw(name: impl Into<String>, arguments_json: impl Into<String>) -> ScriptedToolCall {
        ScriptedToolCall { id: None, name: name.into(), arguments: arguments_json.into() }
    }
}

/// The content of an answer step: thinking, then text, then tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// Reasoning, streamed first.
    pub thinking: Option<Chunks>,
    /// Text, streamed second. `None` means the answer has no text (not `""`).
    pub text: Option<Chunks>,
    /// Tool calls, streamed last.
    pub tool_calls: Vec<ScriptedToolCall>,
}
