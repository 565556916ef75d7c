//! The check every generated value passes before it is given: JSON Schema validation over the subset the
//! generator supports (formats are annotations, as validators treat them by default). Hand-written because it is
//! the generator's own guarantee and must be in every build (the WASM module included).

use super::pattern;
use serde_json::Value;

/// Whether `value` is valid against `schema` (a document whose `$ref`s point into itself).
pub fn is_valid(schema: &Value, value: &Value) -> bool {
    valid(schema, schema, value, 0)
}

/// Whether `value` is valid against `schema`, a part of the document `root` (which its `$ref`s point into).
pub(super) fn is_valid_at(root: &Value, schema: &Value, value: &Value) -> bool {
    valid(root, schema, value, 0)
}

/// Deeper than this, a `$ref` chain is taken to loop.
const MAX_REF_DEPTH: usize = 64;

fn valid(root: &Value, schema: &Value, value: &Value, depth: usize) -> bool {
    let Some(object) = schema.as_object() else { return schema.as_bool() != Some(false) };
    if depth > MAX_REF_DEPTH {
        return false;
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        match resolve(root, reference) {
            Some(target) if valid(root, target, value, depth + 1) => {}
            _ => return false,
        }
    }
    let sub = |s: &Value, v: &Value| valid(root, s, v, depth + 1);
    if let Some(types) = object.get("type") {
        let nullable = object.get("nullable") == Some(&Value::Bool(true)) && value.is_null();
        let names: Vec<&str> = match types {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !nullable && !names.iter().any(|name| has_type(value, name)) {
            return false;
        }
    }
    if object.get("enum").and_then(Value::as_array).is_some_and(|e| !e.iter().any(|x| same(x, value))) {
        return false;
    }
    if object.get("const").is_some_and(|c| !same(c, value)) {
        return false;
    }
    if let Some(all) = object.get("allOf").and_then(Value::as_array) {
        if !all.iter().all(|s| sub(s, value)) {
            return false;
        }
    }
    if let Some(any) = object.get("anyOf").and_then(Value::as_array) {
        if !any.iter().any(|s| sub(s, value)) {
            return false;
        }
    }
    if let Some(one) = object.get("oneOf").and_then(Value::as_array) {
        if one.iter().filter(|s| sub(s, value)).count() != 1 {
            return false;
        }
    }
    match value {
        Value::Number(n) => number_valid(object, n.as_f64().unwrap_or(f64::NAN)),
        Value::String(text) => string_valid(object, text),
        Value::Array(items) => {
            let (tuple, rest) = item_schemas(object);
            let count = |key: &str| object.get(key).and_then(Value::as_u64);
            let len = items.len() as u64;
            let unique = object.get("uniqueItems") != Some(&Value::Bool(true))
                || items.iter().enumerate().all(|(i, a)| items.iter().take(i).all(|b| !same(a, b)));
            count("minItems").is_none_or(|m| len >= m)
                && count("maxItems").is_none_or(|m| len <= m)
                && unique
                && items.iter().enumerate().all(|(i, item)| tuple.get(i).or(rest).is_none_or(|s| sub(s, item)))
        }
        Value::Object(map) => {
            let properties = object.get("properties").and_then(Value::as_object);
            let required = object.get("required").and_then(Value::as_array);
            let count = |key: &str| object.get(key).and_then(Value::as_u64);
            let len = map.len() as u64;
            required.is_none_or(|r| r.iter().filter_map(Value::as_str).all(|k| map.contains_key(k)))
                && count("minProperties").is_none_or(|m| len >= m)
                && count("maxProperties").is_none_or(|m| len <= m)
                && map.iter().all(|(key, item)| match properties.and_then(|p| p.get(key)) {
                    Some(s) => sub(s, item),
                    None => object.get("additionalProperties").is_none_or(|s| sub(s, item)),
                })
        }
        _ => true,
    }
}

/// An array's item schemas: the positional ones (`prefixItems`, or draft 7's array `items`) and the one for the
/// rest (`items`, or draft 7's `additionalItems`).
pub(super) fn item_schemas(object: &serde_json::Map<String, Value>) -> (&[Value], Option<&Value>) {
    match (object.get("prefixItems").and_then(Value::as_array), object.get("items")) {
        (Some(prefix), items) => (prefix.as_slice(), items),
        (None, Some(Value::Array(tuple))) => (tuple.as_slice(), object.get("additionalItems")),
        (None, items) => (&[], items),
    }
}

fn number_valid(object: &serde_json::Map<String, Value>, n: f64) -> bool {
    let bound = |key: &str| object.get(key).and_then(Value::as_f64);
    // Draft 4's boolean exclusives make `minimum` / `maximum` exclusive.
    let exclusive = |key: &str| object.get(key) == Some(&Value::Bool(true));
    let above = bound("minimum").is_none_or(|m| if exclusive("exclusiveMinimum") { n > m } else { n >= m });
    let below = bound("maximum").is_none_or(|m| if exclusive("exclusiveMaximum") { n < m } else { n <= m });
    let multiple = bound("multipleOf").is_none_or(|m| {
        let ratio = n / m;
        (ratio - ratio.round()).abs() < 1e-9
    });
    above
        && below
        && bound("exclusiveMinimum").is_none_or(|m| n > m)
        && bound("exclusiveMaximum").is_none_or(|m| n < m)
        && multiple
}

fn string_valid(object: &serde_json::Map<String, Value>, text: &str) -> bool {
    let len = text.chars().count() as u64;
    let count = |key: &str| object.get(key).and_then(Value::as_u64);
    count("minLength").is_none_or(|m| len >= m)
        && count("maxLength").is_none_or(|m| len <= m)
        && object
            .get("pattern")
            .and_then(Value::as_str)
            .is_none_or(|p| pattern::parse(p).is_ok_and(|node| pattern::search(&node, text)))
}

/// Whether `value` is of the JSON Schema (or OpenAPI upper-case) type `name`.
pub(super) fn has_type(value: &Value, name: &str) -> bool {
    match name.to_ascii_lowercase().as_str() {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        _ => false,
    }
}

/// JSON equality where `1` and `1.0` are the same number.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The schema a local `$ref` (`#`, `#/$defs/node`, `#/definitions/node`) points at.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let unescaped: String = pointer.replace("%25", "%");
    root.pointer(&unescaped)
}
