//! Token usage policy: none (default), given, or estimated with the word-like token counter.
//!
//! The estimate rule, identical in every language:
//! - input tokens: the sum, over every message of the request, of the word-like token counts of its text parts,
//!   its thinking, and each tool call's name and arguments text (images, audio and files count 0);
//! - output tokens: the same count over the answer (thinking, text, each tool call's name and arguments);
//! - total = input + output; no per-message overhead is added, so the numbers are easy to predict in a test.

use crate::model::{ChatRequest, ContentPart, Message, ToolCall, Usage};
use crate::tokenize::count_tokens;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// How a mock reports token usage in its responses. As data: `"none"`, `"estimate"`, or a usage object
/// (`{"input_tokens": 3, "output_tokens": 2}`) given in every response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UsagePolicy {
    /// No usage (the default, as the seed systems do).
    #[default]
    None,
    /// This usage in every response (LangChain4j's `withTokenUsage`), except where a step gives its own.
    Given(Usage),
    /// Estimated by the word-like token counter (see the module documentation for the rule).
    Estimate,
}

impl Serialize for UsagePolicy {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            UsagePolicy::None => serializer.serialize_str("none"),
            UsagePolicy::Estimate => serializer.serialize_str("estimate"),
            UsagePolicy::Given(usage) => usage.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for UsagePolicy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<UsagePolicy, D::Error> {
        struct PolicyVisitor;
        impl<'de> Visitor<'de> for PolicyVisitor {
            type Value = UsagePolicy;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"none\", \"estimate\" or a usage object {\"input_tokens\", \"output_tokens\"}")
            }
            fn visit_str<E: de::Error>(self, word: &str) -> Result<UsagePolicy, E> {
                match word {
                    "none" => Ok(UsagePolicy::None),
                    "estimate" => Ok(UsagePolicy::Estimate),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<UsagePolicy, A::Error> {
                Usage::deserialize(de::value::MapAccessDeserializer::new(map)).map(UsagePolicy::Given)
            }
        }
        deserializer.deserialize_any(PolicyVisitor)
    }
}

fn count_tool_calls(calls: &[ToolCall]) -> u64 {
    calls.iter().map(|c| (count_tokens(&c.name) + count_tokens(&c.arguments)) as u64).sum()
}

fn count_message(message: &Message) -> u64 {
    let parts: u64 = message
        .content
        .iter()
        .map(|part| match part {
            ContentPart::Text { text } => count_tokens(text) as u64,
            ContentPart::Image(_) | ContentPart::Audio(_) | ContentPart::File(_) => 0,
        })
        .sum();
    parts + message.thinking.as_deref().map_or(0, |t| count_tokens(t) as u64) + count_tool_calls(&message.tool_calls)
}

/// Estimated input tokens of a request.
pub fn estimate_input_tokens(request: &ChatRequest) -> u64 {
    request.messages.iter().map(count_message).sum()
}

/// Estimated output tokens of an answer.
pub fn estimate_output_tokens(text: Option<&str>, thinking: Option<&str>, tool_calls: &[ToolCall]) -> u64 {
    let text = text.map_or(0, |t| count_tokens(t) as u64);
    let thinking = thinking.map_or(0, |t| count_tokens(t) as u64);
    text + thinking + count_tool_calls(tool_calls)
}

/// Estimated output tokens of a scripted answer: the same count as [`estimate_output_tokens`] of the response it
/// makes (tool-call ids are not counted, so the mock's numbering does not change it).
pub(crate) fn estimate_answer_tokens(answer: &crate::answer::Answer) -> u64 {
    let text = answer.text.as_ref().map(crate::answer::Chunks::text);
    let thinking = answer.thinking.as_ref().map(crate::answer::Chunks::text);
    let calls: u64 =
        answer.tool_calls.iter().map(|c| (count_tokens(&c.name) + count_tokens(&c.arguments)) as u64).sum();
    estimate_output_tokens(text.as_deref(), thinking.as_deref(), &[]) + calls
}

/// Estimated usage of an answer to a request.
pub fn estimate(request: &ChatRequest, text: Option<&str>, thinking: Option<&str>, tool_calls: &[ToolCall]) -> Usage {
    Usage::new(estimate_input_tokens(request), estimate_output_tokens(text, thinking, tool_calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_counts_word_like_tokens_on_both_sides() {
        let request = ChatRequest::new("m", vec![Message::system("Be brief."), Message::user("Hello, world!")]);
        // "Be"," brief","." = 3; "Hello",","," world","!" = 4
        assert_eq!(estimate_input_tokens(&request), 7);
        let call =
            ToolCall { id: "call_1".into(), name: "get_weather".into(), arguments: "{\"city\":\"Paris\"}".into() };
        // "Order"," ","123","45" = 4; "get","_weather" = 2; "{\"","city","\":\"","Paris","\"}" = 5
        let usage = estimate(&request, Some("Order 12345"), None, &[call]);
        assert_eq!(usage, Usage::new(7, 11));
    }

    #[test]
    fn a_scripted_answer_counts_as_the_response_it_makes() {
        use crate::answer::{Answer, Chunks, ScriptedToolCall};
        let answer = Answer {
            thinking: Some(Chunks::Words("Plan: look it up.".into())),
            text: Some(Chunks::Exact(vec!["Hel".into(), "lo, world 12345!".into()])),
            tool_calls: vec![ScriptedToolCall {
                id: None,
                name: "get_weather".into(),
                arguments: "{\"city\":1".into(),
            }],
        };
        let call = ToolCall { id: "call_9".into(), name: "get_weather".into(), arguments: "{\"city\":1".into() };
        let response = estimate_output_tokens(Some("Hello, world 12345!"), Some("Plan: look it up."), &[call]);
        assert_eq!(estimate_answer_tokens(&answer), response);
        assert_eq!(response, 7 + 6 + 6);
    }

    #[test]
    fn the_policy_reads_and_writes_the_scenario_form() {
        for (json, policy) in [
            ("\"none\"", UsagePolicy::None),
            ("\"estimate\"", UsagePolicy::Estimate),
            (r#"{"input_tokens":3,"output_tokens":2,"total_tokens":5}"#, UsagePolicy::Given(Usage::new(3, 2))),
        ] {
            assert_eq!(serde_json::from_str::<UsagePolicy>(json).unwrap(), policy);
            assert_eq!(serde_json::to_string(&policy).unwrap(), json);
        }
        let given: UsagePolicy = serde_json::from_str(r#"{"input_tokens":3,"output_tokens":2}"#).unwrap();
        assert_eq!(given, UsagePolicy::Given(Usage::new(3, 2)), "the total defaults to the sum");
        let err = serde_json::from_str::<UsagePolicy>("\"sometimes\"").unwrap_err().to_string();
        assert!(err.contains("\"none\", \"estimate\" or a usage object"), "{err}");
        assert!(serde_json::from_str::<UsagePolicy>(r#"{"input_tokens":3}"#).is_err());
    }
}
