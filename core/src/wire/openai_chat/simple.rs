//! The common shape of a Chat Completions request, read straight from the body into borrowed fields: a model,
//! messages whose content is a string, and the scalar options. Most requests of a load test look like this, and
//! parsing them into a `serde_json::Value` tree first (a map and a string per key, all freed again) was the largest
//! part of the request's cost after escaping.
//!
//! This is a shortcut, not a second set of rules: it gives up (`None`) on anything it does not read exactly as
//! [`super::OpenAiChat::decode`] does (content parts, tool calls, tools, `tool_choice`, `response_format`, `stop`,
//! a value of another type, invalid JSON) and the full decoder then reads the body, with its messages for what is
//! wrong. Wherever it answers, its request is the full decoder's (`tests` below, over every request of the shared
//! wire vectors and generated ones).

use super::decode_role;
use crate::model::{ChatRequest, Message};
use crate::wire::DecodedRequest;
use serde::de::{Deserializer, Visitor};
use serde::Deserialize;
use std::borrow::Cow;

#[derive(Deserialize)]
struct SimpleRequest<'a> {
    #[serde(borrow)]
    model: Cow<'a, str>,
    #[serde(borrow)]
    messages: Vec<SimpleMessage<'a>>,
    stream: Option<bool>,
    temperature: Option<f64>,
    top_p: Option<f64>,
    max_tokens: Option<u64>,
    max_completion_tokens: Option<u64>,
    seed: Option<i64>,
    stream_options: Option<StreamOptions>,
    // Read by the full decoder only: a request that has any of these (not null) goes there. Never read here: one
    // that is present stops the parse.
    #[allow(dead_code)]
    tools: Option<FullDecoderOnly>,
    #[allow(dead_code)]
    tool_choice: Option<FullDecoderOnly>,
    #[allow(dead_code)]
    response_format: Option<FullDecoderOnly>,
    #[allow(dead_code)]
    stop: Option<FullDecoderOnly>,
}

#[derive(Deserialize)]
struct StreamOptions {
    include_usage: Option<bool>,
}

#[derive(Deserialize)]
struct SimpleMessage<'a> {
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[allow(dead_code)] // as above: present, it stops the parse
    tool_calls: Option<FullDecoderOnly>,
}

/// A field only the full decoder reads. `null` reads as absent (`Option`); any other value stops the shortcut where
/// it stands, so a request with tools (an agent loop's) is not read through to its end before being read again.
struct FullDecoderOnly;

impl<'de> Deserialize<'de> for FullDecoderOnly {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FullDecoderOnly, D::Error> {
        struct GiveUp;
        impl Visitor<'_> for GiveUp {
            type Value = FullDecoderOnly;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("nothing: the field is the full decoder's")
            }
        }
        // Every visit_* method of `GiveUp` is the default, which refuses the value without reading further.
        deserializer.deserialize_any(GiveUp)
    }
}

/// The request, when `body` has the common shape; `None` sends it to the full decoder.
pub(super) fn decode(body: &str) -> Option<DecodedRequest> {
    let simple: SimpleRequest<'_> = serde_json::from_str(body).ok()?;
    // A field only the full decoder reads has stopped the parse above, unless it was null.
    let mut messages = Vec::with_capacity(simple.messages.len());
    for message in simple.messages {
        messages.push(Message {
            role: decode_role(&message.role, "").ok()?,
            content: message.content.map(|text| vec![crate::wire::json::text_part(&text)]).unwrap_or_default(),
            thinking: None,
            tool_calls: Vec::new(),
            tool_call_id: message.tool_call_id.map(Cow::into_owned),
            name: message.name.map(Cow::into_owned),
        });
    }
    let request = ChatRequest {
        model: simple.model.into_owned(),
        messages,
        tools: Vec::new(),
        tool_choice: None,
        response_format: None,
        temperature: simple.temperature,
        top_p: simple.top_p,
        max_tokens: simple.max_completion_tokens.or(simple.max_tokens),
        stop: Vec::new(),
        seed: simple.seed,
        stream: simple.stream.unwrap_or(false),
        metadata: crate::model::RequestMetadata::default(),
    };
    let include_usage = simple.stream_options.and_then(|options| options.include_usage).unwrap_or(false);
    Some(DecodedRequest { include_usage, ..DecodedRequest::new(request) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ChatProtocol;
    use proptest::prelude::*;

    /// What the full decoder makes of `body`, when it is valid.
    fn full(body: &str) -> Option<ChatRequest> {
        let value: serde_json::Value = serde_json::from_str(body).ok()?;
        super::super::OpenAiChat::decode(&value).ok().map(|decoded| std::sync::Arc::unwrap_or_clone(decoded.request))
    }

    fn agrees(body: &str) -> std::result::Result<(), String> {
        if let Some(simple) = decode(body) {
            let expected =
                full(body).ok_or_else(|| format!("the shortcut took a request the decoder refuses: {body}"))?;
            if *simple.request != expected {
                return Err(format!("{body}\n  shortcut: {:?}\n  decoder:  {expected:?}", simple.request));
            }
            let value: serde_json::Value = serde_json::from_str(body).map_err(|e| e.to_string())?;
            let include_usage = super::super::OpenAiChat::decode(&value).map(|d| d.include_usage).unwrap_or(false);
            if simple.include_usage != include_usage {
                return Err(format!("include_usage differs for {body}"));
            }
        }
        Ok(())
    }

    #[test]
    fn the_shortcut_reads_the_common_shape_as_the_decoder_does() {
        let bodies = [
            r#"{"model":"gpt-4o","messages":[{"role":"user","content":"What is the weather in Paris?"}]}"#,
            r#"{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi \"there\"\n\u00e9"}]}"#,
            r#"{"model":"m","temperature":0.5,"top_p":1,"max_tokens":10,"max_completion_tokens":20,"seed":-3,"messages":[]}"#,
            r#"{"model":"m","messages":[{"role":"tool","tool_call_id":"call_1","content":"22"},{"role":"function","name":"f","content":null}]}"#,
            r#"{"model":"m","messages":[{"role":"developer","content":"x","refusal":null,"extra":[1,2]}],"user":"u","n":1}"#,
            r#"{"model":"m","messages":[{"role":"user"}],"tools":null,"stop":null,"stream":null}"#,
        ];
        for body in bodies {
            assert!(decode(body).is_some(), "the shortcut should read {body}");
            agrees(body).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn the_shortcut_leaves_everything_else_to_the_decoder() {
        let bodies = [
            r#"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}"#,
            r#"{"model":"m","messages":[{"role":"assistant","tool_calls":[]}]}"#,
            r#"{"model":"m","messages":[],"tools":[]}"#,
            r#"{"model":"m","messages":[],"stop":"x"}"#,
            r#"{"model":"m","messages":[],"tool_choice":"auto"}"#,
            r#"{"model":"m","messages":[],"response_format":{"type":"text"}}"#,
            r#"{"model":"m","messages":[{"role":"robot","content":"x"}]}"#,
            r#"{"model":"m","messages":[],"max_tokens":-1}"#,
            r#"{"model":"m","messages":[],"seed":1.5}"#,
            r#"{"model":"m","messages":[],"stream":"yes"}"#,
            r#"{"model":"m","model":"n","messages":[]}"#,
            r#"{"messages":[]}"#,
            r#"{"model":"m","messages":[]"#,
            r#"[]"#,
        ];
        for body in bodies {
            assert!(decode(body).is_none(), "the shortcut should leave {body} to the decoder");
        }
    }

    #[test]
    fn every_chat_request_of_the_wire_vectors_is_read_alike() {
        let vectors: serde_json::Value =
            serde_json::from_str(include_str!("../../../../tests/vectors/wire.json")).unwrap_or_default();
        let mut bodies = Vec::new();
        collect_chat_bodies(&vectors, &mut bodies);
        assert!(bodies.len() >= 10, "found only {} chat request bodies in wire.json", bodies.len());
        for body in &bodies {
            agrees(body).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// Every string under a `body` key of an object whose `path` is a chat completions path.
    fn collect_chat_bodies(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(object) => {
                let is_chat =
                    object.get("path").and_then(|p| p.as_str()).is_some_and(|p| p.ends_with("/chat/completions"));
                if let (true, Some(body)) = (is_chat, object.get("body").and_then(|b| b.as_str())) {
                    out.push(body.to_string());
                }
                object.values().for_each(|v| collect_chat_bodies(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| collect_chat_bodies(v, out)),
            _ => {}
        }
    }

    fn message() -> impl Strategy<Value = String> {
        let role = prop_oneof![Just("user"), Just("system"), Just("assistant"), Just("tool"), Just("robot")];
        let content = prop_oneof![
            Just("null".to_string()),
            any::<String>().prop_map(|s| serde_json::to_string(&s).unwrap_or_default()),
            Just(r#"[{"type":"text","text":"x"}]"#.to_string()),
            Just("7".to_string()),
        ];
        let extra = prop_oneof![
            Just(String::new()),
            Just(r#","name":"n""#.to_string()),
            Just(r#","tool_call_id":"call_1""#.to_string()),
            Just(
                r#","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]"#.to_string()
            ),
            Just(r#","name":3"#.to_string()),
        ];
        (role, content, extra)
            .prop_map(|(role, content, extra)| format!(r#"{{"role":"{role}","content":{content}{extra}}}"#))
    }

    fn option() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just(r#","stream":true"#.to_string()),
            Just(r#","stream_options":{"include_usage":true}"#.to_string()),
            Just(r#","stream_options":{"include_usage":"yes"}"#.to_string()),
            Just(r#","temperature":0.2"#.to_string()),
            Just(r#","temperature":"hot""#.to_string()),
            Just(r#","max_tokens":5,"max_completion_tokens":null"#.to_string()),
            Just(r#","max_tokens":-5"#.to_string()),
            Just(r#","seed":12"#.to_string()),
            Just(r#","stop":["x"]"#.to_string()),
            Just(r#","tools":null"#.to_string()),
            Just(r#","metadata":{"a":"b"}"#.to_string()),
        ]
    }

    proptest! {
        #[test]
        fn generated_requests_are_read_alike(
            messages in prop::collection::vec(message(), 0..4),
            options in prop::collection::vec(option(), 0..3),
        ) {
            let body = format!(r#"{{"model":"gpt-4o","messages":[{}]{}}}"#, messages.join(","), options.concat());
            prop_assert!(agrees(&body).is_ok(), "{}", agrees(&body).err().unwrap_or_default());
        }
    }
}
