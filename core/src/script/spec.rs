//! The scripting vocabulary as public serde data: one step, one tool call, one failure, one route match. The
//! scenario format is made of these, and so is every binding's builder API, so `{"text": "Hi"}` means the same
//! thing in a scenario file, a Python dict, a JS object and a C string.
//!
//! Each spec turns into the engine's types with a `to_*`/`build` method that checks it and names the path of
//! any problem relative to the spec (`.tool_calls[1].name`), so a caller can prefix its own position.

use crate::answer::{Answer, Chunks, ScriptedToolCall};
use crate::error::{Error, ErrorKind, Issue, Result};
use crate::model::{ChatResponse, FinishReason, Usage};
use crate::provider_error::{ProviderError, ProviderErrorKind};
use crate::script::{Exhaustion, RouteMatch, Step, StepTiming, StreamBreak};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;

/// A problem inside a spec: a path relative to it (`""`, `.fail`, `.tool_calls[1].name`) and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecProblem {
    /// Where, relative to the spec; empty for the spec as a whole.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl SpecProblem {
    fn new(path: &str, message: impl Into<String>) -> SpecProblem {
        SpecProblem { path: path.to_string(), message: message.into() }
    }

    /// The problem as an issue whose path starts with `prefix` (`routes[0].steps[2]`).
    pub fn at(self, prefix: &str) -> Issue {
        Issue { path: format!("{prefix}{}", self.path), message: self.message }
    }

    /// The problem as an `invalid_argument` error about the argument `argument` (a binding's parameter).
    pub fn into_argument_error(self, argument: &str) -> Error {
        let path = self.path.trim_start_matches('.').to_string();
        Error::with_issues(
            ErrorKind::InvalidArgument,
            &format!("invalid {argument}"),
            vec![Issue { path, message: self.message }],
        )
        .with_context("argument", argument)
    }
}

/// A provider failure as scripted: `{"kind": "rate_limited", "retry_after_ms": 20}`. Unset fields take the
/// kind's defaults (status, retryable, message); a `custom` failure with a status takes that status's
/// retryability unless `retryable` is given. A kind alone (`"rate_limited"`, `fail: rate_limited` in YAML) is that
/// kind with its defaults, as a step's bare string is its text.
// `remote = "Self"`: serde's derived code becomes `FailSpec::serialize`/`FailSpec::deserialize` functions, and
// the traits below call them (the map form), beside the string form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct FailSpec {
    /// The kind of failure.
    pub kind: ProviderErrorKind,
    /// HTTP status (400-599: a failure's), instead of the kind's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The message, instead of the kind's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether clients should retry, instead of the kind's (or status's) default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// The delay the provider asks for, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The provider's error type on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The provider's error code on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
}

impl Serialize for FailSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        FailSpec::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for FailSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<FailSpec, D::Error> {
        struct KindOrFields;
        impl<'de> Visitor<'de> for KindOrFields {
            type Value = FailSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a failure: its kind (\"rate_limited\") or the kind with details \
                     ({\"kind\": \"rate_limited\", \"retry_after_ms\": 20})",
                )
            }
            fn visit_str<E: de::Error>(self, kind: &str) -> std::result::Result<FailSpec, E> {
                ProviderErrorKind::deserialize(de::value::StrDeserializer::<E>::new(kind)).map(FailSpec::of)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<FailSpec, A::Error> {
                FailSpec::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer.deserialize_any(KindOrFields)
    }
}

impl FailSpec {
    /// A failure of `kind` with its defaults.
    pub fn of(kind: ProviderErrorKind) -> FailSpec {
        FailSpec {
            kind,
            status: None,
            message: None,
            retryable: None,
            retry_after_ms: None,
            error_type: None,
            error_code: None,
        }
    }

    /// The failure; a status outside 400-599 is a problem at `.status`.
    pub fn to_error(&self) -> std::result::Result<ProviderError, SpecProblem> {
        let mut error = ProviderError::new(self.kind);
        if let Some(status) = self.status {
            if !(400..=599).contains(&status) {
                return Err(SpecProblem::new(".status", format!("{status} is not an error status (400-599)")));
            }
            error = error.with_status(status);
        }
        if let Some(message) = &self.message {
            error.message = message.clone();
        }
        if let Some(retryable) = self.retryable {
            error.retryable = retryable;
        }
        error.retry_after_ms = self.retry_after_ms;
        error.error_type = self.error_type.clone();
        error.error_code = self.error_code.clone();
        Ok(error)
    }
}

/// A tool call as scripted. `arguments` is a JSON value; `arguments_json` is raw text that may be invalid JSON
/// on purpose; neither means `{}`. Without `id` the mock assigns `call_N`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// A fixed call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments: an object, or a string that is the raw arguments text (possibly invalid JSON on purpose),
    /// or `null` for `{}`. The same rule as the face's `then_calls_tool`, so a scenario file and code agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The arguments as raw JSON text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_json: Option<String>,
}

impl ToolCallSpec {
    /// A call of `name` with arguments as the seed APIs take them: an object is the arguments, a JSON string is
    /// raw arguments text (what a model produces, possibly invalid JSON), `null` means `{}`; anything else is
    /// refused when the step is built (see `arguments_text`).
    pub fn new(name: impl Into<String>, arguments: Value) -> ToolCallSpec {
        let arguments = if arguments.is_null() { None } else { Some(arguments) };
        ToolCallSpec { id: None, name: name.into(), arguments, arguments_json: None }
    }

    fn build(&self) -> std::result::Result<ScriptedToolCall, SpecProblem> {
        if self.name.is_empty() {
            return Err(SpecProblem::new(".name", "the tool name cannot be empty"));
        }
        let arguments = match (&self.arguments, &self.arguments_json) {
            (Some(_), Some(_)) => {
                return Err(SpecProblem::new(
                    "",
                    "give arguments (a JSON value) or arguments_json (raw text), not both",
                ))
            }
            (Some(value), None) => arguments_text(value)?,
            (None, Some(raw)) => raw.clone(),
            (None, None) => "{}".to_string(),
        };
        Ok(ScriptedToolCall { id: self.id.clone(), name: self.name.clone(), arguments })
    }
}

/// The arguments text of a call's `arguments`: an object serialized, a string as it is (raw text: every
/// provider's wire carries arguments as text, and a test may want it invalid), `null` as `{}`. A number, a list or
/// a boolean is refused: no provider sends tool arguments that are not an object, and `42` was silently `"42"`.
fn arguments_text(value: &Value) -> std::result::Result<String, SpecProblem> {
    match value {
        Value::Object(_) => Ok(value.to_string()),
        Value::String(raw) => Ok(raw.clone()),
        Value::Null => Ok("{}".to_string()),
        other => Err(SpecProblem::new(
            ".arguments",
            format!(
                "tool arguments must be an object, a string of raw arguments text, or null, not {}",
                match other {
                    Value::Bool(_) => "a boolean",
                    Value::Number(_) => "a number",
                    _ => "an array",
                }
            ),
        )),
    }
}

/// One step in the scenario format: an answer (`text`/`tokens`/`thinking`/`tool_calls`), a whole `response`, or a
/// `fail`, with the optional extras.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepSpec {
    /// Text streamed in word-like tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Exactly these tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Vec<String>>,
    /// Reasoning streamed before the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<String>,
    /// Tool calls streamed after the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallSpec>>,
    /// The model refuses: this text is sent as each protocol sends a refusal (OpenAI's `refusal` field and
    /// `refusal` parts, Anthropic's `refusal` stop reason), and the answer finishes `refusal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// A moderation's verdict (`POST /v1/moderations`): the flagged categories as a list of names, or scores by
    /// name (flagged from 0.5). The answer's text is the scores as a JSON object, finishing `content_filter`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flagged: Option<Value>,
    /// A whole response, streamed from its message and completed with exactly it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ChatResponse>,
    /// Fail before anything is streamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<FailSpec>,
    /// Fail after the thinking and text were streamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_after: Option<FailSpec>,
    /// How `fail_after` looks on the wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_after_as: Option<StreamBreak>,
    /// The finish reason instead of the derived one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// The usage of this answer, whatever the mock's policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    // The step's own delays: `StepTiming`'s fields, written out rather than flattened, because serde cannot deny
    // unknown fields across a `flatten` and a misspelt field must be an error naming it.
    /// Before the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Before the first token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Before each further token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_delay_ms: Option<u64>,
    /// On the wire: hold the response without sending anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_ms: Option<u64>,
    /// Headers added to this step's reply on the wire, replacing any of the same name: a provider's rate-limit
    /// headers (`x-ratelimit-remaining-requests`, `anthropic-ratelimit-tokens-remaining`, `retry-after-ms`), or
    /// any other. Values are strings (numbers are written as JSON writes them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<serde_json::Map<String, serde_json::Value>>,
    /// On a realtime socket: the session ends after this answer, announced this many milliseconds ahead (Gemini
    /// Live's `goAway` with `timeLeft`, OpenAI Realtime's `session_expired` error), then closed with 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go_away_ms: Option<u64>,
    /// A fault inside the answer, every time this step is taken (a kind of the `answer_faults` setting:
    /// `invalid_arguments`, `refusal`, ...), rendered by each protocol as the setting would render a drawn one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<crate::faults::FaultKind>,
    /// What a real provider sent for this answer (a recording's step): replayed as is on the protocol it came
    /// from, while the fields above are the neutral answer every other protocol is encoded from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded: Option<std::sync::Arc<crate::script::recorded::Recorded>>,
    /// Generate the answer from the schemas the request declared: `tool_calls` (arguments drawn from each called
    /// tool's input schema) or `output` (JSON valid against the request's structured-output schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<crate::generate::GenerateKind>,
    /// With `generate: tool_calls`: the names of the tools to call, or `"all"` (the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<serde_json::Value>,
    /// With `generate: output`: the schema, instead of the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<serde_json::Value>,
    /// With `generate`: top-level values kept as given; the rest is drawn.
    #[serde(default, rename = "with", skip_serializing_if = "Option::is_none")]
    pub fixed: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A step's `headers` as reply headers: names are HTTP tokens (sent lower-cased), values strings or numbers.
fn reply_headers(
    headers: &serde_json::Map<String, serde_json::Value>,
) -> std::result::Result<Vec<(String, String)>, SpecProblem> {
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    let mut out = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let path = format!(".headers.{name}");
        if name.is_empty() || !name.chars().all(token) {
            return Err(SpecProblem::new(&path, "not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"));
        }
        let value = match value {
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Number(number) => number.to_string(),
            other => return Err(SpecProblem::new(&path, format!("{other} is not a string or a number"))),
        };
        if value.contains(['\r', '\n']) {
            return Err(SpecProblem::new(&path, "a header value cannot hold a line break"));
        }
        out.push((name.to_ascii_lowercase(), value));
    }
    Ok(out)
}

impl StepSpec {
    /// The generated step (`generate`), if this is one; `tools`, `schema` and `with` belong to it.
    fn generated(&self) -> std::result::Result<Option<Step>, SpecProblem> {
        use crate::generate::{GenerateKind, GenerateStep};
        let Some(kind) = self.generate else {
            let stray =
                [(".tools", self.tools.is_some()), (".schema", self.schema.is_some()), (".with", self.fixed.is_some())];
            return match stray.iter().find(|(_, given)| *given) {
                Some((path, _)) => Err(SpecProblem::new(path, "tools, schema and with go with generate")),
                None => Ok(None),
            };
        };
        let tools = match (&self.tools, kind) {
            (None, _) => None,
            (Some(_), GenerateKind::Output) => {
                return Err(SpecProblem::new(
                    ".tools",
                    "tools go with generate: tool_calls (output uses the request's schema)",
                ))
            }
            (Some(serde_json::Value::String(all)), _) if all == "all" => None,
            (Some(serde_json::Value::Array(names)), _)
                if !names.is_empty() && names.iter().all(|n| n.as_str().is_some_and(|n| !n.is_empty())) =>
            {
                Some(names.iter().filter_map(|n| n.as_str().map(str::to_string)).collect())
            }
            (Some(other), _) => {
                return Err(SpecProblem::new(".tools", format!("{other} is not \"all\" or a list of tool names")))
            }
        };
        if self.schema.is_some() && kind == GenerateKind::ToolCalls {
            return Err(SpecProblem::new(
                ".schema",
                "schema goes with generate: output (tool calls use each tool's schema)",
            ));
        }
        if let Some(schema) = &self.schema {
            if !(schema.is_object() || schema.is_boolean()) {
                return Err(SpecProblem::new(".schema", "a JSON Schema is an object or a boolean"));
            }
        }
        Ok(Some(Step::generate(GenerateStep {
            kind,
            tools,
            schema: self.schema.clone(),
            fixed: self.fixed.clone().unwrap_or_default(),
            thinking: self.thinking.clone(),
        })))
    }

    /// The step, or the first problem with its path relative to the step.
    pub fn build(&self) -> std::result::Result<Step, SpecProblem> {
        let generated = self.generated()?;
        // A generated step may stream thinking before what it generates.
        let has_answer = self.text.is_some()
            || self.tokens.is_some()
            || (self.thinking.is_some() && generated.is_none())
            || self.tool_calls.is_some()
            || self.refusal.is_some()
            || self.flagged.is_some();
        let kinds = [has_answer, self.response.is_some(), self.fail.is_some(), generated.is_some()];
        let kinds = kinds.iter().filter(|b| **b).count();
        if kinds == 0 && self.recorded.is_none() {
            return Err(SpecProblem::new(
                "",
                "a step needs one of text, tokens, thinking, tool_calls, response or fail",
            ));
        }
        if kinds > 1 {
            return Err(SpecProblem::new(
                "",
                "a step is either an answer (text, tokens, thinking, tool_calls), a response, a fail, or generated, \
                 not several",
            ));
        }
        if let Some(refusal) = &self.refusal {
            if self.text.is_some() || self.tokens.is_some() || self.tool_calls.is_some() {
                return Err(SpecProblem::new(
                    ".refusal",
                    "a refusal is the whole answer: no text, tokens or tool_calls beside it",
                ));
            }
            if refusal.is_empty() {
                return Err(SpecProblem::new(".refusal", "the refusal cannot be empty"));
            }
            if self.finish_reason.is_some_and(|r| r != FinishReason::Refusal) {
                return Err(SpecProblem::new(".finish_reason", "a refusal finishes `refusal`"));
            }
        }
        if self.text.is_some() && self.tokens.is_some() {
            return Err(SpecProblem::new("", "text and tokens are two ways to give the same text: use one"));
        }
        let flagged = match &self.flagged {
            None => None,
            Some(_)
                if self.text.is_some()
                    || self.tokens.is_some()
                    || self.thinking.is_some()
                    || self.tool_calls.is_some()
                    || self.refusal.is_some() =>
            {
                return Err(SpecProblem::new(
                    ".flagged",
                    "a moderation verdict is the whole answer: no text, tokens, thinking, tool_calls or refusal beside it",
                ))
            }
            Some(verdict) => Some(moderation_scores(verdict)?),
        };
        let mut step = if let Some(generated) = generated {
            generated
        } else if kinds == 0 {
            // A recorded reply that held no answer (an empty body): the neutral answer is empty too.
            Step::answer(Answer::default())
        } else if let Some(fail) = &self.fail {
            if self.fail_after.is_some() || self.finish_reason.is_some() || self.usage.is_some() {
                return Err(SpecProblem::new(
                    ".fail",
                    "a step that fails before streaming cannot also have fail_after, finish_reason or usage",
                ));
            }
            Step::fail(fail.to_error().map_err(|p| SpecProblem { path: format!(".fail{}", p.path), ..p })?)
        } else if let Some(response) = &self.response {
            Step::response(response.clone())
        } else {
            Step::answer(self.answer()?)
        };
        let timing = StepTiming {
            delay_ms: self.delay_ms,
            ttft_ms: self.ttft_ms,
            token_delay_ms: self.token_delay_ms,
            stall_ms: self.stall_ms,
        };
        timing.check().map_err(|(field, problem)| SpecProblem::new(&format!(".{field}"), problem))?;
        step = step.with_timing(timing);
        if let Some(scores) = flagged {
            step = Step::answer(Answer { text: Some(Chunks::Exact(vec![scores])), ..Answer::default() })
                .with_timing(timing)
                .with_finish_reason(FinishReason::ContentFilter);
        }
        if let Some(reason) = self.finish_reason.or(self.refusal.as_ref().map(|_| FinishReason::Refusal)) {
            step = step.with_finish_reason(reason);
        }
        if let Some(usage) = self.usage {
            step = step.with_usage(usage);
        }
        if let Some(fail_after) = &self.fail_after {
            let error =
                fail_after.to_error().map_err(|p| SpecProblem { path: format!(".fail_after{}", p.path), ..p })?;
            step = step.failing_after(error).map_err(|e| SpecProblem::new(".fail_after", e.message()))?;
        }
        if let Some(form) = self.fail_after_as {
            if self.fail_after.is_none() {
                return Err(SpecProblem::new(
                    ".fail_after_as",
                    "fail_after_as says how fail_after looks on the wire: add fail_after",
                ));
            }
            step = step.with_fail_after_as(form);
        }
        if let Some(headers) = &self.headers {
            step = step.with_reply_headers(reply_headers(headers)?);
        }
        if let Some(ms) = self.go_away_ms {
            step = step.with_go_away(ms);
        }
        if let Some(kind) = self.fault {
            if self.generate.is_some() {
                return Err(SpecProblem::new(".fault", "a generated answer cannot name a fault: script the answer"));
            }
            step = step.with_fault(kind).map_err(|e| SpecProblem::new(".fault", e.message()))?;
        }
        if let Some(recorded) = &self.recorded {
            check_recorded(recorded)?;
            // Replayed as recorded only while the neutral answer is the one recorded with it.
            let edited = recorded.answer_digest.as_ref().is_some_and(|digest| *digest != self.answer_digest());
            if !edited {
                step = step.with_recorded(std::sync::Arc::clone(recorded));
            }
        }
        Ok(step)
    }

    /// The digest of this step's neutral answer (every field but `recorded`), as a recorder writes it.
    pub fn answer_digest(&self) -> String {
        // `recorded` is shared, so the copy costs the neutral fields only.
        let neutral = StepSpec { recorded: None, ..self.clone() };
        crate::script::recorded::answer_digest(&serde_json::to_string(&neutral).unwrap_or_default())
    }

    fn answer(&self) -> std::result::Result<Answer, SpecProblem> {
        let text = match (&self.text, &self.tokens) {
            (Some(text), _) if text.is_empty() => {
                return Err(SpecProblem::new(
                    ".text",
                    "the text cannot be empty: use \"tokens\": [] for an answer without text",
                ))
            }
            (Some(text), _) => Some(Chunks::Words(text.clone())),
            (None, Some(tokens)) => {
                if let Some(i) = tokens.iter().position(String::is_empty) {
                    return Err(SpecProblem::new(&format!(".tokens[{i}]"), "a token cannot be empty"));
                }
                (!tokens.is_empty()).then(|| Chunks::Exact(tokens.clone()))
            }
            (None, None) => self.refusal.clone().map(Chunks::Words),
        };
        let thinking = match &self.thinking {
            Some(t) if t.is_empty() => return Err(SpecProblem::new(".thinking", "the thinking cannot be empty")),
            other => other.clone().map(Chunks::Words),
        };
        if self.tool_calls.as_ref().is_some_and(Vec::is_empty) {
            return Err(SpecProblem::new(
                ".tool_calls",
                "tool_calls cannot be empty: leave it out for an answer without tool calls",
            ));
        }
        let mut tool_calls = Vec::new();
        for (i, call) in self.tool_calls.iter().flatten().enumerate() {
            tool_calls
                .push(call.build().map_err(|p| SpecProblem { path: format!(".tool_calls[{i}]{}", p.path), ..p })?);
        }
        Ok(Answer { thinking, text, tool_calls })
    }
}

/// The moderation categories OpenAI scores (`omni-moderation-latest`), in its order.
pub const MODERATION_CATEGORIES: [&str; 13] = [
    "harassment",
    "harassment/threatening",
    "hate",
    "hate/threatening",
    "illicit",
    "illicit/violent",
    "self-harm",
    "self-harm/intent",
    "self-harm/instructions",
    "sexual",
    "sexual/minors",
    "violence",
    "violence/graphic",
];

/// A `flagged` verdict as the JSON text of its scores by category (a listed category scores 0.99), checking the
/// names and scores.
fn moderation_scores(verdict: &Value) -> std::result::Result<String, SpecProblem> {
    let known = |name: &str, path: &str| {
        if MODERATION_CATEGORIES.contains(&name) {
            Ok(())
        } else {
            Err(SpecProblem::new(
                path,
                format!("{name:?} is not a moderation category ({})", MODERATION_CATEGORIES.join(", ")),
            ))
        }
    };
    let mut scores = serde_json::Map::new();
    match verdict {
        Value::Array(names) if !names.is_empty() => {
            for (i, name) in names.iter().enumerate() {
                let path = format!(".flagged[{i}]");
                let name = name.as_str().ok_or_else(|| SpecProblem::new(&path, "a category is a string"))?;
                known(name, &path)?;
                scores.insert(name.to_string(), Value::from(0.99));
            }
        }
        Value::Object(given) if !given.is_empty() => {
            for (name, score) in given {
                let path = format!(".flagged.{name}");
                known(name, &path)?;
                match score.as_f64() {
                    Some(number) if (0.0..=1.0).contains(&number) => scores.insert(name.clone(), score.clone()),
                    _ => return Err(SpecProblem::new(&path, format!("the score {score} is not a number from 0 to 1"))),
                };
            }
        }
        _ => {
            return Err(SpecProblem::new(
                ".flagged",
                "give the flagged categories as a non-empty list of names, or scores by name",
            ))
        }
    }
    Ok(Value::Object(scores).to_string())
}

/// What a builder verb or a scenario takes for one step: a text (streamed in word-like tokens) or a step spec.
/// As data, a JSON string or a JSON object.
#[derive(Clone, Debug, PartialEq)]
pub enum StepInput {
    /// `"Hello!"`: the same as `{"text": "Hello!"}`.
    Text(String),
    /// A step in the scenario format.
    Step(Box<StepSpec>),
}

impl StepInput {
    /// The step, or the first problem with its path relative to the step.
    pub fn build(&self) -> std::result::Result<Step, SpecProblem> {
        match self {
            StepInput::Text(text) if text.is_empty() => Err(SpecProblem::new(
                "",
                "the text of a step cannot be empty: use {\"tokens\": []} for an answer without text",
            )),
            StepInput::Text(text) => {
                Ok(Step::answer(Answer { text: Some(Chunks::Words(text.clone())), ..Answer::default() }))
            }
            StepInput::Step(spec) => spec.build(),
        }
    }

    /// Reads a step input from JSON data (a host value already converted), for a parameter named `argument`.
    pub fn from_value(value: Value, argument: &str) -> Result<StepInput> {
        crate::input::strict::deserialize_data(&value).map_err(|e| {
            let path = if e.path == "." { String::new() } else { format!(".{}", e.path) };
            SpecProblem::new(&path, e.message).into_argument_error(argument)
        })
    }
}

impl From<&str> for StepInput {
    fn from(text: &str) -> StepInput {
        StepInput::Text(text.to_string())
    }
}

impl From<StepSpec> for StepInput {
    fn from(spec: StepSpec) -> StepInput {
        StepInput::Step(Box::new(spec))
    }
}

impl Serialize for StepInput {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            StepInput::Text(text) => serializer.serialize_str(text),
            StepInput::Step(spec) => spec.serialize(serializer),
        }
    }
}

// By hand rather than `untagged`, so a wrong field inside a step object keeps its exact path and message.
impl<'de> Deserialize<'de> for StepInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<StepInput, D::Error> {
        struct InputVisitor;
        impl<'de> Visitor<'de> for InputVisitor {
            type Value = StepInput;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a text or a step object ({\"text\": ...}, {\"tool_calls\": [...]}, {\"fail\": {...}}, ...)",
                )
            }
            fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<StepInput, E> {
                Ok(StepInput::Text(text.to_string()))
            }
            fn visit_string<E: de::Error>(self, text: String) -> std::result::Result<StepInput, E> {
                Ok(StepInput::Text(text))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<StepInput, A::Error> {
                StepSpec::deserialize(de::value::MapAccessDeserializer::new(map)).map(|s| StepInput::Step(Box::new(s)))
            }
        }
        deserializer.deserialize_any(InputVisitor)
    }
}

/// Which requests a route answers, as data; every given criterion must hold; an empty match takes every
/// request. (A predicate, which is code, is added by the host: see `RouteMatch::predicate`.)
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSpec {
    /// The request's operation name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The request's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The endpoint the request arrived on (`chat_completions`, `responses`, `messages`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The request's fields, as the neutral request holds them (`{"messages": [...]}`, or a recorded request
    /// whole): each given field must be equal, after normalisation (`crate::request_match`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<serde_json::Value>,
    /// Paths of the request never compared (`temperature`, `messages[*].name`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<String>,
}

impl MatchSpec {
    /// The engine's match; an invalid request matcher or ignored path is `invalid_argument` naming it.
    pub fn to_route_match(&self) -> crate::error::Result<RouteMatch> {
        self.to_route_match_ignoring(&[])
    }

    /// The engine's match, its request matcher also ignoring `also_ignored` (a recording's `ignore`).
    pub fn to_route_match_ignoring(&self, also_ignored: &[String]) -> crate::error::Result<RouteMatch> {
        if self.request.is_none() && !self.ignore.is_empty() {
            return Err(crate::error::invalid_argument("`ignore` names paths of a `request` match, and there is none"));
        }
        let request = match &self.request {
            Some(request) => {
                let ignore: Vec<String> = self.ignore.iter().chain(also_ignored).cloned().collect();
                Some(std::sync::Arc::new(crate::request_match::RequestMatcher::new(request, &ignore)?))
            }
            None => None,
        };
        Ok(RouteMatch {
            operation: self.operation.clone(),
            model: self.model.clone(),
            endpoint: self.endpoint.clone(),
            predicate: None,
            request,
        })
    }
}

/// How a binding starts a route: the match criteria and the route's own exhaustion policy in one object
/// (`{"operation": "classify", "on_exhausted": "cycle"}`), as `route(...)` takes them in every language.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteOptions {
    /// The request's operation name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// The request's model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The endpoint the request arrived on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// What the route does after its last step, instead of the mock's policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
}

impl RouteOptions {
    /// The match criteria.
    pub fn matcher(&self) -> MatchSpec {
        MatchSpec {
            operation: self.operation.clone(),
            model: self.model.clone(),
            endpoint: self.endpoint.clone(),
            ..MatchSpec::default()
        }
    }
}

/// A route in the scenario format: a match, an exhaustion policy and the steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// Which requests it answers; none means every request (such a route must come last).
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matcher: Option<MatchSpec>,
    /// What it does after its last step, instead of the scenario's policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
    /// How its wire requests are checked against the real APIs' rules, instead of the scenario's `contracts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<crate::contracts::Contracts>,
    /// The steps, in order.
    pub steps: Vec<StepInput>,
}

/// What a recorded exchange must be to replay: a status, and a body or frames, not both.
fn check_recorded(recorded: &crate::script::recorded::Recorded) -> std::result::Result<(), SpecProblem> {
    if !(100..=599).contains(&recorded.status) {
        return Err(SpecProblem::new(".recorded.status", "an HTTP status is 100-599"));
    }
    if recorded.body.is_some() && recorded.frames.is_some() {
        return Err(SpecProblem::new(".recorded", "a recorded reply has a body or frames (a stream), not both"));
    }
    if recorded.base64 && recorded.frames.is_none() {
        return Err(SpecProblem::new(".recorded.base64", "base64 says how frames are written: add frames"));
    }
    if !crate::script::recorded::is_answer_endpoint(&recorded.endpoint) {
        return Err(SpecProblem::new(
            ".recorded.endpoint",
            format!("{:?} is not an endpoint that answers with a model's reply", recorded.endpoint),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(value: Value) -> Result<Step> {
        StepInput::from_value(value, "answer")?.build().map_err(|p| p.into_argument_error("answer"))
    }

    #[test]
    fn a_text_or_a_step_object_is_a_step() {
        assert_eq!(input(json!("Hello")).unwrap().describe(), "text \"Hello\"");
        assert_eq!(input(json!({"tokens": ["a", "b"]})).unwrap().describe(), "tokens \"ab\"");
        let err = input(json!(123)).unwrap_err();
        assert_eq!(err.code(), "invalid_argument");
        assert!(
            err.message().starts_with("invalid answer: invalid type: integer `123`, expected a text or a step object"),
            "{err}"
        );
        let err = input(json!({"tool_calls": [{"name": "f", "argument": {}}]})).unwrap_err();
        assert_eq!(err.issues()[0].path, "tool_calls[0].argument", "{err}");
        assert_eq!(err.context()["argument"], "answer");
        let err = input(json!({"fail": {"kind": "custom", "status": 1000}})).unwrap_err();
        assert_eq!(err.issues()[0].path, "fail.status", "{err}");
    }

    #[test]
    fn tool_call_arguments_follow_the_seed_rule() {
        let text_of = |arguments: Value| ToolCallSpec::new("f", arguments).build().map(|call| call.arguments);
        assert_eq!(text_of(json!({"x": 1})).unwrap(), "{\"x\":1}");
        assert_eq!(text_of(json!("{\"x\": 1")).unwrap(), "{\"x\": 1");
        assert_eq!(text_of(Value::Null).unwrap(), "{}");
        for (wrong, named) in [(json!(42), "a number"), (json!([1]), "an array"), (json!(true), "a boolean")] {
            let problem = text_of(wrong).unwrap_err();
            assert_eq!(problem.path, ".arguments");
            assert!(problem.message.ends_with(named), "{}", problem.message);
        }
    }

    #[test]
    fn a_custom_failure_takes_its_status_retryability_unless_told() {
        let spec = |retryable| FailSpec { status: Some(418), retryable, ..FailSpec::of(ProviderErrorKind::Custom) };
        assert!(!spec(None).to_error().unwrap().retryable);
        assert!(spec(Some(true)).to_error().unwrap().retryable);
    }
}
