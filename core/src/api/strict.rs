//! Host data into core types with one rule serde's derive does not keep: a struct is read from an object only.
//!
//! A derived `Deserialize` also reads a struct from an array, field by field in declaration order, so
//! `["0.0.0.0", 0]` given as server options would bind every interface, and `["rate_limit", 429]` would be a
//! failure. Nobody writes those on purpose: every binding reads its data through [`deserialize_data`], which
//! refuses an array where an object is expected, at any depth, with the path of the field.

use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde_json::{Map, Value};

/// Why host data does not fit a type: the path of the field (`.` for the whole value) and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// Where, as serde_path_to_error writes it (`routes[0].steps[1].fail.kind`, or `.`).
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl DataError {
    /// ` at <path>` for a field, nothing for the whole value: the tail of "invalid <argument>" in every binding.
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
    serde_path_to_error::deserialize(ObjectsOnly(json))
        .map_err(|e| DataError { path: e.path().to_string(), message: e.inner().to_string() })
}

/// A deserializer over a JSON value that reads structs from objects only; everything else is as serde_json's own.
struct ObjectsOnly<'a>(&'a Value);

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
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => visitor.visit_u64(u),
                (None, Some(i), _) => visitor.visit_i64(i),
                (_, _, Some(f)) => visitor.visit_f64(f),
                _ => Err(de::Error::custom("a number out of range")),
            },
            Value::String(s) => visitor.visit_str(s),
            Value::Array(items) => visitor.visit_seq(Items(items.iter())),
            Value::Object(map) => visitor.visit_map(Entries { entries: map.iter(), value: None }),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
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
        match self.0 {
            Value::String(variant) => visitor.visit_enum(variant.as_str().into_deserializer()),
            Value::Object(map) if map.len() == 1 => visitor.visit_enum(Variant(map)),
            other => Err(de::Error::invalid_type(unexpected(other), &"a variant name, or an object of one variant")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct seq
        tuple tuple_struct map identifier
    }
}

struct Items<'a>(std::slice::Iter<'a, Value>);

impl<'de> de::SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|item| seed.deserialize(ObjectsOnly(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries<'a> {
    entries: serde_json::map::Iter<'a>,
    value: Option<&'a Value>,
}

impl<'de> de::MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some(value);
        seed.deserialize(key.as_str().into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(ObjectsOnly(value)),
            None => Err(de::Error::custom("a map value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum variant: `{"name": content}`.
struct Variant<'a>(&'a Map<String, Value>);

impl<'de, 'a> de::EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = ObjectsOnly<'a>;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, ObjectsOnly<'a>), Error> {
        let Some((name, content)) = self.0.iter().next() else {
            return Err(de::Error::custom("an enum object without a variant"));
        };
        let variant = seed.deserialize(name.as_str().into_deserializer())?;
        Ok((variant, ObjectsOnly(content)))
    }
}

impl<'de> de::VariantAccess<'de> for ObjectsOnly<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(unexpected(other), &"no content (a unit variant)")),
        }
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(self, fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_struct_is_read_from_an_object_only_at_any_depth() {
        let by_position = deserialize_data::<crate::ServerOptions>(&json!(["0.0.0.0", 0])).unwrap_err();
        assert_eq!(by_position.path, ".");
        assert!(
            by_position.message.starts_with("invalid type: sequence, expected struct ServerOptions"),
            "{by_position:?}"
        );
        let options: crate::ServerOptions = deserialize_data(&json!({"port": 0, "instant": true})).unwrap();
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
}
