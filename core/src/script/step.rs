//! A step: one answer to one request (text, tokens, thinking, tool calls, a whole response, a failure before or after
//! streaming, a recorded exchange, a generated or computed answer), with its timing.

use super::call_error::CallError;
use crate::answer::{Answer, Chunks, ScriptedToolCall};
use crate::clock::MAX_WAIT_MS;
use crate::error::{invalid_argument, invalid_state, Result};
use crate::model::{ChatRequest, ChatResponse, FinishReason, Usage};
use crate::provider_error::ProviderError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// An answer computed from the request when the request arrives. Bindings implement this over host callables.
pub trait Responder: Send + Sync {
    /// Computes the step that answers `request`. The returned step may not itself be computed.
    fn respond(&self, request: &ChatRequest) -> Result<Step, CallError>;

    /// For hosts whose callbacks may answer later (a JS function returning a Promise): the key under which the
    /// host keeps the callback. A [`crate::Turn`] that stops at this step hands the key back, so the host can
    /// await its callback and [`crate::Pending::resume`] the call, instead of `respond` blocking a thread.
    fn host_key(&self) -> Option<u64> {
        None
    }
}

impl<F> Responder for F
where
    F: Fn(&ChatRequest) -> Result<Step, CallError> + Send + Sync,
{
    fn respond(&self, request: &ChatRequest) -> Result<Step, CallError> {
        self(request)
    }
}

/// What a step does.
#[derive(Clone)]
pub enum StepBody {
    /// Stream an answer built from parts.
    Answer(Answer),
    /// Stream the message of this whole response and complete with exactly it (only missing tool-call ids filled).
    Response(ChatResponse),
    /// Fail before anything is streamed.
    Fail(ProviderError),
    /// Compute the step from the request.
    Compute(Arc<dyn Responder>),
    /// Generate tool calls or a structured output from the schemas the request declared (`generate`).
    Generate(Box<crate::generate::GenerateStep>),
}

impl fmt::Debug for StepBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StepBody::Answer(answer) => f.debug_tuple("Answer").field(answer).finish(),
            StepBody::Response(response) => f.debug_tuple("Response").field(response).finish(),
            StepBody::Fail(error) => f.debug_tuple("Fail").field(error).finish(),
            StepBody::Compute(_) => f.write_str("Compute(..)"),
            StepBody::Generate(spec) => f.debug_tuple("Generate").field(spec).finish(),
        }
    }
}

/// The virtual delays of one answer, in milliseconds, resolved from its step and the mock's step defaults. They
/// are data on the stream events; who consumes the stream decides whether to wait them out in real time or only
/// record them (virtual time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// Before the answer (or the failure) starts.
    pub delay_ms: u64,
    /// Added before the first streamed event (time to first token).
    pub ttft_ms: u64,
    /// Before each further streamed token.
    pub token_delay_ms: u64,
    /// On the wire: hold the response this long without sending anything (after the headers of a stream,
    /// before the body of a whole answer), to provoke a client's read timeout.
    #[serde(default)]
    pub stall_ms: u64,
    /// Inter-token latencies drawn from the `latency` profile, in place of `token_delay_ms`. Not data: the profile
    /// and the request's index give it.
    #[serde(skip)]
    pub itl: Option<crate::latency::TokenLatency>,
}

impl Timing {
    /// The wait before delta `k` after the first event (`k` from 1).
    pub(crate) fn before_delta(&self, k: u64) -> u64 {
        match &self.itl {
            Some(itl) => itl.before_delta(k),
            None => self.token_delay_ms,
        }
    }
}

/// The delays a step sets. A field it leaves unset takes the mock's step default (Cogitator's
/// `setDefaultDelay`, the scenario's `step_defaults`), else 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepTiming {
    /// Before the answer (or the failure) starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Added before the first streamed event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Before each further streamed token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_delay_ms: Option<u64>,
    /// On the wire: hold the response this long without sending anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_ms: Option<u64>,
}

impl StepTiming {
    /// The first field over `MAX_WAIT_MS`, with what is wrong.
    pub fn check(&self) -> std::result::Result<(), (&'static str, String)> {
        for (field, value) in [
            ("delay_ms", self.delay_ms),
            ("ttft_ms", self.ttft_ms),
            ("token_delay_ms", self.token_delay_ms),
            ("stall_ms", self.stall_ms),
        ] {
            if let Some(ms) = value.filter(|ms| *ms > MAX_WAIT_MS) {
                return Err((
                    field,
                    format!("{ms} ms is longer than a day ({MAX_WAIT_MS} ms), the longest scripted wait"),
                ));
            }
        }
        Ok(())
    }

    /// Each field of `self`, or else of `fallback`.
    pub fn or(self, fallback: StepTiming) -> StepTiming {
        StepTiming {
            delay_ms: self.delay_ms.or(fallback.delay_ms),
            ttft_ms: self.ttft_ms.or(fallback.ttft_ms),
            token_delay_ms: self.token_delay_ms.or(fallback.token_delay_ms),
            stall_ms: self.stall_ms.or(fallback.stall_ms),
        }
    }

    /// The delays to use: unset fields are 0.
    pub fn resolve(self) -> Timing {
        Timing {
            delay_ms: self.delay_ms.unwrap_or(0),
            ttft_ms: self.ttft_ms.unwrap_or(0),
            token_delay_ms: self.token_delay_ms.unwrap_or(0),
            stall_ms: self.stall_ms.unwrap_or(0),
            itl: None,
        }
    }
}

impl From<Timing> for StepTiming {
    fn from(t: Timing) -> StepTiming {
        StepTiming {
            delay_ms: Some(t.delay_ms),
            ttft_ms: Some(t.ttft_ms),
            token_delay_ms: Some(t.token_delay_ms),
            stall_ms: Some(t.stall_ms),
        }
    }
}

/// How a failure after the tokens looks on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamBreak {
    /// The provider's own error event, then the body ends (the default, except for `connection_reset`).
    #[default]
    ErrorEvent,
    /// The connection is cut: the body ends without its terminating chunk.
    ConnectionCut,
    /// The body ends cleanly, without the protocol's terminator (`[DONE]`, `message_stop`, ...).
    CleanEnd,
}

/// One answer to one request.
#[derive(Clone, Debug)]
pub struct Step {
    pub(crate) body: StepBody,
    pub(crate) finish_reason: Option<FinishReason>,
    pub(crate) usage: Option<Usage>,
    pub(crate) timing: StepTiming,
    pub(crate) fail_after: Option<ProviderError>,
    pub(crate) fail_after_as: Option<StreamBreak>,
    /// A real provider's reply to replay as is on its protocol (a recording's step).
    pub(crate) recorded: Option<std::sync::Arc<crate::script::recorded::Recorded>>,
    /// Headers added to the step's wire reply (lower-case names), replacing any of the same name.
    pub(crate) reply_headers: Vec<(String, String)>,
    /// On a realtime socket, the session ends after this answer, announced this many milliseconds ahead.
    pub(crate) go_away_ms: Option<u64>,
    /// A fault inside the answer this step always makes (`faults::FaultKind`), as `answer_faults` would draw it.
    pub(crate) fault: Option<crate::faults::FaultKind>,
    /// The estimated output tokens of the answer as scripted, counted on first use.
    pub(crate) output_tokens: OutputTokensOnce,
}

/// A step's estimated output tokens, counted once: every wire reply reports usage (the estimate when the script
/// gives none), and a repeated step answers the same text each time, which was counted again on every request
/// (issue #31: 5% of a request's instructions). A clone starts empty, since a cloned step may be changed.
#[derive(Default)]
pub(crate) struct OutputTokensOnce(std::sync::OnceLock<u64>);

impl Clone for OutputTokensOnce {
    fn clone(&self) -> Self {
        OutputTokensOnce::default()
    }
}

impl fmt::Debug for OutputTokensOnce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OutputTokensOnce")
    }
}

impl Step {
    fn from_body(body: StepBody) -> Step {
        Step {
            body,
            finish_reason: None,
            usage: None,
            timing: StepTiming::default(),
            fail_after: None,
            fail_after_as: None,
            recorded: None,
            reply_headers: Vec::new(),
            go_away_ms: None,
            fault: None,
            output_tokens: OutputTokensOnce::default(),
        }
    }

    /// The estimated output tokens of this step's answer as scripted (text, thinking, tool calls; what
    /// `usage::estimate_output_tokens` gives for the response the answer makes when nothing cuts it), counted once.
    /// `None` for a step that is not an answer.
    pub(crate) fn answer_output_tokens(&self) -> Option<u64> {
        let StepBody::Answer(answer) = &self.body else { return None };
        Some(*self.output_tokens.0.get_or_init(|| crate::usage::estimate_answer_tokens(answer)))
    }

    /// On a realtime socket, ends the session after this answer: Gemini Live sends `goAway` with `timeLeft` of `ms`,
    /// OpenAI Realtime a `session_expired` error, and the socket is closed with 1000.
    pub fn with_go_away(mut self, ms: u64) -> Step {
        self.go_away_ms = Some(ms);
        self
    }

    /// Makes this step's answer faulty in the way `kind` names (`FaultKind`), every time it is taken, as the
    /// `answer_faults` setting would when it draws `kind`. The kind must apply to the answer: a tool-call fault needs
    /// tool calls, a text fault text, `output_schema_violation` a JSON object as text.
    pub fn with_fault(mut self, kind: crate::faults::FaultKind) -> Result<Step> {
        let StepBody::Answer(answer) = &self.body else {
            return Err(invalid_argument(format!("fault {} needs an answer step, not a failure", kind.as_str())));
        };
        let missing = kind.missing_in(answer);
        if let Some(missing) = missing {
            return Err(invalid_argument(format!("fault {} needs a step with {missing}", kind.as_str())));
        }
        self.fault = Some(kind);
        Ok(self)
    }

    /// Adds `headers` to this step's wire reply (names lower-cased), replacing any of the same name: a
    /// provider's rate-limit headers, or any other.
    pub fn with_reply_headers(mut self, headers: Vec<(String, String)>) -> Step {
        self.reply_headers = headers.into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
        self
    }

    /// Replays `recorded` on the protocol it came from, instead of encoding this step's answer there.
    pub fn with_recorded(mut self, recorded: std::sync::Arc<crate::script::recorded::Recorded>) -> Step {
        self.recorded = Some(recorded);
        self
    }

    /// How the failure after the tokens shows on the wire (default: the provider's error event, or a cut
    /// connection for `connection_reset`).
    pub fn with_fail_after_as(mut self, form: StreamBreak) -> Step {
        self.fail_after_as = Some(form);
        self
    }

    /// The wire form of the failure after the tokens.
    pub fn stream_break(&self) -> StreamBreak {
        match (&self.fail_after_as, &self.fail_after) {
            (Some(form), _) => *form,
            (None, Some(e)) if e.kind == crate::provider_error::ProviderErrorKind::ConnectionReset => {
                StreamBreak::ConnectionCut
            }
            _ => StreamBreak::ErrorEvent,
        }
    }

    /// Holds the wire response `ms` without sending anything.
    pub fn with_stall_ms(mut self, ms: u64) -> Step {
        self.timing.stall_ms = Some(ms);
        self
    }

    /// Streams `text` in word-like tokens. Empty text is refused: a provider that streams no text completes
    /// with no text; use [`Step::tokens`] with no tokens for that, or [`Step::response`] for exactly `""`.
    pub fn text(text: impl Into<String>) -> Result<Step> {
        let text = text.into();
        if text.is_empty() {
            return Err(invalid_argument(
                "the text of a step cannot be empty: use tokens([]) for an answer without text, \
                 or a whole response for exactly \"\"",
            ));
        }
        Ok(Step::answer(Answer { text: Some(Chunks::Words(text)), ..Answer::default() }))
    }

    /// Streams exactly these tokens; together they make the answer's text. No tokens: no text at all.
    pub fn tokens<I, S>(tokens: I) -> Result<Step>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let tokens: Vec<String> = tokens.into_iter().map(Into::into).collect();
        if let Some(i) = tokens.iter().position(String::is_empty) {
            return Err(invalid_argument(format!(
                "token {i} is empty: every streamed token needs at least one character"
            )));
        }
        let text = (!tokens.is_empty()).then_some(Chunks::Exact(tokens));
        Ok(Step::answer(Answer { text, ..Answer::default() }))
    }

    /// Streams `thinking`, then `text`; either may be empty (then it is absent), not both.
    pub fn thinking_and_text(thinking: impl Into<String>, text: impl Into<String>) -> Result<Step> {
        let (thinking, text) = (thinking.into(), text.into());
        if thinking.is_empty() && text.is_empty() {
            return Err(invalid_argument("a thinking step needs thinking or text"));
        }
        Ok(Step::answer(Answer {
            thinking: (!thinking.is_empty()).then_some(Chunks::Words(thinking)),
            text: (!text.is_empty()).then_some(Chunks::Words(text)),
            tool_calls: Vec::new(),
        }))
    }

    /// Calls one tool with arguments given as a JSON value.
    pub fn tool_call(name: impl Into<String>, arguments: &Value) -> Step {
        Step::tool_calls(vec![ScriptedToolCall::new(name, arguments)])
    }

    /// Calls one tool with arguments given as raw JSON text (which may be invalid JSON on purpose).
    pub fn tool_call_json(name: impl Into<String>, arguments_json: impl Into<String>) -> Step {
        Step::tool_calls(vec![ScriptedToolCall::raw(name, arguments_json)])
    }

    /// Calls several tools in one answer.
    pub fn tool_calls(calls: Vec<ScriptedToolCall>) -> Step {
        Step::answer(Answer { tool_calls: calls, ..Answer::default() })
    }

    /// Any answer built from parts.
    pub fn answer(answer: Answer) -> Step {
        Step::from_body(StepBody::Answer(answer))
    }

    /// Streams the message of `response` and completes with exactly it; only missing tool-call ids are filled.
    pub fn response(response: ChatResponse) -> Step {
        Step::from_body(StepBody::Response(response))
    }

    /// Fails before anything is streamed.
    pub fn fail(error: ProviderError) -> Step {
        Step::from_body(StepBody::Fail(error))
    }

    /// Computes the answer from the request when it arrives.
    pub fn compute(responder: impl Responder + 'static) -> Step {
        Step::from_body(StepBody::Compute(Arc::new(responder)))
    }

    /// Computes the answer with a shared responder.
    pub fn compute_shared(responder: Arc<dyn Responder>) -> Step {
        Step::from_body(StepBody::Compute(responder))
    }

    /// A step that generates tool calls or a structured output from the schemas the request declares.
    pub fn generate(spec: crate::generate::GenerateStep) -> Step {
        Step::from_body(StepBody::Generate(Box::new(spec)))
    }

    /// Reports this finish reason instead of the derived one (`tool_calls` or `stop`).
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Step {
        self.finish_reason = Some(reason);
        self
    }

    /// Reports this usage for this step, whatever the mock's usage policy.
    pub fn with_usage(mut self, usage: Usage) -> Step {
        self.usage = Some(usage);
        self
    }

    /// Sets the delays this step gives (unset ones take the mock's step defaults).
    pub fn with_timing(mut self, timing: impl Into<StepTiming>) -> Step {
        self.timing = timing.into();
        self
    }

    /// Waits `ms` before answering.
    pub fn with_delay_ms(mut self, ms: u64) -> Step {
        self.timing.delay_ms = Some(ms);
        self
    }

    /// Waits `ms` before the first streamed token.
    pub fn with_ttft_ms(mut self, ms: u64) -> Step {
        self.timing.ttft_ms = Some(ms);
        self
    }

    /// Waits `ms` before each further token.
    pub fn with_token_delay_ms(mut self, ms: u64) -> Step {
        self.timing.token_delay_ms = Some(ms);
        self
    }

    /// Makes this step fail after its thinking and text were streamed, the way a broken connection does: no
    /// tool calls and no complete response follow. Refused for a step that already fails, computes its answer,
    /// or has no thinking or text to stream.
    pub fn failing_after(mut self, error: ProviderError) -> Result<Step> {
        if self.fail_after.is_some() {
            return Err(invalid_state("the step already fails after its tokens"));
        }
        let has_tokens = match &self.body {
            StepBody::Fail(_) => return Err(invalid_state("the step already fails before anything is streamed")),
            StepBody::Compute(_) => {
                return Err(invalid_state(
                    "a computed step cannot fail after its tokens: let the computed step fail instead",
                ))
            }
            StepBody::Generate(spec) => spec.thinking.as_ref().is_some_and(|t| !t.is_empty()),
            StepBody::Answer(a) => {
                a.thinking.as_ref().is_some_and(|c| !c.is_empty()) || a.text.as_ref().is_some_and(|c| !c.is_empty())
            }
            StepBody::Response(r) => {
                r.message.text.as_deref().is_some_and(|t| !t.is_empty())
                    || r.message.thinking.as_deref().is_some_and(|t| !t.is_empty())
            }
        };
        if !has_tokens {
            return Err(invalid_state("the step has no thinking or text to stream before it fails"));
        }
        self.fail_after = Some(error);
        Ok(self)
    }

    /// What this step does.
    pub fn body(&self) -> &StepBody {
        &self.body
    }

    /// The delays the step sets itself.
    pub fn timing(&self) -> StepTiming {
        self.timing
    }

    /// The failure after the tokens, if any.
    pub fn fail_after(&self) -> Option<&ProviderError> {
        self.fail_after.as_ref()
    }

    /// Whether the step is computed from the request.
    pub fn is_computed(&self) -> bool {
        matches!(self.body, StepBody::Compute(_))
    }

    /// Whether the step (as scripted) answers with tool calls.
    pub fn calls_tools(&self) -> bool {
        match &self.body {
            StepBody::Answer(a) => !a.tool_calls.is_empty(),
            StepBody::Response(r) => !r.message.tool_calls.is_empty(),
            StepBody::Generate(spec) => spec.kind == crate::generate::GenerateKind::ToolCalls,
            StepBody::Fail(_) | StepBody::Compute(_) => false,
        }
    }

    /// A short description for error messages and history tables: `text "Hello, wor…"`, `fail rate_limited 429`.
    pub fn describe(&self) -> String {
        let mut out = match &self.body {
            StepBody::Answer(a) => describe_answer(a),
            StepBody::Response(r) => format!("response {}", preview(r.text())),
            StepBody::Fail(e) => describe_failure("fail", e),
            StepBody::Compute(_) => "computed".to_string(),
            StepBody::Generate(spec) => match spec.kind {
                crate::generate::GenerateKind::ToolCalls => "generate tool_calls".to_string(),
                crate::generate::GenerateKind::Output => "generate output".to_string(),
            },
        };
        if let Some(e) = &self.fail_after {
            out.push_str(", then ");
            out.push_str(&describe_failure("fail", e));
        }
        out
    }
}

fn describe_answer(answer: &Answer) -> String {
    let mut parts = Vec::new();
    if let Some(thinking) = &answer.thinking {
        parts.push(format!("thinking {}", preview(&thinking.text())));
    }
    match &answer.text {
        Some(Chunks::Words(text)) => parts.push(format!("text {}", preview(text))),
        Some(Chunks::Exact(tokens)) => parts.push(format!("tokens {}", preview(&tokens.concat()))),
        None => {}
    }
    if !answer.tool_calls.is_empty() {
        let names: Vec<&str> = answer.tool_calls.iter().map(|c| c.name.as_str()).collect();
        parts.push(format!("tool_calls [{}]", names.join(", ")));
    }
    if parts.is_empty() {
        "empty answer".to_string()
    } else {
        parts.join(", ")
    }
}

pub(crate) fn describe_failure(verb: &str, error: &ProviderError) -> String {
    match error.status {
        Some(status) => format!("{verb} {} {status}", error.kind),
        None => format!("{verb} {}", error.kind),
    }
}

/// A text shortened for one table cell, quoted as JSON.
pub(crate) fn preview(text: &str) -> String {
    const MAX_CHARS: usize = 24;
    if text.chars().count() <= MAX_CHARS {
        return serde_json::Value::from(text).to_string();
    }
    let short: String = text.chars().take(MAX_CHARS - 1).collect();
    format!("{}…", serde_json::Value::from(short))
}
