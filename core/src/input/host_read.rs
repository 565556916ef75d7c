//! The fast path from host data to a core type: a serde deserializer over the host's own values, so a call does
//! not first build a `serde_json::Value` (the walker of [`super::host_data`]) and then read that (the reader of
//! [`super::strict`]). In a Python `chat(dict)` call those two steps were 17k of the 27k instructions spent in
//! the module.
//!
//! It reads exactly as the two steps together read, or gives up: [`read_host`] returns `None` on anything the
//! walker refuses (NaN or an infinity, a non-text key, text that is not valid Unicode, nesting deeper than
//! [`MAX_DEPTH`], which every cycle reaches) and on anything the type refuses. The caller then takes the canonical
//! path, whose errors name the argument and the path in every binding's words ([`from_host`] does both). So the
//! fast path decides nothing that the canonical path would decide differently; it only makes success cheaper.

use super::host_data::{data_from_json, to_json, HostNode, HostValue, MAX_DEPTH};
use crate::error::Result;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::fmt;

/// `value` as a `T` by the canonical rules, the fast way when it fits: the same result and the same error as
/// `data_from_json(to_json(value, argument)?, argument)`.
pub fn from_host<T: DeserializeOwned, H: HostValue>(value: &H, argument: &str) -> Result<T> {
    match read_host(value) {
        Some(data) => Ok(data),
        None => data_from_json(to_json(value, argument)?, argument),
    }
}

/// `value` read straight into a `T`, or `None` when the canonical path must say what is wrong with it.
pub fn read_host<T: DeserializeOwned, H: HostValue>(value: &H) -> Option<T> {
    read_host_node(value.read().ok()?)
}

/// As [`read_host`], for a value whose top level the caller has read already (to look at it first).
pub fn read_host_node<T: DeserializeOwned, H: HostValue>(node: HostNode<H>) -> Option<T> {
    let reader = Reader::of_node(node, 0).ok()?;
    T::deserialize(reader).ok()
}

/// Why the fast path gave up; never shown, since the canonical path then runs and explains.
#[derive(Debug)]
pub struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fast path gave up")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<T: fmt::Display>(_message: T) -> GiveUp {
        GiveUp
    }
}

/// One host value, read one level deep, with the number of containers around it (`depth`).
struct Reader<H> {
    node: HostNode<H>,
    depth: usize,
}

impl<H: HostValue> Reader<H> {
    /// `node` at `depth`: a container on a level deeper than [`MAX_DEPTH`] gives up, as the walker refuses it.
    fn of_node(node: HostNode<H>, depth: usize) -> std::result::Result<Reader<H>, GiveUp> {
        let container = matches!(node, HostNode::List(_) | HostNode::Map(_));
        if container && depth + 1 > MAX_DEPTH {
            return Err(GiveUp);
        }
        Ok(Reader { node, depth })
    }

    fn of(value: &H, depth: usize) -> std::result::Result<Reader<H>, GiveUp> {
        Reader::of_node(value.read().map_err(|_| GiveUp)?, depth)
    }

    /// Everything inside an ignored value is still checked by the walker's rules.
    fn check_whole(self) -> std::result::Result<(), GiveUp> {
        match self.node {
            HostNode::Float(f) if !f.is_finite() => Err(GiveUp),
            HostNode::List(items) => items.iter().try_for_each(|item| Reader::of(item, self.depth + 1)?.check_whole()),
            HostNode::Map(entries) => {
                entries.iter().try_for_each(|(_, item)| Reader::of(item, self.depth + 1)?.check_whole())
            }
            _ => Ok(()),
        }
    }
}

impl<'de, H: HostValue> de::Deserializer<'de> for Reader<H> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, GiveUp> {
        // Numbers as a JSON value holds them: a non-negative integer is a u64, a negative one an i64.
        match self.node {
            HostNode::Null => visitor.visit_unit(),
            HostNode::Bool(b) => visitor.visit_bool(b),
            HostNode::Int(i) if i >= 0 => visitor.visit_u64(i as u64),
            HostNode::Int(i) => visitor.visit_i64(i),
            HostNode::UInt(u) => visitor.visit_u64(u),
            HostNode::Float(f) if f.is_finite() => visitor.visit_f64(f),
            HostNode::Float(_) => Err(GiveUp),
            HostNode::Str(s) => visitor.visit_string(s),
            HostNode::List(items) => {
                let mut access = Items { items: items.into_iter(), depth: self.depth + 1 };
                let value = visitor.visit_seq(&mut access)?;
                // The reader of a JSON value leaves extra items unread; give up rather than leave them unchecked.
                if access.items.len() > 0 {
                    return Err(GiveUp);
                }
                Ok(value)
            }
            HostNode::Map(entries) => {
                let mut access = Entries { entries: entries.into_iter(), value: None, depth: self.depth + 1 };
                let value = visitor.visit_map(&mut access)?;
                if access.entries.len() > 0 || access.value.is_some() {
                    return Err(GiveUp);
                }
                Ok(value)
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, GiveUp> {
        // A struct from an object only, never from a list by position (see `strict`).
        match self.node {
            HostNode::Map(_) => self.deserialize_any(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, GiveUp> {
        match self.node {
            HostNode::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, GiveUp> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, GiveUp> {
        match self.node {
            HostNode::Str(variant) => visitor.visit_enum(variant.into_deserializer()),
            HostNode::Map(mut entries) if entries.len() == 1 => {
                let (name, content) = entries.pop().ok_or(GiveUp)?;
                visitor.visit_enum(Variant { name, content, depth: self.depth + 1 })
            }
            _ => Err(GiveUp),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, GiveUp> {
        self.check_whole()?;
        visitor.visit_unit()
    }

    // A variant's name is text only, as the canonical reader has it (anything else gives up, and that reader says
    // what is wrong).
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, GiveUp> {
        match self.node {
            HostNode::Str(name) => visitor.visit_string(name),
            _ => Err(GiveUp),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct seq
        tuple tuple_struct map
    }
}

struct Items<H> {
    items: std::vec::IntoIter<H>,
    depth: usize,
}

impl<'de, H: HostValue> de::SeqAccess<'de> for Items<H> {
    type Error = GiveUp;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> std::result::Result<Option<T::Value>, GiveUp> {
        match self.items.next() {
            Some(item) => seed.deserialize(Reader::of(&item, self.depth)?).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Entries<H> {
    entries: std::vec::IntoIter<(String, H)>,
    /// The value of the entry whose key was read last.
    value: Option<H>,
    depth: usize,
}

impl<'de, H: HostValue> de::MapAccess<'de> for Entries<H> {
    type Error = GiveUp;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> std::result::Result<Option<K::Value>, GiveUp> {
        let Some((key, value)) = self.entries.next() else { return Ok(None) };
        self.value = Some(value);
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> std::result::Result<V::Value, GiveUp> {
        let value = self.value.take().ok_or(GiveUp)?;
        seed.deserialize(Reader::of(&value, self.depth)?)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// An externally tagged enum variant: `{"name": content}`.
struct Variant<H> {
    name: String,
    content: H,
    /// The depth of the content (inside the one-entry object).
    depth: usize,
}

impl<'de, H: HostValue> de::EnumAccess<'de> for Variant<H> {
    type Error = GiveUp;
    type Variant = Reader<H>;

    fn variant_seed<V: de::DeserializeSeed<'de>>(self, seed: V) -> std::result::Result<(V::Value, Reader<H>), GiveUp> {
        let variant = seed.deserialize(self.name.into_deserializer())?;
        Ok((variant, Reader::of(&self.content, self.depth)?))
    }
}

impl<'de, H: HostValue> de::VariantAccess<'de> for Reader<H> {
    type Error = GiveUp;

    fn unit_variant(self) -> std::result::Result<(), GiveUp> {
        match self.node {
            HostNode::Null => Ok(()),
            _ => Err(GiveUp),
        }
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> std::result::Result<T::Value, GiveUp> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> std::result::Result<V::Value, GiveUp> {
        de::Deserializer::deserialize_seq(self, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, GiveUp> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{RequestInput, StepSpec};
    use crate::model::ChatRequest;
    use crate::verify::Check;
    use proptest::prelude::*;
    use serde_json::Value;

    /// A test host: JSON-like trees, plus what the walker refuses.
    #[derive(Clone, Debug)]
    enum Tree {
        Null,
        Bool(bool),
        Int(i64),
        UInt(u64),
        Float(f64),
        Str(String),
        BadText,
        BadKey,
        List(Vec<Tree>),
        Map(Vec<(String, Tree)>),
    }

    impl HostValue for Tree {
        fn read(&self) -> std::result::Result<HostNode<Tree>, crate::input::HostReadError> {
            use crate::input::HostReadError;
            Ok(match self {
                Tree::Null => HostNode::Null,
                Tree::Bool(b) => HostNode::Bool(*b),
                Tree::Int(i) => HostNode::Int(*i),
                Tree::UInt(u) => HostNode::UInt(*u),
                Tree::Float(f) => HostNode::Float(*f),
                Tree::Str(s) => HostNode::Str(s.clone()),
                Tree::BadText => return Err(HostReadError::lone_surrogate()),
                Tree::BadKey => return Err(HostReadError::KeyNotText("int".into())),
                Tree::List(items) => HostNode::List(items.clone()),
                Tree::Map(entries) => HostNode::Map(entries.clone()),
            })
        }
    }

    fn tree_of(value: &Value) -> Tree {
        match value {
            Value::Null => Tree::Null,
            Value::Bool(b) => Tree::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => Tree::Int(i),
                (None, Some(u), _) => Tree::UInt(u),
                (_, _, f) => Tree::Float(f.unwrap_or(f64::NAN)),
            },
            Value::String(s) => Tree::Str(s.clone()),
            Value::Array(items) => Tree::List(items.iter().map(tree_of).collect()),
            Value::Object(map) => Tree::Map(map.iter().map(|(k, v)| (k.clone(), tree_of(v))).collect()),
        }
    }

    /// The fast path and the canonical one agree: the same value or the same error.
    /// The fast path and the canonical one agree: the same value or the same error. Whether the fast path read it.
    fn agrees<T: DeserializeOwned + fmt::Debug + PartialEq>(tree: &Tree) -> std::result::Result<bool, TestCaseError> {
        let canonical = to_json(tree, "data").and_then(|json| data_from_json::<T>(json, "data"));
        let fast = read_host::<T, Tree>(tree);
        if let Some(fast) = &fast {
            prop_assert_eq!(Some(fast), canonical.as_ref().ok(), "the fast path read what the canonical refused");
        }
        let both = from_host::<T, Tree>(tree, "data");
        prop_assert_eq!(format!("{both:?}"), format!("{canonical:?}"));
        Ok(fast.is_some())
    }

    fn request_agrees(tree: &Tree) -> std::result::Result<(), TestCaseError> {
        let canonical = to_json(tree, "request").and_then(|json| RequestInput::from_value(json).into_request());
        let fast = RequestInput::from_host(tree, "request");
        prop_assert_eq!(format!("{fast:?}"), format!("{canonical:?}"));
        Ok(())
    }

    const KEYS: &[&str] = &[
        "model",
        "messages",
        "role",
        "content",
        "type",
        "text",
        "tools",
        "name",
        "parameters",
        "tool_choice",
        "temperature",
        "max_tokens",
        "stop",
        "seed",
        "stream",
        "metadata",
        "operation",
        "tool_calls",
        "id",
        "arguments",
        "kind",
        "status",
        "fail",
        "usage",
        "journal_limit",
        "delay_ms",
        "image_url",
        "url",
    ];
    const TEXTS: &[&str] =
        &["user", "assistant", "system", "tool", "text", "auto", "none", "function", "hi", "rate_limited", "m"];

    fn tree() -> impl Strategy<Value = Tree> {
        let leaf = prop_oneof![
            Just(Tree::Null),
            any::<bool>().prop_map(Tree::Bool),
            prop_oneof![Just(-3i64), Just(0), Just(1), Just(429), Just(i64::MAX)].prop_map(Tree::Int),
            Just(Tree::UInt(u64::MAX)),
            prop_oneof![Just(0.5), Just(2.0), Just(-0.0), Just(f64::NAN), Just(f64::INFINITY)].prop_map(Tree::Float),
            proptest::sample::select(TEXTS).prop_map(|t| Tree::Str(t.to_string())),
            Just(Tree::BadText),
            Just(Tree::BadKey),
        ];
        leaf.prop_recursive(5, 48, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Tree::List),
                proptest::collection::vec((proptest::sample::select(KEYS).prop_map(String::from), inner), 0..4)
                    .prop_map(Tree::Map),
            ]
        })
    }

    /// A request that reads: a model, and messages of every role and content shape.
    fn request_tree() -> impl Strategy<Value = Tree> {
        let role = proptest::sample::select(&["user", "assistant", "system", "tool", "developer"][..]);
        let content = prop_oneof![
            proptest::sample::select(TEXTS).prop_map(|t| Tree::Str(t.into())),
            tree(),
            Just(Tree::List(vec![Tree::Map(vec![
                ("type".into(), Tree::Str("text".into())),
                ("text".into(), Tree::Str("hi".into())),
            ])])),
        ];
        let message = (role, content).prop_map(|(role, content)| {
            Tree::Map(vec![("role".into(), Tree::Str(role.into())), ("content".into(), content)])
        });
        (proptest::collection::vec(message, 0..3), proptest::option::of(tree())).prop_map(|(messages, extra)| {
            let mut entries =
                vec![("model".to_string(), Tree::Str("m".into())), ("messages".into(), Tree::List(messages))];
            if let Some(extra) = extra {
                entries.push(("temperature".into(), extra));
            }
            Tree::Map(entries)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn any_tree_reads_as_the_walker_and_the_strict_reader_read_it(tree in tree()) {
            agrees::<Value>(&tree)?;
            agrees::<StepSpec>(&tree)?;
            agrees::<Check>(&tree)?;
            agrees::<crate::MockSettings>(&tree)?;
            request_agrees(&tree)?;
        }
    }

    #[test]
    fn requests_read_the_same_either_way_and_most_take_the_fast_path() {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2000));
        let read_fast = std::cell::Cell::new(0u32);
        runner
            .run(&request_tree(), |tree| {
                request_agrees(&tree)?;
                read_fast.set(read_fast.get() + u32::from(agrees::<ChatRequest>(&tree)?));
                Ok(())
            })
            .unwrap();
        // The generator makes mostly valid requests: a fast path that always gave up would pass the check above.
        assert!(read_fast.get() >= 500, "only {} of 2000 requests read by the fast path", read_fast.get());
    }

    #[test]
    fn every_request_of_the_wire_vectors_takes_the_fast_path() {
        let mut read = 0;
        for request in crate::api::vector_requests() {
            let fast = read_host::<ChatRequest, Tree>(&tree_of(&request));
            assert_eq!(fast.as_ref(), ChatRequest::from_value(request.clone()).as_ref().ok(), "{request}");
            read += 1;
        }
        assert!(read >= 20, "only {read} requests found in the vectors");
    }

    #[test]
    fn nesting_gives_up_exactly_where_the_walker_refuses() {
        let nested = |levels: usize| (0..levels).fold(Tree::Null, |inner, _| Tree::Map(vec![("a".into(), inner)]));
        assert!(read_host::<Value, Tree>(&nested(MAX_DEPTH)).is_some());
        assert!(read_host::<Value, Tree>(&nested(MAX_DEPTH + 1)).is_none());
        let err = from_host::<Value, Tree>(&nested(MAX_DEPTH + 1), "data").unwrap_err();
        assert!(err.message().contains("nested deeper than 128 levels"), "{err}");
        // An ignored value is checked all the same: a NaN inside is refused.
        assert!(read_host::<serde::de::IgnoredAny, Tree>(&Tree::List(vec![Tree::Float(f64::NAN)])).is_none());
        assert!(read_host::<serde::de::IgnoredAny, Tree>(&Tree::List(vec![Tree::Float(1.5)])).is_some());
    }
}
