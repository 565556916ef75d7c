//! Host data into core types with one rule serde's derive does not keep: a struct is read from an object only.
//!
//! A derived `Deserialize` also reads a struct from an array, field by field in declaration order, so
//! `["0.0.0.0", 0]` given as server options would bind every interface, and `["rate_limit", 429]` would be a
//! failure. Nobody writes those on purpose: every binding reads its data through [`deserialize_data`], which
//! refuses an array where an object is expected, at any depth, with the path of the field.

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;

/// Why host data does not fit a type: the path of the field (`.` for the whole value) and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// Where, as serde_path_to_error writes it (`routes[0].steps[1].fail.kind`, or `.`).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl DataError {
    /// ` at <path>` for a field, nothing for the whole value: the tail of `"invalid <argument>"` in every binding.
    pub fn location(&self) -> String {
        if self.path == "." {
            String::new()
        } else {
            format!(" at {}", self.path)
        }
    }
}

/// `json` as a `T`, refusing an array where `T` (or any struct inside it) expects an object.
pub fn deserialize_data<T: DeserializeOwned>(json: &Value) -> Result<T, DataError> {
    let trail = Trail::default();
    T::deserialize(ObjectsOnly { value: json, depth: 0, trail: &trail })
        .map_err(|e| DataError { path: trail.path(), message: in_plain_words(e.to_string()) })
}

/// serde's words for what was expected, in those of a scenario's or a binding's writer: a derived struct is
/// "expected struct Chaos", which means an object of fields to anyone writing YAML, JSON, a dict or a JS object.
pub(crate) fn in_plain_words(message: String) -> String {
    const RUST: [(&str, &str); 6] = [
        ("internally tagged enum ", "a mapping of fields (an object)"),
        ("adjacently tagged enum ", "a mapping of fields (an object)"),
        ("tuple struct ", "a list"),
        ("unit struct ", "null"),
        ("struct ", "a mapping of fields (an object)"),
        ("enum ", "one of its names"),
    ];
    let mut message = message;
    for (rust, plain) in RUST {
        let pattern = format!("expected {rust}");
        while let Some(at) = message.find(&pattern) {
            let name_at = at + pattern.len();
            let rest = message.get(name_at..).unwrap_or_default();
            let name = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            message.replace_range(at..name_at + name, &format!("expected {plain}"));
        }
    }
    message
}

/// Where the error being returned happened: the reader notes one segment per level as the error travels up, so
/// the path costs nothing until something is wrong. (serde_path_to_error wraps every visitor instead, which made
/// a second copy of every type's deserializer: 150 KB of the WASM module before optimisation.)
#[derive(Default)]
struct Trail(RefCell<Vec<(usize, Segment)>>);

enum Segment {
    Index(usize),
    Key(String),
}

impl Trail {
    /// Notes `segment` at `depth` for an error travelling up. An error that travels up notes strictly smaller
    /// depths; a note at a depth not smaller than the last one starts a new error, so what an error a visitor
    /// caught and dropped had noted is forgotten.
    fn note<E>(&self, depth: usize, segment: Segment, error: E) -> E {
        let mut notes = self.0.borrow_mut();
        if notes.last().is_some_and(|(last, _)| *last <= depth) {
            notes.clear();
        }
        notes.push((depth, segment));
        error
    }

    /// As serde_path_to_error writes it: `routes[0].steps[1].fail.kind`, or `.` for the whole value.
    fn path(&self) -> String {
        let notes = self.0.borrow();
        if notes.is_empty() {
            return ".".into();
        }
        let mut path = String::new();
        for (_, segment) in notes.iter().rev() {
            match segment {
                Segment::Index(index) => path.push_str(&format!("[{index}]")),
                Segment::Key(key) => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
            }
        }
        path
    }
}

/// A deserializer over a JSON value that reads structs from objects only; everything else is as serde_json's own.
#[derive(Clone, Copy)]
struct ObjectsOnly<'a> {
    value: &'a Value,
    depth: usize,
    trail: &'a Trail,
}

impl<'a> ObjectsOnly<'a> {
    fn inner(&self, value: &'a Value) -> ObjectsOnly<'a> {
        ObjectsOnly { value, depth: self.depth + 1, trail: self.trail }
    }
}
type Error = serde_json::Error;

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => de::Unexpected::Unsigned(u),
            (None, Some(i)) => de::Unexpected::Signed(i),
            _ => de::Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

impl<'de, 'a> de::Deserializer<'de> for ObjectsOnly<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (_, _, Some(f)) => visitor.visit_f64(f),
                _ => Err(de::Error::custom("a number out of range")),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visitor.visit_seq(Items { items: items.iter().enumerate(), reader: self }),
            Value::Object(map) => visitor.visit_map(Entries { entries: map.iter(), value: None, reader: self }),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::String(variant) => visitor.visit_enum(variant.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => visitor.visit_enum(Variant { map, reader: self }),
            other => Err(de::Error::invalid_type(unexpected(other), &"a variant name, or an object of one variant")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    /// A variant's name (an internally tagged enum's tag: `{"check": ...}`) is text only. serde's derived visitor
    /// would take an integer as the variant's index, so `{"check": 1}` ran the second check (issue #59, S16).
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::String(name) => visitor.visit_str(name),
            other => Err(de::Error::invalid_type(unexpected(other), &"a variant name")),
        }
    }

    /// A tuple (a header's name and value) from an array of exactly its length: serde's visitor stops reading at
    /// the length, so `["a", "b", "c"]` was a header with its third item dropped (issue #59, S17).
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) if items.len() != len => Err(de::Error::invalid_length(items.len(), &visitor)),
            _ => self.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct seq
        tuple_struct map
    }
}

struct Items<'a> {
    items: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
    reader: ObjectsOnly<'a>,
}

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some((index, item)) = self.items.next() else { return Ok(None) };
        let reader = self.reader;
        seed.deserialize(reader.inner(item))
            .map(Some)
            .map_err(|e| reader.trail.note(reader.depth, Segment::Index(index), e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<'a> {
    entries: serde_json::map::Iter<'a>,
    /// The entry whose key was read last, for its value.
    value: Option<(&'a String, &'a Value)>,
    reader: ObjectsOnly<'a>,
}

impl<'de> de::MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some((key, value));
        let reader = self.reader;
        seed.deserialize(key.as_str().into_deserializer())
            .map(Some)
            .map_err(|e| reader.trail.note(reader.depth, Segment::Key(key.clone()), e))
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("a map value was asked for before its key"));
        };
        let reader = self.reader;
        seed.deserialize(reader.inner(value)).map_err(|e| reader.trail.note(reader.depth, Segment::Key(key.clone()), e))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum variant: `{"name": content}`.
struct Variant<'a> {
    map: &'a Map<String, Value>,
    reader: ObjectsOnly<'a>,
}

/// A variant's content, and its name for the path of an error inside it.
struct VariantContent<'a> {
    name: &'a String,
    content: ObjectsOnly<'a>,
    reader: ObjectsOnly<'a>,
}

impl VariantContent<'_> {
    fn note(&self, error: Error) -> Error {
        self.reader.trail.note(self.reader.depth, Segment::Key(self.name.clone()), error)
    }
}

impl<'de, 'a> de::EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = VariantContent<'a>;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, VariantContent<'a>), Error> {
        let Some((name, content)) = self.map.iter().next() else {
            return Err(de::Error::custom("an enum object without a variant"));
        };
        let variant = seed.deserialize(name.as_str().into_deserializer())?;
        Ok((variant, VariantContent { name, content: self.reader.inner(content), reader: self.reader }))
    }
}

impl<'de> de::VariantAccess<'de> for VariantContent<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.content.value {
            Value::Null => Ok(()),
            other => Err(self.note(de::Error::invalid_type(unexpected(other), &"no content (a unit variant)"))),
        }
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.content).map_err(|e| self.note(e))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self.content, visitor).map_err(|e| self.note(e))
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self.content, "", fields, visitor).map_err(|e| self.note(e))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn serde_words_for_rust_types_become_the_writers_words() {
        use super::in_plain_words;
        assert_eq!(
            in_plain_words("invalid type: string \"x\", expected struct Chaos".into()),
            "invalid type: string \"x\", expected a mapping of fields (an object)"
        );
        assert_eq!(
            in_plain_words("expected tuple struct Pair, expected enum Mode".into()),
            "expected a list, expected one of its names"
        );
        assert_eq!(
            in_plain_words("unknown variant `x`, expected one of `a`".into()),
            "unknown variant `x`, expected one of `a`"
        );
    }

    use super::*;
    use serde_json::json;

    #[test]
    #[cfg(feature = "server")] // ServerOptions is the struct read here
    fn a_struct_is_read_from_an_object_only_at_any_depth() {
        let by_position = deserialize_data::<crate::server::ServerOptions>(&json!(["0.0.0.0", 0])).unwrap_err();
        assert_eq!(by_position.path, ".");
        assert!(
            by_position.message.starts_with("invalid type: sequence, expected a mapping of fields (an object)"),
            "{by_position:?}"
        );
        let options: crate::server::ServerOptions = deserialize_data(&json!({"port": 0, "instant": true})).unwrap();
        assert!(options.instant && options.host.is_loopback());

        let nested = deserialize_data::<crate::api::StepSpec>(&json!({"text": "x", "fail_after": ["rate_limit"]}));
        let nested = nested.unwrap_err();
        assert_eq!(nested.path, "fail_after", "{nested:?}");
        assert!(nested.message.contains("invalid type: sequence"), "{nested:?}");
    }

    #[test]
    fn everything_else_reads_as_serde_json_reads_it() {
        let step: crate::api::StepSpec = deserialize_data(&json!({
            "tool_calls": [{"name": "f", "arguments": {"city": "Paris", "days": [1, -2, 2.5]}}],
            "fail_after": {"kind": "rate_limited", "status": 429},
            "delay_ms": 5
        }))
        .unwrap();
        let expected: crate::api::StepSpec = serde_json::from_value(json!({
            "tool_calls": [{"name": "f", "arguments": {"city": "Paris", "days": [1, -2, 2.5]}}],
            "fail_after": {"kind": "rate_limited", "status": 429},
            "delay_ms": 5
        }))
        .unwrap();
        assert_eq!(format!("{step:?}"), format!("{expected:?}"));
        let typo = deserialize_data::<crate::api::FailSpec>(&json!({"kind": "rate_limit"})).unwrap_err();
        assert_eq!(typo.path, "kind");
        assert!(typo.message.starts_with("unknown variant `rate_limit`"), "{typo:?}");
        let settings: crate::MockSettings =
            deserialize_data(&json!({"usage": "estimate", "journal_limit": null})).unwrap();
        assert_eq!(settings, serde_json::from_value(json!({"usage": "estimate", "journal_limit": null})).unwrap());
    }

    #[test]
    fn the_path_names_keys_positions_and_variants_as_serde_path_to_error_did() {
        let error = deserialize_data::<crate::api::StepSpec>(&json!({"tool_calls": [{"name": "f"}, {"name": 5}]}));
        let error = error.unwrap_err();
        assert_eq!(error.path, "tool_calls[1].name", "{error:?}");
        assert!(error.message.starts_with("invalid type: integer `5`, expected a string"), "{error:?}");
        let unknown = deserialize_data::<crate::api::FailSpec>(&json!({"kind": "rate_limited", "stauts": 1}));
        assert_eq!(unknown.unwrap_err().path, "stauts");
        let root = deserialize_data::<Vec<u32>>(&json!([1, null])).unwrap_err();
        assert_eq!((root.path.as_str(), root.message.as_str()), ("[1]", "invalid type: null, expected u32"));
        let whole = deserialize_data::<u32>(&json!("x")).unwrap_err();
        assert_eq!(whole.path, ".");
    }

    #[test]
    fn an_error_a_visitor_dropped_leaves_nothing_in_the_path() {
        // A visitor that catches an error and goes on leaves its notes behind; the next error starts afresh.
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer {
            first: Vec<u32>,
            second: Vec<u32>,
        }
        let trail = Trail::default();
        trail.note(3, Segment::Key("stale".into()), ());
        trail.note(1, Segment::Index(0), ());
        trail.note(2, Segment::Key("fresh".into()), ());
        assert_eq!(trail.path(), "fresh");
        let error = deserialize_data::<Outer>(&json!({"first": [1], "second": [2, "x"]})).unwrap_err();
        assert_eq!(error.path, "second[1]");
    }

    /// Issue #59: S16, a check named by an integer ran the check at that index (through the face and the admin
    /// surface); S17, a header of three items was read as its first two.
    #[test]
    fn a_variant_name_is_text_only_and_a_tuple_has_exactly_its_length() {
        use crate::verify::Check;
        let by_index = deserialize_data::<Check>(&json!({"check": 1})).unwrap_err();
        assert_eq!(by_index.message, "invalid type: integer `1`, expected a variant name", "{by_index:?}");
        assert!(deserialize_data::<Check>(&json!({"check": "all_steps_used"})).is_ok());
        assert!(crate::input::read_json_text::<Check>(r#"{"check": 1}"#, 64).is_none(), "the fast path agrees");
        let mock = crate::mock::MockModel::new();
        let reply =
            crate::wire::handle(&mock, &crate::http::HttpRequest::post_json("/_cuecard/checks", r#"[{"check": 1}]"#));
        assert_eq!(reply.status(), 400, "{}", reply.body_text());
        assert!(reply.body_text().contains("expected a variant name"), "{}", reply.body_text());

        let three = deserialize_data::<Vec<(String, String)>>(&json!([["a", "b"], ["a", "b", "c"]])).unwrap_err();
        assert_eq!(
            (three.path.as_str(), three.message.as_str()),
            ("[1]", "invalid length 3, expected a tuple of size 2")
        );
        let two: Vec<(String, String)> = deserialize_data(&json!([["a", "b"]])).unwrap();
        assert_eq!(two, vec![("a".to_string(), "b".to_string())]);
    }
}
