//! Drawing a value for a schema: short, readable values (words from a fixed list, small numbers, today-like dates)
//! that satisfy the schema's constraints by construction; what construction cannot promise (a `oneOf` matching one
//! branch only, unique items) is checked and drawn again.

use super::validate::{is_valid_at, item_schemas, resolve, same};
use super::{pattern, GenerateError};
use crate::seeded::Seeded;
use serde_json::{Map, Number, Value};

/// Keywords whose meaning the generator does not produce: a schema using one is refused, naming it.
const UNSUPPORTED: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "patternProperties",
    "propertyNames",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$dynamicRef",
    "$recursiveRef",
];

/// Past this depth of nesting, optional properties are left out and arrays keep their minimum, so recursive
/// schemas end.
const SHALLOW_FROM: usize = 4;
/// Past this depth, a schema is taken to recurse without end.
const MAX_DEPTH: usize = 24;

const WORDS: &[&str] = &[
    "amber", "apple", "basil", "birch", "cedar", "clover", "coral", "delta", "ember", "fern", "harbor", "indigo",
    "jade", "lemon", "maple", "meadow", "orbit", "pearl", "quartz", "river", "sage", "sierra", "spruce", "tango",
    "violet", "willow",
];

pub(super) struct Generator<'a> {
    root: &'a Value,
    rng: Seeded,
    depth: usize,
}

fn error(path: &str, message: impl Into<String>) -> GenerateError {
    GenerateError { path: path.to_string(), message: message.into() }
}

impl<'a> Generator<'a> {
    pub(super) fn new(root: &'a Value, seed: u64) -> Generator<'a> {
        Generator { root, rng: Seeded::new(seed), depth: 0 }
    }

    /// A value for `schema`, found at `path` in the document.
    pub(super) fn value(&mut self, schema: &Value, path: &str) -> Result<Value, GenerateError> {
        if self.depth > MAX_DEPTH {
            return Err(error(path, "the schema recurses without a way to end"));
        }
        self.depth += 1;
        let value = self.value_at_depth(schema, path);
        self.depth -= 1;
        value
    }

    fn value_at_depth(&mut self, schema: &Value, path: &str) -> Result<Value, GenerateError> {
        let object = match schema {
            Value::Bool(true) => return Ok(Value::from(self.word())),
            Value::Bool(false) => return Err(error(path, "the schema `false` accepts nothing")),
            Value::Object(object) => object,
            _ => return Err(error(path, "a schema is an object or a boolean")),
        };
        if let Some(keyword) = UNSUPPORTED.iter().find(|k| object.contains_key(**k)) {
            return Err(error(&format!("{path}/{keyword}"), format!("`{keyword}` is not supported")));
        }
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let target = resolve(self.root, reference)
                .ok_or_else(|| error(&format!("{path}/$ref"), format!("{reference:?} points at nothing here")))?;
            let rest: Map<String, Value> =
                object.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), v.clone())).collect();
            if rest.keys().all(|k| is_annotation(k)) {
                return self.value(target, &format!("{path}/$ref"));
            }
            let merged = merge(&Value::Object(rest), target);
            return self.value(&merged, path);
        }
        if let Some(parts) = object.get("allOf").and_then(Value::as_array) {
            let rest: Map<String, Value> =
                object.iter().filter(|(k, _)| *k != "allOf").map(|(k, v)| (k.clone(), v.clone())).collect();
            let mut merged = Value::Object(rest);
            for part in parts {
                let part = match part.get("$ref").and_then(Value::as_str).and_then(|r| resolve(self.root, r)) {
                    Some(target) => target,
                    None => part,
                };
                merged = merge(&merged, part);
            }
            return self.value(&merged, path);
        }
        if let Some(constant) = object.get("const") {
            return Ok(constant.clone());
        }
        if let Some(choices) = object.get("enum").and_then(Value::as_array) {
            let rest = without(object, &["enum"]);
            let fitting: Vec<&Value> = choices.iter().filter(|c| is_valid_at(self.root, &rest, c)).collect();
            return match self.pick(&fitting) {
                Some(choice) => Ok((*choice).clone()),
                None => Err(error(&format!("{path}/enum"), "no value of `enum` satisfies the rest of the schema")),
            };
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(branches) = object.get(keyword).and_then(Value::as_array) {
                return self.one_of_branches(object, keyword, branches, path);
            }
        }
        let kind = self.pick_type(object, path)?;
        match kind.as_str() {
            "null" => Ok(Value::Null),
            "boolean" => Ok(Value::Bool(self.rng.chance(1, 2))),
            "integer" => self.number(object, path, true),
            "number" => self.number(object, path, false),
            "string" => self.string(object, path),
            "array" => self.array(object, path),
            "object" => self.object(object, path),
            other => Err(error(&format!("{path}/type"), format!("{other:?} is not a type"))),
        }
    }

    /// A branch of `oneOf` / `anyOf`, tried from a drawn one on, with the schema's other keywords: the first whose
    /// value satisfies the whole schema (for `oneOf`, exactly one branch).
    fn one_of_branches(
        &mut self,
        object: &Map<String, Value>,
        keyword: &str,
        branches: &[Value],
        path: &str,
    ) -> Result<Value, GenerateError> {
        if branches.is_empty() {
            return Err(error(&format!("{path}/{keyword}"), "no branch to choose"));
        }
        let rest = without(object, &[keyword]);
        let whole = Value::Object(object.clone());
        let first = self.rng.below(branches.len() as u64) as usize;
        let mut last = None;
        for offset in 0..branches.len() {
            let at = (first + offset) % branches.len();
            let Some(branch) = branches.get(at) else { continue };
            let branch = merge(&rest, branch);
            match self.value(&branch, &format!("{path}/{keyword}/{at}")) {
                Ok(value) if is_valid_at(self.root, &whole, &value) => return Ok(value),
                Ok(_) => {}
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| error(&format!("{path}/{keyword}"), "no branch gives a value the schema accepts")))
    }

    /// The type to draw: a listed one (not `null` when another is allowed), else the one the keywords imply.
    fn pick_type(&mut self, object: &Map<String, Value>, path: &str) -> Result<String, GenerateError> {
        let listed: Vec<String> = match object.get("type") {
            Some(Value::String(name)) => vec![name.to_ascii_lowercase()],
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).map(str::to_ascii_lowercase).collect(),
            Some(_) => return Err(error(&format!("{path}/type"), "`type` is a name or a list of names")),
            None => Vec::new(),
        };
        let non_null: Vec<&String> = listed.iter().filter(|t| *t != "null").collect();
        if let Some(kind) = self.pick(&non_null) {
            return Ok((*kind).clone());
        }
        if !listed.is_empty() {
            return Ok("null".into());
        }
        let has = |keys: &[&str]| keys.iter().any(|k| object.contains_key(*k));
        Ok(if has(&["properties", "required", "additionalProperties", "minProperties", "maxProperties"]) {
            "object"
        } else if has(&["items", "prefixItems", "minItems", "maxItems", "uniqueItems"]) {
            "array"
        } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
            "number"
        } else {
            "string"
        }
        .into())
    }

    fn word(&mut self) -> &'static str {
        self.pick(WORDS).copied().unwrap_or("amber")
    }

    /// One of `choices`, drawn; none of none.
    fn pick<'c, T>(&mut self, choices: &'c [T]) -> Option<&'c T> {
        choices.get(self.rng.below(choices.len() as u64) as usize)
    }

    fn number(&mut self, object: &Map<String, Value>, path: &str, integer: bool) -> Result<Value, GenerateError> {
        let bound = |key: &str| object.get(key).and_then(Value::as_f64);
        let exclusive_flag = |key: &str| object.get(key) == Some(&Value::Bool(true));
        let (mut low, mut high) = (f64::NEG_INFINITY, f64::INFINITY);
        let (mut low_open, mut high_open) = (false, false);
        if let Some(m) = bound("minimum") {
            (low, low_open) = (m, exclusive_flag("exclusiveMinimum"));
        }
        if let Some(m) = bound("exclusiveMinimum").filter(|m| *m >= low) {
            (low, low_open) = (m, true);
        }
        if let Some(m) = bound("maximum") {
            (high, high_open) = (m, exclusive_flag("exclusiveMaximum"));
        }
        if let Some(m) = bound("exclusiveMaximum").filter(|m| *m <= high) {
            (high, high_open) = (m, true);
        }
        // A readable window inside the bounds: 1 to 100 when free.
        match (low.is_finite(), high.is_finite()) {
            (false, false) => (low, high) = (1.0, 100.0),
            (true, false) => high = low + 100.0,
            (false, true) => low = high - 100.0,
            (true, true) => {}
        }
        let step = match (bound("multipleOf"), integer) {
            (Some(m), _) if m > 0.0 => m,
            (Some(_), _) => return Err(error(&format!("{path}/multipleOf"), "`multipleOf` is above 0")),
            (None, true) => 1.0,
            (None, false) => 0.5,
        };
        let integer_step = integer && step.fract() != 0.0;
        let step = if integer_step { lcm_with_one(step) } else { step };
        let mut first = (low / step).ceil();
        if low_open && first * step <= low {
            first += 1.0;
        }
        let mut last = (high / step).floor();
        if high_open && last * step >= high {
            last -= 1.0;
        }
        if first > last {
            if !integer && object.get("multipleOf").is_none() && (low < high || (!low_open && !high_open)) {
                // No half step fits a narrow open interval: its middle does.
                return Ok(number_value((low + high) / 2.0));
            }
            return Err(error(path, "no number fits the bounds"));
        }
        let count = (last - first).min(200.0) as u64;
        let k = first + self.rng.between(0, count) as f64;
        Ok(number_value(k * step))
    }

    fn string(&mut self, object: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let count = |key: &str| object.get(key).and_then(Value::as_u64).map(|n| n as usize);
        let (min, max) = (count("minLength").unwrap_or(0), count("maxLength"));
        if max.is_some_and(|max| max < min) {
            return Err(error(path, "`maxLength` is below `minLength`"));
        }
        if let Some(source) = object.get("pattern").and_then(Value::as_str) {
            let node = pattern::parse(source)
                .map_err(|problem| error(&format!("{path}/pattern"), format!("{source:?}: {problem}")))?;
            let mut text = String::new();
            pattern::generate(&node, &mut self.rng, &mut text);
            return Ok(Value::from(text));
        }
        if let Some(format) = object.get("format").and_then(Value::as_str) {
            if let Some(text) = self.formatted(format) {
                return Ok(Value::from(text));
            }
        }
        let max = max.unwrap_or(min.max(12) + 8);
        let mut text = String::from(self.word());
        while text.chars().count() < min {
            text.push(' ');
            text.push_str(self.word());
        }
        Ok(Value::from(text.chars().take(max).collect::<String>()))
    }

    /// A value of a known `format` (others are annotations: any string does).
    fn formatted(&mut self, format: &str) -> Option<String> {
        let (day, hour, minute) = (1 + self.rng.below(28), self.rng.below(24), self.rng.below(60));
        let month = 1 + self.rng.below(12);
        let word = self.word();
        Some(match format {
            "date" => format!("2026-{month:02}-{day:02}"),
            "date-time" => format!("2026-{month:02}-{day:02}T{hour:02}:{minute:02}:00Z"),
            "time" => format!("{hour:02}:{minute:02}:00Z"),
            "duration" => format!("PT{}M", 1 + minute),
            "email" => format!("{word}@example.com"),
            "hostname" => format!("{word}.example.com"),
            "uri" | "url" | "iri" => format!("https://example.com/{word}"),
            "uri-reference" | "iri-reference" => format!("/{word}"),
            "uuid" => {
                let (a, b) = (self.rng.next_u64(), self.rng.next_u64());
                format!(
                    "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
                    a >> 32,
                    (a >> 16) & 0xffff,
                    a & 0xfff,
                    8 + (b >> 62),
                    (b >> 48) & 0xfff,
                    b & 0xffff_ffff_ffff
                )
            }
            "ipv4" => format!("192.0.2.{}", 1 + self.rng.below(254)),
            "ipv6" => format!("2001:db8::{:x}", 1 + self.rng.below(0xfffe)),
            _ => return None,
        })
    }

    fn array(&mut self, object: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let count = |key: &str| object.get(key).and_then(Value::as_u64).map(|n| n as usize);
        let (tuple, rest) = item_schemas(object);
        let rest = rest.cloned().unwrap_or(Value::Bool(true));
        let min = count("minItems").unwrap_or(0);
        let max = count("maxItems").unwrap_or(usize::MAX);
        if max < min {
            return Err(error(path, "`maxItems` is below `minItems`"));
        }
        let wanted = if self.depth > SHALLOW_FROM { min } else { min.max(1) + self.rng.below(2) as usize };
        let mut length = wanted.max(min).min(max);
        if rest == Value::Bool(false) {
            length = length.min(tuple.len());
        }
        let unique = object.get("uniqueItems") == Some(&Value::Bool(true));
        let mut items: Vec<Value> = Vec::with_capacity(length);
        for i in 0..length {
            let (schema, at) = match tuple.get(i) {
                Some(schema) => (schema, format!("{path}/prefixItems/{i}")),
                None => (&rest, format!("{path}/items")),
            };
            let mut item = self.value(schema, &at)?;
            for _ in 0..8 {
                if !unique || !items.iter().any(|earlier| same(earlier, &item)) {
                    break;
                }
                item = self.value(schema, &at)?;
            }
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn object(&mut self, object: &Map<String, Value>, path: &str) -> Result<Value, GenerateError> {
        let empty = Map::new();
        let properties = object.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).collect());
        let additional = object.get("additionalProperties").cloned().unwrap_or(Value::Bool(true));
        let count = |key: &str| object.get(key).and_then(Value::as_u64).map(|n| n as usize);
        let (min, max) = (count("minProperties").unwrap_or(0), count("maxProperties").unwrap_or(usize::MAX));
        let mut out = Map::new();
        for name in &required {
            let (schema, at) = match properties.get(*name) {
                Some(schema) => (schema, format!("{path}/properties/{name}")),
                None if additional == Value::Bool(false) => {
                    return Err(error(&format!("{path}/required"), format!("{name:?} is required but not allowed")));
                }
                None => (&additional, format!("{path}/additionalProperties")),
            };
            out.insert((*name).to_string(), self.value(schema, &at)?);
        }
        let shallow = self.depth > SHALLOW_FROM;
        for (name, schema) in properties {
            if out.contains_key(name) || out.len() >= max {
                continue;
            }
            let wanted = out.len() < min || (!shallow && self.rng.chance(1, 2));
            if wanted && *schema != Value::Bool(false) {
                out.insert(name.clone(), self.value(schema, &format!("{path}/properties/{name}"))?);
            }
        }
        let mut extra = 0;
        while out.len() < min && out.len() < max && additional != Value::Bool(false) {
            extra += 1;
            let name = format!("{}_{extra}", self.word());
            if !properties.contains_key(&name) {
                out.insert(name, self.value(&additional, &format!("{path}/additionalProperties"))?);
            }
        }
        if out.len() < min || out.len() > max {
            return Err(error(path, "no set of properties fits `minProperties` / `maxProperties`"));
        }
        Ok(Value::Object(out))
    }
}

/// Keywords that change nothing about which values are valid.
fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "description" | "title" | "examples" | "default" | "$comment" | "deprecated" | "readOnly" | "writeOnly"
    )
}

/// The schema's keywords but `drop`.
fn without(object: &Map<String, Value>, drop: &[&str]) -> Value {
    Value::Object(
        object.iter().filter(|(k, _)| !drop.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect(),
    )
}

/// Two schemas as one (`allOf`, a branch with its parent's keywords): properties merged, `required` joined, types
/// intersected, the tighter bound of each kind kept; another keyword present in both keeps the second's value, and
/// the final check catches what that loses.
fn merge(base: &Value, extra: &Value) -> Value {
    let (Some(base), Some(extra)) = (base.as_object(), extra.as_object()) else {
        return if extra.is_object() { extra.clone() } else { base.clone() };
    };
    let mut out = base.clone();
    for (key, value) in extra {
        let merged = match (key.as_str(), out.get(key)) {
            (_, None) => value.clone(),
            ("properties", Some(Value::Object(mine))) => {
                let mut properties = mine.clone();
                for (name, schema) in value.as_object().into_iter().flatten() {
                    let joined = match properties.get(name) {
                        Some(existing) => merge(existing, schema),
                        None => schema.clone(),
                    };
                    properties.insert(name.clone(), joined);
                }
                Value::Object(properties)
            }
            ("required", Some(Value::Array(mine))) => {
                let mut names = mine.clone();
                for name in value.as_array().into_iter().flatten() {
                    if !names.contains(name) {
                        names.push(name.clone());
                    }
                }
                Value::Array(names)
            }
            ("type", Some(mine)) => {
                let names = |v: &Value| -> Vec<Value> {
                    match v {
                        Value::Array(list) => list.clone(),
                        other => vec![other.clone()],
                    }
                };
                let theirs = names(value);
                let common: Vec<Value> =
                    names(mine).into_iter().filter(|t| theirs.iter().any(|u| same_type(t, u))).collect();
                Value::Array(common)
            }
            ("minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties", Some(mine)) => {
                tighter(mine, value, f64::max)
            }
            ("maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties", Some(mine)) => {
                tighter(mine, value, f64::min)
            }
            ("items" | "additionalProperties", Some(mine)) if mine.is_object() && value.is_object() => {
                merge(mine, value)
            }
            _ => value.clone(),
        };
        out.insert(key.clone(), merged);
    }
    Value::Object(out)
}

/// `integer` and `number` overlap as integers.
fn same_type(a: &Value, b: &Value) -> bool {
    let lower = |v: &Value| v.as_str().map(str::to_ascii_lowercase).unwrap_or_default();
    let (a, b) = (lower(a), lower(b));
    a == b || (a == "integer" && b == "number") || (a == "number" && b == "integer")
}

fn tighter(a: &Value, b: &Value, pick: fn(f64, f64) -> f64) -> Value {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => number_value(pick(x, y)),
        _ => b.clone(),
    }
}

/// A number as JSON: an integer when it is one (and fits), else a float.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::from(n as i64)
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// The smallest multiple of a fractional step that is an integer (0.25 gives 1), for integers that are multiples.
fn lcm_with_one(step: f64) -> f64 {
    (1..=1000).map(|k| step * f64::from(k)).find(|m| (m - m.round()).abs() < 1e-9).map_or(step, f64::round)
}
