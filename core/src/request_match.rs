//! Request matchers: a route that answers one request, compared field by field after normalisation, and the
//! explanation of a miss (the nearest route and what differs, by path).
//!
//! Both sides are the neutral request as data (`ChatRequest`'s JSON form, as the journal shows it), made
//! canonical the same way: the fields that change from run to run without changing what was asked are dropped
//! (`metadata`, which holds the operation and endpoint that routes match on their own, `stream`, and the ids of
//! tool calls, which a client carries over from earlier answers), then the paths the route says to ignore. The
//! fields the matcher gives are compared whole; a field it leaves out is not compared, so a hand-written matcher
//! can say as little as `{"messages": [...]}` while a recorded one holds the whole request.

use crate::error::{invalid_argument, Result};
use crate::model::ChatRequest;
use serde_json::{Map, Value};
use std::fmt;

/// Fields that never count: routes match the operation and endpoint themselves, and the rest vary per run.
const VOLATILE_FIELDS: [&str; 2] = ["metadata", "stream"];

/// How many differences a miss lists before it says how many more there are.
const DIFFERENCES_SHOWN: usize = 8;

/// A route's request: the fields that must equal the incoming request's, and the paths never compared.
#[derive(Clone, PartialEq)]
pub struct RequestMatcher {
    expected: Map<String, Value>,
    ignore: Vec<FieldPath>,
}

impl fmt::Debug for RequestMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "request({})", self.expected.keys().cloned().collect::<Vec<_>>().join(", "))
    }
}

impl RequestMatcher {
    /// A matcher of the fields given in `request` (a neutral request as data, any subset of its fields; read as
    /// a `ChatRequest`, so a misspelt field is an error), ignoring the `ignore` paths (`temperature`,
    /// `messages[*].name`, `messages[0].content[1].text`).
    pub fn new(request: &Value, ignore: &[String]) -> Result<RequestMatcher> {
        let Some(given) = request.as_object() else {
            return Err(invalid_argument("a request matcher is an object of request fields"));
        };
        // Read as hosts' requests are (the same code, so the WASM module carries no second reader of requests).
        let parsed = ChatRequest::from_value(request.clone())
            .map_err(|e| invalid_argument(format!("a request matcher: {}", e.message())))?;
        let ignore = ignore.iter().map(|path| FieldPath::parse(path)).collect::<Result<Vec<_>>>()?;
        // Only what was given is compared (the canonical form writes `model` and `messages` always).
        let mut expected = Map::new();
        for (key, value) in canonical(&parsed, &ignore) {
            if given.contains_key(&key) {
                expected.insert(key, value);
            }
        }
        Ok(RequestMatcher { expected, ignore })
    }

    /// Whether `request` has every field this matcher gives, equal.
    pub fn matches(&self, request: &ChatRequest) -> bool {
        self.matches_canonical(&canonical(request, &self.ignore))
    }

    /// [`RequestMatcher::matches`] on a request already in its canonical form for this matcher's `ignore`.
    pub(crate) fn matches_canonical(&self, found: &Map<String, Value>) -> bool {
        self.expected.iter().all(|(key, expected)| found.get(key) == Some(expected))
    }

    /// The paths this matcher never compares.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn ignored(&self) -> &[FieldPath] {
        &self.ignore
    }

    /// The fingerprint of the fields this matcher expects: a request it matches has the same fingerprint over
    /// those fields ([`fingerprint_of`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn fingerprint(&self) -> u64 {
        fingerprint(self.expected.iter())
    }

    /// The fields of `request` that differ from this matcher's, by path, in the order of the matcher's fields.
    pub fn differences(&self, request: &ChatRequest) -> Vec<Difference> {
        let found = canonical(request, &self.ignore);
        let mut out = Vec::new();
        for (key, expected) in &self.expected {
            let missing = Value::Null;
            compare(key.clone(), expected, found.get(key).unwrap_or(&missing), &mut out);
        }
        out
    }

    /// The fields this matcher compares, as given.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.expected.keys().map(String::as_str)
    }

    /// The text of the last user message this matcher expects, if it expects messages: what a person recognises
    /// a recorded request by (an unused recording's line in a failed check names it).
    pub fn last_user_text(&self) -> Option<String> {
        let messages = self.expected.get("messages")?.as_array()?;
        let user = messages.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
        match user.get("content")? {
            Value::String(text) => Some(text.clone()),
            Value::Array(parts) => {
                Some(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(""))
            }
            _ => None,
        }
    }
}

/// One field that differs: where, what the matcher holds and what the request had.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// `messages[1].content[0].text`.
    pub path: String,
    /// The matcher's value (`null` where it had none).
    pub expected: Value,
    /// The request's value (`null` where it had none).
    pub found: Value,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} != {}", self.path, brief(&self.expected), brief(&self.found))
    }
}

/// The differences as the lines of a miss message, at most `DIFFERENCES_SHOWN` and how many more.
pub fn describe_differences(differences: &[Difference]) -> String {
    let mut lines: Vec<String> = differences.iter().take(DIFFERENCES_SHOWN).map(|d| format!("    {d}")).collect();
    if differences.len() > DIFFERENCES_SHOWN {
        lines.push(format!("    ... and {} more", differences.len() - DIFFERENCES_SHOWN));
    }
    lines.join("\n")
}

/// A value as a miss shows it: JSON, long strings and structures cut to a readable length.
fn brief(value: &Value) -> String {
    const LIMIT: usize = 80;
    let text = value.to_string();
    if text.chars().count() <= LIMIT {
        return text;
    }
    let cut: String = text.chars().take(LIMIT).collect();
    format!("{cut}...")
}

/// Records where `expected` and `found` differ under `path`: into objects by key, into arrays by position (and
/// their lengths when they differ), anything else as a whole.
fn compare(path: String, expected: &Value, found: &Value, out: &mut Vec<Difference>) {
    match (expected, found) {
        (Value::Object(e), Value::Object(f)) => {
            let mut keys: Vec<&String> = e.keys().chain(f.keys().filter(|k| !e.contains_key(*k))).collect();
            keys.dedup();
            let missing = Value::Null;
            for key in keys {
                let (ev, fv) = (e.get(key).unwrap_or(&missing), f.get(key).unwrap_or(&missing));
                compare(format!("{path}.{key}"), ev, fv, out);
            }
        }
        (Value::Array(e), Value::Array(f)) => {
            if e.len() != f.len() {
                out.push(Difference {
                    path: format!("{path} (length)"),
                    expected: Value::from(e.len()),
                    found: Value::from(f.len()),
                });
            }
            for (i, (ev, fv)) in e.iter().zip(f).enumerate() {
                compare(format!("{path}[{i}]"), ev, fv, out);
            }
        }
        _ if expected == found => {}
        _ => out.push(Difference { path, expected: expected.clone(), found: found.clone() }),
    }
}

/// A request's canonical form for `ignore` (what [`RequestMatcher::matches_canonical`] takes).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn canonical_for(request: &ChatRequest, ignore: &[FieldPath]) -> Map<String, Value> {
    canonical(request, ignore)
}

/// The fingerprint of a canonical request over `keys`, or `None` when it lacks one of them (no matcher of those
/// keys takes it).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn fingerprint_of<'a>(found: &Map<String, Value>, keys: impl Iterator<Item = &'a str>) -> Option<u64> {
    let mut fields = Vec::new();
    for key in keys {
        fields.push((key, found.get(key)?));
    }
    Some(fingerprint(fields.into_iter()))
}

/// FNV-1a over the fields' keys and JSON text (the same text for equal values: serde_json's maps are ordered).
#[cfg(not(target_arch = "wasm32"))]
fn fingerprint<'a, K: AsRef<str> + 'a>(fields: impl Iterator<Item = (K, &'a Value)>) -> u64 {
    struct Fnv(u64);
    impl std::io::Write for Fnv {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            for &byte in bytes {
                self.0 = crate::seeded::fnv1a64_step(self.0, byte);
            }
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    use std::io::Write;
    let mut hash = Fnv(crate::seeded::FNV_OFFSET_BASIS);
    for (key, value) in fields {
        let _ = hash.write_all(key.as_ref().as_bytes());
        let _ = serde_json::to_writer(&mut hash, value);
        let _ = hash.write_all(&[0]);
    }
    hash.0
}

/// The request as compared: its JSON form without the volatile fields, the tool-call ids and the ignored paths.
/// Objects are rebuilt without what is left out rather than removed from, which the WASM module's size prefers
/// (the map's removal code would be new there; its insertion is everywhere).
fn canonical(request: &ChatRequest, ignore: &[FieldPath]) -> Map<String, Value> {
    let Some(Value::Object(fields)) = request_as_data(request) else { return Map::new() };
    let mut kept = Map::new();
    for (key, value) in fields {
        match key.as_str() {
            volatile if VOLATILE_FIELDS.contains(&volatile) => {}
            "messages" => {
                kept.insert(key, without_call_ids(value));
            }
            _ => {
                kept.insert(key, value);
            }
        }
    }
    let mut root = Value::Object(kept);
    for path in ignore {
        root = stripped(&path.0, root);
    }
    match root {
        Value::Object(fields) => fields,
        _ => Map::new(),
    }
}

/// The messages without the ids of tool calls and of the calls that tool results answer.
fn without_call_ids(messages: Value) -> Value {
    let Value::Array(messages) = messages else { return messages };
    let messages = messages.into_iter().map(|message| {
        let Value::Object(fields) = message else { return message };
        let mut kept = Map::new();
        for (key, value) in fields {
            match (key.as_str(), value) {
                ("tool_call_id", _) => {}
                ("tool_calls", Value::Array(calls)) => {
                    let calls = calls.into_iter().map(|call| stripped(&[Segment::Key("id".into())], call)).collect();
                    kept.insert(key, Value::Array(calls));
                }
                (_, value) => {
                    kept.insert(key, value);
                }
            }
        }
        Value::Object(kept)
    });
    Value::Array(messages.collect())
}

/// `value` without what `segments` name (a position of an array is blanked: removing it would shift the later
/// items, and both sides are blanked alike).
fn stripped(segments: &[Segment], value: Value) -> Value {
    let Some((first, rest)) = segments.split_first() else { return value };
    match (first, value) {
        (Segment::Key(name), Value::Object(fields)) => {
            let mut kept = Map::new();
            for (key, inner) in fields {
                if key != *name {
                    kept.insert(key, inner);
                } else if !rest.is_empty() {
                    let inner = stripped(rest, inner);
                    kept.insert(key, inner);
                }
            }
            Value::Object(kept)
        }
        (Segment::Index(i), Value::Array(items)) => Value::Array(
            items.into_iter().enumerate().map(|(j, item)| if j == *i { blanked(rest, item) } else { item }).collect(),
        ),
        (Segment::Every, Value::Array(items)) => {
            Value::Array(items.into_iter().map(|item| blanked(rest, item)).collect())
        }
        (_, other) => other,
    }
}

/// An item a path ends at is `null`; one it goes through is stripped further.
fn blanked(rest: &[Segment], item: Value) -> Value {
    if rest.is_empty() {
        Value::Null
    } else {
        stripped(rest, item)
    }
}

/// The request as JSON data, made directly.
#[cfg(not(target_arch = "wasm32"))]
fn request_as_data(request: &ChatRequest) -> Option<Value> {
    serde_json::to_value(request).ok()
}

/// The request as JSON data, through its text: the WASM module already holds the code that writes a request as
/// text (the journal) and reads JSON text, and a direct serializer into values would be a second copy of every
/// model type's serializer (8 KB of the module's 400 KB budget, gzipped).
#[cfg(target_arch = "wasm32")]
fn request_as_data(request: &ChatRequest) -> Option<Value> {
    serde_json::from_slice(&serde_json::to_vec(request).ok()?).ok()
}

/// A path into a request: keys, and array positions or `[*]` for every item (`messages[*].content[0].text`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath(Vec<Segment>);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Key(String),
    Index(usize),
    Every,
}

impl FieldPath {
    /// Reads `messages[*].content[0].text`; an empty key, an unclosed bracket or a bad position is an error
    /// naming the path.
    pub fn parse(path: &str) -> Result<FieldPath> {
        let bad = |why: &str| invalid_argument(format!("the ignored path {path:?} {why}"));
        let mut segments = Vec::new();
        for part in path.split('.') {
            let (key, mut rest) = match part.split_once('[') {
                Some((key, rest)) => (key, Some(rest)),
                None => (part, None),
            };
            if key.is_empty() {
                return Err(bad("has an empty key"));
            }
            segments.push(Segment::Key(key.to_string()));
            // After a `[`: its position, `]`, and either the end of the part or the next `[`.
            while let Some(bracketed) = rest {
                let Some((inside, after)) = bracketed.split_once(']') else { return Err(bad("has an unclosed [")) };
                segments.push(match inside {
                    "*" => Segment::Every,
                    n => Segment::Index(n.parse().map_err(|_| bad("has a position that is not a number or *"))?),
                });
                rest = match after.strip_prefix('[') {
                    Some(next) => Some(next),
                    None if after.is_empty() => None,
                    None => return Err(bad("has text after a ]")),
                };
            }
        }
        Ok(FieldPath(segments))
    }

    /// `value` with what this path names replaced by `replacement` (where it exists; nothing is added).
    pub fn replace_all(&self, value: Value, replacement: &Value) -> Value {
        replaced(&self.0, value, replacement)
    }
}

fn replaced(segments: &[Segment], value: Value, replacement: &Value) -> Value {
    let Some((first, rest)) = segments.split_first() else { return replacement.clone() };
    match (first, value) {
        (Segment::Key(name), Value::Object(fields)) => Value::Object(
            fields
                .into_iter()
                .map(|(key, inner)| {
                    let inner = if key == *name { replaced(rest, inner, replacement) } else { inner };
                    (key, inner)
                })
                .collect(),
        ),
        (Segment::Index(i), Value::Array(items)) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(j, item)| if j == *i { replaced(rest, item, replacement) } else { item })
                .collect(),
        ),
        (Segment::Every, Value::Array(items)) => {
            Value::Array(items.into_iter().map(|item| replaced(rest, item, replacement)).collect())
        }
        (_, other) => other,
    }
}

/// A request as a recording's `match.request` holds it: the canonical form (no metadata, stream flag or tool-call
/// ids), every field.
pub fn recorded_request(request: &ChatRequest) -> Value {
    Value::Object(canonical(request, &[]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, ToolCall};
    use serde_json::json;

    fn request(text: &str) -> ChatRequest {
        ChatRequest::user("gpt-4o", text)
    }

    #[test]
    fn the_given_fields_are_compared_and_the_volatile_ones_never() {
        let matcher =
            RequestMatcher::new(&json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}), &[])
                .unwrap();
        let mut same = request("Hi");
        same.stream = true;
        same.temperature = Some(0.3); // not given: not compared
        same.metadata.operation = Some("greet".into());
        assert!(matcher.matches(&same));
        assert!(!matcher.matches(&request("Hello")));
        assert!(!matcher.matches(&ChatRequest::user("gpt-4o-mini", "Hi")));
    }

    #[test]
    fn tool_call_ids_carried_from_earlier_answers_do_not_count() {
        let conversation = |id: &str| {
            let call = ToolCall { id: id.into(), name: "get_weather".into(), arguments: r#"{"city":"Paris"}"#.into() };
            let mut result = Message::tool_result(id, "22");
            result.tool_call_id = Some(id.into());
            ChatRequest {
                messages: vec![Message::user("Weather?"), Message::assistant_tool_calls(vec![call]), result],
                ..request("")
            }
        };
        let recorded = serde_json::to_value(conversation("call_abc")).unwrap();
        let matcher = RequestMatcher::new(&recorded, &[]).unwrap();
        assert!(matcher.matches(&conversation("call_1")));
    }

    #[test]
    fn a_miss_lists_each_differing_field_by_path() {
        let matcher = RequestMatcher::new(
            &json!({"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief"}, {"role": "user", "content": "Weather in Paris?"}]}),
            &[],
        )
        .unwrap();
        let mut found = request("Weather in Lyon?");
        found.messages.insert(0, Message::system("Be brief"));
        let shown: Vec<String> = matcher.differences(&found).iter().map(ToString::to_string).collect();
        assert_eq!(shown, [r#"messages[1].content[0].text: "Weather in Paris?" != "Weather in Lyon?""#]);
        let shorter = request("Weather in Paris?");
        let shown: Vec<String> = matcher.differences(&shorter).iter().map(ToString::to_string).collect();
        // Keys in the neutral request's sorted order.
        assert_eq!(
            shown,
            [
                "messages (length): 2 != 1",
                r#"messages[0].content[0].text: "Be brief" != "Weather in Paris?""#,
                r#"messages[0].role: "system" != "user""#,
            ]
        );
    }

    #[test]
    fn ignored_paths_are_left_out_on_both_sides() {
        let given = json!({"model": "gpt-4o", "temperature": 0.2, "messages": [{"role": "user", "content": "Hi", "name": "ann"}]});
        let ignore = ["temperature".to_string(), "messages[*].name".to_string()];
        let matcher = RequestMatcher::new(&given, &ignore).unwrap();
        let mut found = request("Hi");
        found.temperature = Some(0.9);
        found.messages[0].name = Some("bob".into());
        assert!(matcher.matches(&found));
        let positional = RequestMatcher::new(&given, &["messages[0]".to_string(), "temperature".to_string()]).unwrap();
        assert!(positional.matches(&request("anything")));
    }

    #[test]
    fn bad_matchers_and_paths_are_invalid_arguments_naming_them() {
        let misspelt = RequestMatcher::new(&json!({"modle": "gpt-4o"}), &[]).unwrap_err();
        assert!(misspelt.message().contains("modle"), "{}", misspelt.message());
        assert!(RequestMatcher::new(&json!(["gpt-4o"]), &[]).is_err());
        for path in ["", "a..b", "messages[", "messages[x]", "messages[0]x"] {
            let error = RequestMatcher::new(&json!({}), &[path.to_string()]).unwrap_err();
            assert!(error.message().contains(&format!("{path:?}")), "{path}: {}", error.message());
        }
    }
}
