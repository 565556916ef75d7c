//! The shape of a reply, as drift compares it: each JSON body's field paths with the types seen at each (array
//! items folded into `[]`), the values of the fields that name a kind (`type`, `object`), and a stream's events by
//! their type, in order. Values are never compared otherwise: a recording and cuecard answer different words.

use super::super::split::{self, Framing};
use crate::wire::eventstream;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The fields whose values name what an object is: a different value is a different shape.
const KIND_FIELDS: [&str; 2] = ["type", "object"];

/// The field paths of JSON values with the types seen at each, and the kind names seen at each kind field.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Shape {
    pub(super) types: BTreeMap<String, BTreeSet<&'static str>>,
    pub(super) kinds: BTreeMap<String, BTreeSet<String>>,
}

impl Shape {
    /// Adds `value` (and everything in it) at `path`.
    pub(super) fn add(&mut self, path: &str, value: &Value) {
        self.types.entry(path.to_string()).or_default().insert(type_name(value));
        match value {
            Value::Object(object) => {
                for (key, item) in object {
                    let at = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    if let (true, Some(kind)) = (KIND_FIELDS.contains(&key.as_str()), item.as_str()) {
                        self.kinds.entry(at.clone()).or_default().insert(kind.to_string());
                    }
                    self.add(&at, item);
                }
            }
            Value::Array(items) => {
                let at = format!("{path}[]");
                for item in items {
                    self.add(&at, item);
                }
            }
            _ => {}
        }
    }

    pub(super) fn of(value: &Value) -> Shape {
        let mut shape = Shape::default();
        shape.add("", value);
        shape
    }
}

/// A JSON type's name; integers apart from other numbers (typed clients read them differently).
fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// One event of a stream: what it is called and its JSON (`Null` when it carries none, as `[DONE]`).
#[derive(Debug)]
pub(super) struct Event {
    pub(super) kind: String,
    pub(super) json: Value,
}

/// The events of a streamed body of `content_type`: SSE events named by their `event:` line, else by their JSON's
/// `type`; NDJSON lines by `type`, else `done`/`chunk`; AWS event-stream messages by `:event-type` (or
/// `:exception-type`).
pub(super) fn events(content_type: Option<&str>, body: &[u8]) -> Vec<Event> {
    let framing = Framing::of(content_type);
    let (frames, base64) = split::frames(framing, &[(0, body.to_vec())]);
    frames
        .iter()
        .map(|frame| split::joined(std::slice::from_ref(frame), base64))
        .filter_map(|bytes| match framing {
            Framing::Sse => sse_event(&String::from_utf8_lossy(&bytes)),
            Framing::Lines => {
                let line = String::from_utf8_lossy(&bytes);
                let json: Value = serde_json::from_str(line.trim()).ok()?;
                Some(Event { kind: named(&json, "chunk"), json })
            }
            Framing::EventStream => {
                let (message, _) = eventstream::decode(&bytes).ok()?;
                let header = |name: &str| message.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
                let kind = header(":event-type").or_else(|| header(":exception-type")).unwrap_or_default();
                let json = serde_json::from_slice(&message.payload).unwrap_or(Value::Null);
                Some(Event { kind, json })
            }
        })
        .collect()
}

/// An SSE event's name (its `event:` line, else its JSON's `type`, else `data`) and its JSON; comments and blank
/// events are none.
fn sse_event(text: &str) -> Option<Event> {
    let (mut name, mut data) = (None, Vec::new());
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = Some(value.trim().to_string());
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if name.is_none() && data.is_empty() {
        return None;
    }
    let data = data.join("\n");
    if data.trim() == "[DONE]" {
        return Some(Event { kind: "[DONE]".into(), json: Value::Null });
    }
    let json: Value = serde_json::from_str(&data).unwrap_or(Value::Null);
    let kind = name.unwrap_or_else(|| named(&json, "data"));
    Some(Event { kind, json })
}

/// What a JSON event calls itself: its `type` or `object`, else `done` for a last NDJSON line, else `otherwise`.
fn named(json: &Value, otherwise: &str) -> String {
    KIND_FIELDS
        .iter()
        .find_map(|field| json.get(*field).and_then(Value::as_str))
        .map(str::to_string)
        .unwrap_or_else(|| if json.get("done") == Some(&Value::Bool(true)) { "done" } else { otherwise }.to_string())
}

/// The event kinds in order, each run of one kind counted once (a recording and cuecard split text differently).
pub(super) fn sequence(events: &[Event]) -> Vec<String> {
    sequence_of(events.iter().map(|e| e.kind.clone()).collect())
}

/// `kinds` with each run of one kind kept once.
pub(super) fn sequence_of(kinds: Vec<String>) -> Vec<String> {
    let mut runs: Vec<String> = Vec::new();
    for kind in kinds {
        if runs.last() != Some(&kind) {
            runs.push(kind);
        }
    }
    runs
}
