//! Seeded faults inside the answer (issue #54 §1): the model answers, but wrongly in a way agents must survive —
//! arguments that are not JSON or break the tool's schema, a tool the request did not offer, two calls with one id,
//! a `length` stop in the middle of a tool call or of JSON output, a refusal, a content-filter stop, an answer that is
//! only reasoning, an empty answer, structured output that breaks the requested schema. Drawn like chaos (`chaos.rs`): from the seed and the request's journal index, at
//! per-kind rates, only among the kinds that apply to the step (a tool-call fault needs tool calls), so the same
//! requests get the same faults in every language.
//!
//! This unit holds the setting and the draw; the step is rewritten where it is taken (`mock/faulted.rs`), so every
//! protocol's own encoder renders the fault, whole and streamed.

use crate::seeded::draw_kind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The `answer_faults` setting.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerFaults {
    /// The seed of the draws (default: the scenario's `seed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The probability of each fault kind per answered request (`{"invalid_arguments": 0.1}`); the rates add up to
    /// at most 1. Only kinds that apply to the step are drawn among.
    pub rates: Map<String, Value>,
    /// The routes (by index) whose answers may be faulted; all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<usize>>,
    /// At most this many faults are drawn in all (a step's own `fault` is not counted); no limit when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u64>,
    /// Only answers that call one of these tools may be faulted; every answer when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

/// A fault inside the answer. As data (the setting's rates, a step's `fault`, the journal), its snake_case name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A tool call's arguments are not JSON (cut before their end).
    InvalidArguments,
    /// A tool call's arguments are JSON that breaks the offered tool's schema (a required field missing, else a
    /// field of the wrong type).
    SchemaViolation,
    /// A call to a tool the request did not offer.
    UnknownTool,
    /// Two calls with the same id (the first call repeated).
    DuplicateCallId,
    /// A call with an empty tool name.
    EmptyToolName,
    /// A `length` stop in the middle of a tool call's arguments.
    LengthInToolCall,
    /// A `length` stop in the middle of the text (JSON output cut short).
    TruncatedOutput,
    /// The model refuses (its text becomes a refusal).
    Refusal,
    /// A content-filter stop after part of the text.
    ContentFilter,
    /// Only reasoning: the text becomes thinking, no text and no tool calls.
    ReasoningOnly,
    /// Nothing: no text, no tool calls.
    EmptyAnswer,
    /// Structured output (the request asked for JSON of a schema) that is JSON but breaks the schema: a required
    /// field missing, else a field of the wrong type.
    OutputSchemaViolation,
}

impl FaultKind {
    /// Every kind, in the order draws are made (fixed, so a draw means the same however a host orders the keys).
    pub const ALL: [FaultKind; 12] = [
        FaultKind::InvalidArguments,
        FaultKind::SchemaViolation,
        FaultKind::UnknownTool,
        FaultKind::DuplicateCallId,
        FaultKind::EmptyToolName,
        FaultKind::LengthInToolCall,
        FaultKind::TruncatedOutput,
        FaultKind::Refusal,
        FaultKind::ContentFilter,
        FaultKind::ReasoningOnly,
        FaultKind::EmptyAnswer,
        FaultKind::OutputSchemaViolation,
    ];

    /// The snake_case name (the setting's key, the journal's `answer_fault`).
    pub const fn as_str(self) -> &'static str {
        match self {
            FaultKind::InvalidArguments => "invalid_arguments",
            FaultKind::SchemaViolation => "schema_violation",
            FaultKind::UnknownTool => "unknown_tool",
            FaultKind::DuplicateCallId => "duplicate_call_id",
            FaultKind::EmptyToolName => "empty_tool_name",
            FaultKind::LengthInToolCall => "length_in_tool_call",
            FaultKind::TruncatedOutput => "truncated_output",
            FaultKind::Refusal => "refusal",
            FaultKind::ContentFilter => "content_filter",
            FaultKind::ReasoningOnly => "reasoning_only",
            FaultKind::EmptyAnswer => "empty_answer",
            FaultKind::OutputSchemaViolation => "output_schema_violation",
        }
    }

    /// The kind of a name.
    pub fn named(name: &str) -> Option<FaultKind> {
        FaultKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// What this fault needs of an answer that lacks it (`None`: it applies): tool calls for a tool-call fault,
    /// text for a text fault, a JSON object as text for `output_schema_violation`, text or tool calls for the rest.
    /// The one rule for a drawn fault (`mock/faulted.rs`) and a step's own (`Step::with_fault`).
    pub fn missing_in(self, answer: &crate::answer::Answer) -> Option<&'static str> {
        let text = answer.text.as_ref().map(crate::answer::Chunks::text).unwrap_or_default();
        let calls = !answer.tool_calls.is_empty();
        match self {
            k if k.needs_tool_calls() => (!calls).then_some("tool calls"),
            FaultKind::OutputSchemaViolation => (!is_json_object(&text)).then_some("a JSON object as its text"),
            FaultKind::TruncatedOutput | FaultKind::ContentFilter | FaultKind::Refusal => {
                text.is_empty().then_some("text")
            }
            _ => (text.is_empty() && !calls).then_some("text or tool calls"),
        }
    }

    /// Whether the fault needs the answer's tool calls (else its text).
    pub const fn needs_tool_calls(self) -> bool {
        matches!(
            self,
            FaultKind::InvalidArguments
                | FaultKind::SchemaViolation
                | FaultKind::UnknownTool
                | FaultKind::DuplicateCallId
                | FaultKind::EmptyToolName
                | FaultKind::LengthInToolCall
        )
    }
}

// Read by name through `FaultKind::named` rather than derived: one reader of the names (the WASM module is measured
// by the kilobyte, and a derived visitor repeats every name).
impl<'de> Deserialize<'de> for FaultKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<FaultKind, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        FaultKind::named(&name).ok_or_else(|| {
            let kinds: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
            serde::de::Error::custom(format!("unknown fault kind `{name}`: one of {}", kinds.join(", ")))
        })
    }
}

/// Whether `text` is a JSON object (what structured output answers, and what `output_schema_violation` breaks).
pub(crate) fn is_json_object(text: &str) -> bool {
    matches!(serde_json::from_str::<Value>(text), Ok(Value::Object(_)))
}

/// `seeded::request_seed`'s purpose for answer faults ("afault" in ASCII).
const PURPOSE: u64 = 0x6166_6175_6c74;

impl AnswerFaults {
    /// What is wrong with the setting, if anything: `(field path below "answer_faults", problem)`.
    pub fn problem(&self, route_count: Option<usize>) -> Option<(String, String)> {
        let kinds: Vec<&str> = FaultKind::ALL.iter().map(|k| k.as_str()).collect();
        if let Some(problem) = crate::seeded::rates_problem(&self.rates, &kinds, "a fault kind") {
            return Some(problem);
        }
        if let Some(at) = self.tools.as_ref().and_then(|tools| tools.iter().position(String::is_empty)) {
            return Some((format!("tools[{at}]"), "a tool name cannot be empty".into()));
        }
        if let (Some(routes), Some(count)) = (&self.routes, route_count) {
            if let Some(missing) = routes.iter().find(|r| **r >= count) {
                return Some(("routes".into(), format!("there is no route {missing}: the scenario has {count}")));
            }
        }
        None
    }

    /// The fault drawn for request `index` taken by route `route`, among the kinds that `applies` to its step, when
    /// fewer than `times` were drawn (`made` so far) and the step calls one of `tools` (when given: `called`).
    pub(crate) fn fault_for(
        &self,
        scenario_seed: u64,
        (index, route, made): (u64, usize, u64),
        called: &[&str],
        applies: impl Fn(FaultKind) -> bool,
    ) -> Option<FaultKind> {
        if self.routes.as_ref().is_some_and(|routes| !routes.contains(&route))
            || self.times.is_some_and(|times| made >= times)
            || self.tools.as_ref().is_some_and(|tools| !called.iter().any(|c| tools.iter().any(|t| t == c)))
        {
            return None;
        }
        let kinds = FaultKind::ALL.into_iter().filter(|k| applies(*k)).map(|kind| (kind, kind.as_str()));
        draw_kind(&self.rates, self.seed.unwrap_or(scenario_seed), PURPOSE, index, kinds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn faults(rates: &[(&str, f64)]) -> AnswerFaults {
        AnswerFaults {
            seed: Some(7),
            rates: rates.iter().map(|(k, r)| (k.to_string(), Value::from(*r))).collect(),
            routes: None,
            times: None,
            tools: None,
        }
    }

    #[test]
    fn faults_come_at_their_rates_only_where_they_apply_and_the_same_each_time() {
        let faults = faults(&[("invalid_arguments", 0.1), ("refusal", 0.05)]);
        let any = |_| true;
        let draws: Vec<Option<FaultKind>> = (0..50_000).map(|i| faults.fault_for(0, (i, 0, 0), &[], any)).collect();
        let share = |kind| draws.iter().filter(|d| **d == Some(kind)).count() as f64 / 50_000.0;
        assert!((share(FaultKind::InvalidArguments) - 0.1).abs() < 0.006);
        assert!((share(FaultKind::Refusal) - 0.05).abs() < 0.004);
        assert_eq!(draws, (0..50_000).map(|i| faults.fault_for(0, (i, 0, 0), &[], any)).collect::<Vec<_>>());
        // A kind that does not apply to the step is never drawn.
        let text_only = |k: FaultKind| !k.needs_tool_calls();
        assert!((0..1000).all(|i| faults.fault_for(0, (i, 0, 0), &[], text_only) != Some(FaultKind::InvalidArguments)));
        // `times` caps the faults drawn; `tools` keeps them to the answers that call one of them.
        let mut capped = faults.clone();
        capped.times = Some(2);
        let first = (0..1000).find(|i| faults.fault_for(0, (*i, 0, 0), &[], any).is_some()).unwrap();
        assert!(capped.fault_for(0, (first, 0, 1), &[], any).is_some());
        assert_eq!(capped.fault_for(0, (first, 0, 2), &[], any), None);
        let mut scoped = faults.clone();
        scoped.tools = Some(vec!["get_weather".into()]);
        assert!(scoped.fault_for(0, (first, 0, 0), &["get_weather"], any).is_some());
        assert_eq!(scoped.fault_for(0, (first, 0, 0), &["book_flight"], any), None);
    }

    #[test]
    fn bad_settings_are_named() {
        assert_eq!(faults(&[("gibberish", 0.1)]).problem(None).unwrap().0, "rates.gibberish");
        assert!(faults(&[("refusal", 1.5)]).problem(None).unwrap().1.contains("not a probability"));
        assert!(faults(&[("refusal", 0.6), ("empty_answer", 0.6)]).problem(None).unwrap().1.contains("more than 1"));
        let mut unnamed = faults(&[("refusal", 0.1)]);
        unnamed.tools = Some(vec![String::new()]);
        assert_eq!(unnamed.problem(None).unwrap().0, "tools[0]");
        let mut routed = faults(&[("refusal", 0.1)]);
        routed.routes = Some(vec![3]);
        assert!(routed.problem(Some(1)).unwrap().1.contains("no route 3"));
    }
}
