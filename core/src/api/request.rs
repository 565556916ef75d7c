//! What the bindings' `chat(...)` takes: a whole request, or only a user text, which means one user message to
//! the default model (`cuecard-mock`), so `mock.chat("Hi")` is the same request in every language.

use crate::clock::DEFAULT_MODEL;
use crate::error::Result;
use crate::input::host_data::{to_json, HostNode, HostValue};
use crate::input::host_read::read_host_node;
use crate::input::strict_text::read_json_text;
use crate::model::ChatRequest;
use serde_json::Value;

/// A request as a host gives it.
#[derive(Clone, Debug, PartialEq)]
pub enum RequestInput {
    /// A user text.
    Text(String),
    /// A request in cuecard's neutral format.
    Request(Value),
}

impl RequestInput {
    /// From JSON data: a string is a user text, anything else a request.
    pub fn from_value(value: Value) -> RequestInput {
        match value {
            Value::String(text) => RequestInput::Text(text),
            other => RequestInput::Request(other),
        }
    }

    /// The neutral request; a malformed one is `invalid_request` naming the path of the offending field.
    pub fn into_request(self) -> Result<ChatRequest> {
        match self {
            RequestInput::Text(text) => Ok(ChatRequest::user(DEFAULT_MODEL, text)),
            RequestInput::Request(value) => ChatRequest::from_value(value),
        }
    }

    /// The request a host value gives (a text, or a request as a dict or object), read straight from the host's
    /// values when they fit ([`crate::input::host_read`]); otherwise through the walker, whose error names
    /// `argument` and the path. The same request or error as `from_value(to_json(value, argument)?)`.
    pub fn from_host<H: HostValue>(value: &H, argument: &str) -> Result<ChatRequest> {
        match value.read() {
            Ok(HostNode::Str(text)) => return Ok(ChatRequest::user(DEFAULT_MODEL, text)),
            Ok(node) => {
                if let Some(request) = read_host_node(node) {
                    return Ok(request);
                }
            }
            Err(_) => {}
        }
        RequestInput::from_value(to_json(value, argument)?).into_request()
    }

    /// The fast path for hosts whose own JSON serializer is quicker than reading their objects one property at a
    /// time (JS's `JSON.stringify`): the request from `json`, or `None` when the text must be read from the host
    /// data instead, by the walker whose limits and messages are canonical: it does not parse (JS escapes a lone
    /// surrogate, which serde refuses) or nests deeper than [`FAST_PATH_DEPTH`]. The host's serializer must
    /// refuse every value the walker would read differently (see `node/lib/mock.js`, `plainDataOnly`); past the
    /// text, the same `Value` is read the same way, so every error about the request's fields is the same.
    pub fn from_host_json(json: &str) -> Option<Result<ChatRequest>> {
        // Not in the WASM module: the text reader is a second copy of every request type's reader (module size).
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(request) = read_request_text(json) {
            return Some(Ok(request));
        }
        json_depth_within(json, FAST_PATH_DEPTH).then_some(())?;
        let value = serde_json::from_str::<Value>(json).ok()?;
        Some(RequestInput::from_value(value).into_request())
    }

    /// The fast path for a request given as JSON text (the JVM and C libraries): the request, read in one pass
    /// when the text reads exactly as the canonical path (parse to a `Value`, then [`RequestInput::from_value`])
    /// would read it; `None` for everything else, which the caller reads that way, errors included.
    pub fn from_json_text(json: &str) -> Option<ChatRequest> {
        read_request_text(json)
    }
}

/// A JSON string is a user text; anything else a request ([`RequestInput::from_value`]), read by
/// [`read_json_text`] (`None` when it gives up, or nests deeper than [`FAST_PATH_DEPTH`]: read that way, the text
/// parses and passes [`RequestInput::from_host_json`]'s depth check, so both paths agree).
fn read_request_text(json: &str) -> Option<ChatRequest> {
    if json.trim_start().starts_with('"') {
        return read_json_text::<String>(json, 0).map(|text| ChatRequest::user(DEFAULT_MODEL, text));
    }
    read_json_text(json, FAST_PATH_DEPTH)
}

/// Nesting [`RequestInput::from_host_json`] takes; deeper texts go to the walker.
pub const FAST_PATH_DEPTH: usize = 64;

/// Whether JSON text nests at most `max` levels: brackets counted outside strings. The fast path's check before
/// a parser recurses; for JSON only (`check_text_depth` also reads YAML's block indentation, and cost a JS
/// package's `chat` 2.9k instructions for a short request, about six times this).
fn json_depth_within(text: &str, max: usize) -> bool {
    let mut depth = 0usize;
    let mut bytes = text.bytes();
    while let Some(byte) = bytes.next() {
        match byte {
            b'"' => loop {
                match bytes.next() {
                    Some(b'\\') => {
                        bytes.next();
                    }
                    Some(b'"') | None => break,
                    Some(_) => {}
                }
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_text_is_a_user_message_to_the_default_model() {
        let request = RequestInput::from_value(json!("Hi")).into_request().unwrap();
        assert_eq!((request.model.as_str(), request.messages[0].text()), ("cuecard-mock", "Hi".to_string()));
        let err = RequestInput::from_value(json!({"model": "m", "messages": 5})).into_request().unwrap_err();
        assert_eq!(err.code(), "invalid_request");
    }

    #[test]
    fn host_json_takes_the_fast_path_unless_it_must_be_walked() {
        let fast = RequestInput::from_host_json(r#"{"messages":[{"role":"user","content":"Hi"}]}"#);
        assert_eq!(fast.unwrap().unwrap().messages[0].text(), "Hi");
        assert_eq!(RequestInput::from_host_json(r#""Hi""#).unwrap().unwrap().model, "cuecard-mock");
        let refused = RequestInput::from_host_json(r#"{"messages":5}"#).unwrap().unwrap_err();
        assert_eq!(refused.code(), "invalid_request");
        assert!(RequestInput::from_host_json(r#""\ud800""#).is_none(), "a lone surrogate goes to the walker");
        let deep = format!("{}1{}", "[".repeat(65), "]".repeat(65));
        assert!(RequestInput::from_host_json(&deep).is_none(), "deep text goes to the walker");
        let in_text =
            format!(r#"{{"messages":[{{"role":"user","content":"{}\\\"{}"}}]}}"#, "[".repeat(80), "{".repeat(80));
        assert!(RequestInput::from_host_json(&in_text).is_some(), "brackets inside a string are text");
    }

    /// How deep a JSON value nests (a scalar 0, `[]` 1).
    fn depth_of(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(depth_of).max().unwrap_or(0),
            _ => 0,
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        // Texts full of what a scanner could mistake for structure: quotes, backslashes, brackets.
        let text = || proptest::string::string_regex(r#"[\[\]{}"\\a\n]{0,6}"#).unwrap();
        let leaf = prop_oneof![Just(Value::Null), any::<i32>().prop_map(Value::from), text().prop_map(Value::from)];
        leaf.prop_recursive(8, 64, 4, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(text(), inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_json_depth_scan_counts_the_nesting_of_any_value(value in json_value(), max in 0usize..10) {
            for text in [value.to_string(), serde_json::to_string_pretty(&value).unwrap()] {
                proptest::prop_assert_eq!(json_depth_within(&text, max), depth_of(&value) <= max, "{}", text);
            }
        }
    }
}
