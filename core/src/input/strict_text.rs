//! JSON text straight into core types under [`super::strict`]'s rule (a struct from an object only), without the
//! `serde_json::Value` between: the fast path of the bindings that hand the core JSON text (the JVM and C
//! libraries, the Node addon).
//!
//! Reading a short request through a `Value` took three passes: parse into a tree of maps (7k instructions), read
//! the tree (3k) and free it (4k). Here serde's derive reads the text once. The reader is a wrapper around
//! serde_json's text deserializer that keeps the rule at every depth: a struct, or an enum's struct variant, is
//! read from an object only.
//!
//! It is a fast path, not a second reader: [`read_json_text`] gives `Some` only for text the canonical reader
//! (`Value`, then [`super::deserialize_data`]) reads to the same value, and `None` for anything else: invalid
//! JSON, a duplicate key, any error. The caller then runs the canonical path, so every error message is the
//! canonical one. What makes the two agree: both run the same derived `Deserialize` impls and visit the same
//! values (serde_json parses numbers and strings once, the same way, for a `Value` or for a field); a `Value`
//! keeps the last of duplicate keys while a derived struct refuses them, so a duplicate gives up here.

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

/// `text` as a `T` when it reads exactly as the canonical path would read it and nests at most `max_depth`
/// objects and arrays deep; `None` means "use that path".
///
/// The depth is counted as the reader goes (an enum's variant counts as a level too, so the count is never below
/// the text's nesting): no scan of the text beforehand, which cost a short request 1.6k instructions.
pub fn read_json_text<T: DeserializeOwned>(text: &str, max_depth: usize) -> Option<T> {
    let mut parser = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Strict { inner: &mut parser, depth: max_depth }).ok()?;
    parser.end().ok()?;
    Some(value)
}

/// Any error: the fast path only says whether it read the text.
fn gave_up<E: de::Error>() -> E {
    E::custom("the strict text reader gave up")
}

/// A deserializer that reads a struct from an object only, at every depth; everything else is `D`'s own.
/// `depth`: how many more levels of objects, arrays and variants it may enter.
struct Strict<D> {
    inner: D,
    depth: usize,
}

/// A visitor given wrapped accesses, so the rule reaches what it reads; `objects_only` refuses a sequence (the
/// visitor of a struct, which serde's derive lets read an array by position).
struct Wrap<V> {
    visitor: V,
    objects_only: bool,
    depth: usize,
}

impl<V> Wrap<V> {
    fn any(visitor: V, depth: usize) -> Wrap<V> {
        Wrap { visitor, objects_only: false, depth }
    }

    fn object(visitor: V, depth: usize) -> Wrap<V> {
        Wrap { visitor, objects_only: true, depth }
    }

    /// The depth left inside the level this visitor enters, or an error past the limit.
    fn enter<E: de::Error>(&self) -> Result<usize, E> {
        self.depth.checked_sub(1).ok_or_else(gave_up)
    }
}

/// A seed whose deserializer is wrapped.
struct Seed<S> {
    seed: S,
    depth: usize,
}

/// A key or a variant name: read as text, as the canonical reader hands every key over (a `&str`).
struct KeySeed<S>(S);

/// The key's deserializer: a string only.
struct Key<D>(D);

struct Items<A> {
    items: A,
    depth: usize,
}
struct Entries<A> {
    entries: A,
    depth: usize,
}
struct Variants<A> {
    data: A,
    depth: usize,
}
struct Variant<A> {
    content: A,
    depth: usize,
}

impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(Wrap::any(visitor, self.depth))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(Wrap::object(visitor, self.depth))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_option(Wrap::any(visitor, self.depth))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_newtype_struct(name, Wrap::any(visitor, self.depth))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_enum(name, variants, Wrap::any(visitor, self.depth))
    }

    // Read through this reader, not skipped by serde_json's, so what is inside counts towards the depth.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(Wrap::any(visitor, self.depth))
    }

    // A variant's name is text only, as the canonical reader has it (anything else gives up, and that reader says
    // what is wrong).
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_str(Wrap::any(visitor, self.depth))
    }

    // As the canonical reader: every other type is read from what the data is.
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit unit_struct seq
        tuple tuple_struct map
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.visitor.expecting(formatter)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.visitor.visit_bool(v)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.visitor.visit_i64(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.visitor.visit_u64(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.visitor.visit_f64(v)
    }

    // A borrowed string is given as a `&str`, as the canonical reader gives every string.
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.visitor.visit_str(v)
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_none()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Strict { inner: deserializer, depth: self.depth })
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(Strict { inner: deserializer, depth: self.depth })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, items: A) -> Result<V::Value, A::Error> {
        if self.objects_only {
            return Err(gave_up());
        }
        let depth = self.enter()?;
        self.visitor.visit_seq(Items { items, depth })
    }

    fn visit_map<A: de::MapAccess<'de>>(self, entries: A) -> Result<V::Value, A::Error> {
        let depth = self.enter()?;
        self.visitor.visit_map(Entries { entries, depth })
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let depth = self.enter()?;
        self.visitor.visit_enum(Variants { data, depth })
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Strict { inner: deserializer, depth: self.depth })
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<S> {
    type Value = S::Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Key(deserializer))
    }
}

/// Text for anything asked of a key: serde_json would also read a number from a key for a numeric type, which
/// the canonical reader does not.
impl<'de, D: de::Deserializer<'de>> de::Deserializer<'de> for Key<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // Depth 0: a key is text, which enters no level.
        self.0.deserialize_str(Wrap::any(visitor, 0))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, D::Error> {
        Err(gave_up())
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit unit_struct
        newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Items<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.items.next_element_seed(Seed { seed, depth: self.depth })
    }

    fn size_hint(&self) -> Option<usize> {
        self.items.size_hint()
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Entries<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.entries.next_key_seed(KeySeed(seed))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.entries.next_value_seed(Seed { seed, depth: self.depth })
    }

    fn size_hint(&self) -> Option<usize> {
        self.entries.size_hint()
    }
}

impl<'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Variants<A> {
    type Error = A::Error;
    type Variant = Variant<A::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self::Variant), A::Error> {
        let (name, content) = self.data.variant_seed(KeySeed(seed))?;
        Ok((name, Variant { content, depth: self.depth }))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Variant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.content.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.content.newtype_variant_seed(Seed { seed, depth: self.depth })
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.content.tuple_variant(len, Wrap::any(visitor, self.depth))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.content.struct_variant(fields, Wrap::object(visitor, self.depth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::request::FAST_PATH_DEPTH;
    use crate::api::{deserialize_data, RequestInput, StepSpec};
    use crate::model::ChatRequest;
    use crate::verify::Check;
    use proptest::prelude::*;
    use serde_json::Value;
    use std::fmt;

    /// JSON text as a tree, so a test can write what a `Value` cannot hold: duplicate keys, any number literal.
    #[derive(Clone, Debug)]
    enum Json {
        Literal(&'static str),
        List(Vec<Json>),
        Object(Vec<(String, Json)>),
    }

    impl Json {
        fn text(&self) -> String {
            match self {
                Json::Literal(literal) => (*literal).to_string(),
                Json::List(items) => format!("[{}]", items.iter().map(Json::text).collect::<Vec<_>>().join(",")),
                Json::Object(entries) => {
                    let entries: Vec<String> = entries
                        .iter()
                        .map(|(key, value)| format!("{}:{}", serde_json::to_string(key).unwrap(), value.text()))
                        .collect();
                    format!("{{{}}}", entries.join(","))
                }
            }
        }
    }

    fn string(text: &str) -> Json {
        Json::Literal(Box::leak(serde_json::to_string(text).unwrap().into_boxed_str()))
    }

    fn object(entries: Vec<(&str, Json)>) -> Json {
        Json::Object(entries.into_iter().map(|(key, value)| (key.to_string(), value)).collect())
    }

    /// The canonical path: parse to a `Value`, then the strict reader.
    fn canonical<T: DeserializeOwned>(text: &str) -> Option<T> {
        deserialize_data(&serde_json::from_str::<Value>(text).ok()?).ok()
    }

    /// When the fast path reads the text, the canonical path reads the same value. Whether it read it.
    fn agrees<T: DeserializeOwned + fmt::Debug + PartialEq>(text: &str) -> Result<bool, TestCaseError> {
        let fast = read_json_text::<T>(text, FAST_PATH_DEPTH);
        if let Some(fast) = &fast {
            let canonical = canonical::<T>(text);
            prop_assert_eq!(Some(fast), canonical.as_ref(), "the fast path read what the canonical did not");
        }
        Ok(fast.is_some())
    }

    const LITERALS: &[&str] = &[
        "null",
        "true",
        "false",
        "0",
        "-0",
        "1",
        "429",
        "-3",
        "2.5",
        "1e3",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775809",
        "1e400",
        r#""user""#,
        r#""assistant""#,
        r#""system""#,
        r#""tool""#,
        r#""text""#,
        r#""auto""#,
        r#""rate_limited""#,
        r#""hi\n\"there\"""#,
        r#""\u00e9t\u00e9""#,
        r#""\ud800""#,
        r#""\ud83d\ude00""#,
    ];
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
        "tool",
        "temperature",
        "max_tokens",
        "stop",
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
    ];

    fn json() -> impl Strategy<Value = Json> {
        let leaf = proptest::sample::select(LITERALS).prop_map(Json::Literal);
        leaf.prop_recursive(5, 48, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Json::List),
                proptest::collection::vec((proptest::sample::select(KEYS).prop_map(String::from), inner), 0..4)
                    .prop_map(Json::Object),
            ]
        })
    }

    /// Mostly valid requests, with a struct given as an array here and there (what the rule refuses).
    fn request() -> impl Strategy<Value = Json> {
        let role = proptest::sample::select(&["user", "assistant", "system", "tool", "developer"][..]);
        let part = object(vec![("type", string("text")), ("text", string("hi"))]);
        let content = prop_oneof![
            Just(string("hi")),
            Just(Json::List(vec![part.clone()])),
            Just(Json::List(vec![part, object(vec![("text", string("b")), ("type", string("text"))])])),
            Just(Json::Literal("null")),
            json(),
        ];
        let message = (role, content, 0..8u8).prop_map(|(role, content, shape)| match shape {
            0 => Json::List(vec![string(role), content]),
            1 => object(vec![("role", string(role)), ("content", content.clone()), ("content", content)]),
            _ => object(vec![("role", string(role)), ("content", content)]),
        });
        let extra = prop_oneof![
            Just(("tool_choice", object(vec![("tool", object(vec![("name", string("f"))]))]))),
            Just(("tool_choice", object(vec![("tool", Json::List(vec![string("f")]))]))),
            Just(("tool_choice", string("auto"))),
            Just(("metadata", object(vec![("operation", string("a"))]))),
            Just(("metadata", Json::List(vec![string("a")]))),
            Just(("tools", Json::List(vec![object(vec![("name", string("f")), ("parameters", object(vec![]))])]))),
            Just(("tools", Json::List(vec![Json::List(vec![string("f")])]))),
            json().prop_map(|value| ("temperature", value)),
        ];
        (proptest::collection::vec(message, 0..3), proptest::option::of(extra)).prop_map(|(messages, extra)| {
            let mut entries = vec![("model", string("m")), ("messages", Json::List(messages))];
            entries.extend(extra);
            object(entries)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn any_text_reads_as_the_canonical_path_reads_it_or_not_at_all(tree in json()) {
            let text = tree.text();
            agrees::<Value>(&text)?;
            agrees::<StepSpec>(&text)?;
            agrees::<Check>(&text)?;
            agrees::<crate::MockSettings>(&text)?;
            agrees::<ChatRequest>(&text)?;
        }
    }

    #[test]
    fn requests_read_the_same_either_way_and_most_take_the_fast_path() {
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(2000));
        let read_fast = std::cell::Cell::new(0u32);
        runner
            .run(&request(), |tree| {
                let text = tree.text();
                read_fast.set(read_fast.get() + u32::from(agrees::<ChatRequest>(&text)?));
                // What a binding calls: the fast path, else the canonical one with its error.
                let canonical = serde_json::from_str::<Value>(&text)
                    .map(|value| RequestInput::from_value(value).into_request().map_err(|e| e.to_string()));
                if let Some(fast) = RequestInput::from_json_text(&text) {
                    prop_assert_eq!(Ok(Ok(fast)), canonical.map_err(|e| e.to_string()));
                }
                Ok(())
            })
            .unwrap();
        assert!(read_fast.get() >= 500, "only {} of 2000 requests read by the fast path", read_fast.get());
    }

    #[test]
    fn a_struct_given_as_an_array_duplicate_keys_and_deep_nesting_give_up() {
        let given_up = [
            r#"["m", []]"#,
            r#"{"messages": [["user", "hi"]]}"#,
            r#"{"messages": [{"role": "assistant", "tool_calls": [["call_1", "f", "{}"]]}]}"#,
            r#"{"tools": [["f"]]}"#,
            r#"{"tool_choice": {"tool": ["f"]}}"#,
            r#"{"metadata": ["op"]}"#,
            r#"{"model": "a", "model": "b"}"#,
            r#"{"model": "a"} trailing"#,
            r#"{"messages": [{"role": "user", "content": "\ud800"}]}"#,
        ];
        for text in given_up {
            assert_eq!(read_json_text::<ChatRequest>(text, FAST_PATH_DEPTH), None, "{text}");
        }
        // Each of those the canonical path refuses, except the duplicate key (the last one wins there).
        let last_wins = canonical::<ChatRequest>(r#"{"model": "a", "model": "b"}"#).unwrap();
        assert_eq!(last_wins.model, "b");

        let nested = |levels: usize| format!("{}null{}", "[".repeat(levels), "]".repeat(levels));
        assert!(read_json_text::<Value>(&nested(3), 3).is_some());
        assert!(read_json_text::<Value>(&nested(4), 3).is_none());
        // A variant counts as a level: never fewer levels than the text's brackets.
        let choice = r#"{"tool_choice": {"tool": {"name": "f"}}}"#;
        assert!(read_json_text::<ChatRequest>(choice, 3).is_some());
        assert!(read_json_text::<ChatRequest>(choice, 2).is_none());
        // An ignored value is read through, so its nesting counts too.
        assert!(read_json_text::<serde::de::IgnoredAny>(&nested(4), 3).is_none());
    }

    #[test]
    fn a_json_string_is_a_user_text_to_the_default_model() {
        let request = RequestInput::from_json_text(r#" "Hi \"there\"" "#).unwrap();
        assert_eq!(request, ChatRequest::user(crate::clock::DEFAULT_MODEL, "Hi \"there\""));
        assert_eq!(RequestInput::from_json_text("5"), None);
    }

    #[test]
    fn every_request_of_the_vectors_takes_the_fast_path() {
        let mut read = 0;
        for request in crate::api::vector_requests() {
            for text in [request.to_string(), serde_json::to_string_pretty(&request).unwrap()] {
                let fast = RequestInput::from_json_text(&text);
                assert_eq!(fast.as_ref(), ChatRequest::from_value(request.clone()).as_ref().ok(), "{text}");
            }
            read += 1;
        }
        assert!(read >= 20, "only {read} requests found in the vectors");
    }
}
