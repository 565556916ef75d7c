//! Small helpers to read provider request JSON leniently (SDKs send many fields the mock ignores) while
//! naming exactly what is wrong when a field the mock needs is missing or of the wrong type.

use crate::model::ContentPart;
use serde_json::{Map, Value};

pub(crate) type Object = Map<String, Value>;

pub(crate) fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Object, String> {
    value.as_object().ok_or_else(|| format!("{what} must be a JSON object"))
}

pub(crate) fn required_str<'a>(object: &'a Object, key: &str, what: &str) -> Result<&'a str, String> {
    match object.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format!("{what}.{key} must be a string, found {}", kind(other))),
        None => Err(format!("{what}.{key} is required")),
    }
}

pub(crate) fn optional_str(object: &Object, key: &str, what: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{what}.{key} must be a string, found {}", kind(other))),
    }
}

pub(crate) fn required_array<'a>(object: &'a Object, key: &str, what: &str) -> Result<&'a Vec<Value>, String> {
    match object.get(key) {
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!("{what}.{key} must be an array, found {}", kind(other))),
        None => Err(format!("{what}.{key} is required")),
    }
}

pub(crate) fn optional_array<'a>(object: &'a Object, key: &str, what: &str) -> Result<&'a [Value], String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(format!("{what}.{key} must be an array, found {}", kind(other))),
    }
}

pub(crate) fn optional_f64(object: &Object, key: &str, what: &str) -> Result<Option<f64>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => Err(format!("{what}.{key} must be a number, found {}", kind(other))),
    }
}

pub(crate) fn optional_u64(object: &Object, key: &str, what: &str) -> Result<Option<u64>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => {
            n.as_u64().map(Some).ok_or_else(|| format!("{what}.{key} must be a non-negative integer"))
        }
        Some(other) => Err(format!("{what}.{key} must be a number, found {}", kind(other))),
    }
}

pub(crate) fn optional_i64(object: &Object, key: &str, what: &str) -> Result<Option<i64>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| format!("{what}.{key} must be an integer")),
        Some(other) => Err(format!("{what}.{key} must be a number, found {}", kind(other))),
    }
}

pub(crate) fn optional_bool(object: &Object, key: &str, what: &str) -> Result<bool, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!("{what}.{key} must be a boolean, found {}", kind(other))),
    }
}

/// `stop`: a string or an array of strings.
pub(crate) fn string_or_strings(object: &Object, key: &str, what: &str) -> Result<Vec<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| format!("{what}.{key} must hold strings")))
            .collect(),
        Some(other) => Err(format!("{what}.{key} must be a string or an array of strings, found {}", kind(other))),
    }
}

pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn text_part(text: &str) -> ContentPart {
    ContentPart::Text { text: text.to_string() }
}

/// Content given as a string, or as an array of blocks of which only the text is kept (for tool results).
pub(crate) fn flatten_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
