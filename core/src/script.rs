//! Steps and routes: the script a [`crate::MockModel`] answers from.
//!
//! A [`Step`] answers exactly one request. A [`Route`] is a match (operation, model, endpoint, predicate) with its
//! own list of steps and cursor; the first route that matches a request answers it. What happens after the last
//! step is the route's [`Exhaustion`] policy.

use crate::error::{invalid_argument, invalid_state, Error, ErrorKind, Result};
use crate::failure::ProviderError;
use crate::model::{ChatRequest, ChatResponse, FinishReason, Usage};
use crate::usage::UsagePolicy;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Text to stream: split by the word-like rule, or exactly the given tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunks {
    /// Split into word-like tokens (`docs/tokens.md`).
    Words(String),
    /// Exactly these tokens, in order.
    Exact(Vec<String>),
}

impl Chunks {
    /// The whole text.
    pub fn text(&self) -> String {
        match self {
            Chunks::Words(text) => text.clone(),
            Chunks::Exact(tokens) => tokens.concat(),
        }
    }

    /// The tokens to stream, in order.
    pub fn tokens(&self) -> Vec<&str> {
        match self {
            Chunks::Words(text) => crate::tokenize(text).collect(),
            Chunks::Exact(tokens) => tokens.iter().map(String::as_str).collect(),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Chunks::Words(text) => text.is_empty(),
            Chunks::Exact(tokens) => tokens.is_empty(),
        }
    }
}

/// A tool call as scripted: the id is optional (the mock assigns `call_N`), the arguments are raw JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedToolCall {
    /// A fixed id, or `None` for the mock's next id.
    pub id: Option<String>,
    /// The tool's name.
    pub name: String,
    /// The arguments as JSON text, possibly invalid on purpose.
    pub arguments: String,
}

impl ScriptedToolCall {
    /// A call with arguments given as a JSON value (usually an object).
    pub fn new(name: impl Into<String>, arguments: &Value) -> ScriptedToolCall {
        ScriptedToolCall { id: None, name: name.into(), arguments: arguments.to_string() }
    }

    /// A call with arguments given as raw JSON text, which may be invalid JSON.
    pub fn raw(name: impl Into<String>, arguments_json: impl Into<String>) -> ScriptedToolCall {
        ScriptedToolCall { id: None, name: name.into(), arguments: arguments_json.into() }
    }
}

/// The content of an answer step: thinking, then text, then tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// Reasoning, streamed first.
    pub thinking: Option<Chunks>,
    /// Text, streamed second. `None` means the answer has no text (not `""`).
    pub text: Option<Chunks>,
    /// Tool calls, streamed last.
    pub tool_calls: Vec<ScriptedToolCall>,
}

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

/// The longest scripted wait: a day. A longer one is a typo (a second count written in microseconds), and on
/// the wire it would hold a connection for years; the virtual clock (`advance_clock`) covers longer spans.
pub const MAX_WAIT_MS: u64 = 86_400_000;

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
    pub(crate) recorded: Option<std::sync::Arc<crate::recorded::Recorded>>,
    /// Headers added to the step's wire reply (lower-case names), replacing any of the same name.
    pub(crate) reply_headers: Vec<(String, String)>,
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

    /// Adds `headers` to this step's wire reply (names lower-cased), replacing any of the same name: a
    /// provider's rate-limit headers, or any other.
    pub fn with_reply_headers(mut self, headers: Vec<(String, String)>) -> Step {
        self.reply_headers = headers.into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
        self
    }

    /// Replays `recorded` on the protocol it came from, instead of encoding this step's answer there.
    pub fn with_recorded(mut self, recorded: std::sync::Arc<crate::recorded::Recorded>) -> Step {
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
            (None, Some(e)) if e.kind == crate::failure::ProviderErrorKind::ConnectionReset => {
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

/// What a route does with a request that arrives after its last step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exhaustion {
    /// Fail with an error that shows the request and the script's position (the default).
    #[default]
    Fail,
    /// Answer every further request with the last step (a computed last step computes again).
    RepeatLast,
    /// Start over from the first step.
    Cycle,
}

impl Exhaustion {
    /// Every policy.
    pub const ALL: [Exhaustion; 3] = [Exhaustion::Fail, Exhaustion::RepeatLast, Exhaustion::Cycle];

    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Exhaustion::Fail => "fail",
            Exhaustion::RepeatLast => "repeat_last",
            Exhaustion::Cycle => "cycle",
        }
    }
}

impl std::str::FromStr for Exhaustion {
    type Err = Error;

    /// `fail`, `repeat_last` or `cycle`; anything else is `invalid_argument` naming the three.
    fn from_str(text: &str) -> Result<Exhaustion> {
        Exhaustion::ALL.into_iter().find(|e| e.as_str() == text).ok_or_else(|| {
            invalid_argument(format!("on_exhausted {text:?} is not one of fail, repeat_last, cycle"))
                .with_context("argument", "on_exhausted")
        })
    }
}

/// A predicate over requests, for routes that match by content.
pub type RequestPredicate = Arc<dyn Fn(&ChatRequest) -> bool + Send + Sync>;

/// Which requests a route answers. Every given criterion must hold; an empty match takes every request.
#[derive(Clone, Default)]
pub struct RouteMatch {
    /// The request's operation name.
    pub operation: Option<String>,
    /// The request's model.
    pub model: Option<String>,
    /// The endpoint the request arrived on.
    pub endpoint: Option<String>,
    /// Any further condition.
    pub predicate: Option<RequestPredicate>,
    /// The request itself, field by field (a recorded exchange's route holds the whole request).
    pub request: Option<Arc<crate::request_match::RequestMatcher>>,
}

impl fmt::Debug for RouteMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl RouteMatch {
    /// Matches every request.
    pub fn any() -> RouteMatch {
        RouteMatch::default()
    }

    /// Matches requests for this operation.
    pub fn operation(operation: impl Into<String>) -> RouteMatch {
        RouteMatch { operation: Some(operation.into()), ..RouteMatch::default() }
    }

    /// Matches requests for this model.
    pub fn model(model: impl Into<String>) -> RouteMatch {
        RouteMatch { model: Some(model.into()), ..RouteMatch::default() }
    }

    /// Matches requests that arrived on this endpoint.
    pub fn endpoint(endpoint: impl Into<String>) -> RouteMatch {
        RouteMatch { endpoint: Some(endpoint.into()), ..RouteMatch::default() }
    }

    /// Matches requests for which `predicate` holds.
    pub fn predicate(predicate: impl Fn(&ChatRequest) -> bool + Send + Sync + 'static) -> RouteMatch {
        RouteMatch { predicate: Some(Arc::new(predicate)), ..RouteMatch::default() }
    }

    /// Adds a model criterion.
    pub fn and_model(mut self, model: impl Into<String>) -> RouteMatch {
        self.model = Some(model.into());
        self
    }

    /// Whether the route takes `request`.
    pub fn matches(&self, request: &ChatRequest) -> bool {
        self.operation.as_deref().is_none_or(|op| request.metadata.operation.as_deref() == Some(op))
            && self.model.as_deref().is_none_or(|model| request.model == model)
            && self.endpoint.as_deref().is_none_or(|ep| request.metadata.endpoint.as_deref() == Some(ep))
            && self.predicate.as_ref().is_none_or(|p| p(request))
            && self.request.as_ref().is_none_or(|m| m.matches(request))
    }

    /// Whether this matches every request.
    pub fn is_default(&self) -> bool {
        self.operation.is_none()
            && self.model.is_none()
            && self.endpoint.is_none()
            && self.predicate.is_none()
            && self.request.is_none()
    }

    /// `operation="classify", model="gpt-4o"`, or `default`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(op) = &self.operation {
            parts.push(format!("operation={op:?}"));
        }
        if let Some(model) = &self.model {
            parts.push(format!("model={model:?}"));
        }
        if let Some(endpoint) = &self.endpoint {
            parts.push(format!("endpoint={endpoint:?}"));
        }
        if self.predicate.is_some() {
            parts.push("predicate".to_string());
        }
        if let Some(request) = &self.request {
            let fields = request.fields().collect::<Vec<_>>().join(", ");
            match request.last_user_text() {
                Some(text) => parts.push(format!("request ({fields}; last user message {:?})", brief_text(&text))),
                None => parts.push(format!("request ({fields})")),
            }
        }
        if parts.is_empty() {
            "default".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// A text cut to 60 characters for a one-line description.
fn brief_text(text: &str) -> String {
    const LIMIT: usize = 60;
    if text.chars().count() <= LIMIT {
        return text.to_string();
    }
    let cut: String = text.chars().take(LIMIT).collect();
    format!("{cut}...")
}

/// A route: a match and its own steps, cursor and exhaustion policy.
#[derive(Clone, Debug, Default)]
pub struct Route {
    pub(crate) matcher: RouteMatch,
    pub(crate) steps: Vec<Arc<Step>>,
    pub(crate) exhaustion: Option<Exhaustion>,
    /// How its wire requests are checked against the real APIs' rules, instead of the mock's `contracts`.
    pub(crate) contracts: Option<crate::wire::Contracts>,
}

impl Route {
    /// A route with no steps yet.
    pub fn new(matcher: RouteMatch) -> Route {
        Route { matcher, steps: Vec::new(), exhaustion: None, contracts: None }
    }

    /// Adds a step.
    pub fn step(mut self, step: Step) -> Route {
        self.steps.push(Arc::new(step));
        self
    }

    /// Sets how this route's wire requests are checked against the real APIs' rules (otherwise the mock's
    /// `contracts`).
    pub fn contracts(mut self, contracts: crate::wire::Contracts) -> Route {
        self.contracts = Some(contracts);
        self
    }

    /// Sets this route's exhaustion policy (otherwise the mock's).
    pub fn on_exhausted(mut self, exhaustion: Exhaustion) -> Route {
        self.exhaustion = Some(exhaustion);
        self
    }

    /// The match.
    pub fn matcher(&self) -> &RouteMatch {
        &self.matcher
    }

    /// The steps, in order.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().map(|s| s.as_ref())
    }

    /// Checks a route under the effective policy: a repeating last step may not call a tool (an agent would
    /// call it forever) unless it is computed.
    pub(crate) fn check_policy(&self, effective: Exhaustion) -> Result<()> {
        if effective == Exhaustion::RepeatLast {
            if let Some(last) = self.steps.last() {
                if last.calls_tools() {
                    return Err(invalid_state(
                        "a step that calls a tool cannot repeat: an agent would call the tool again and again; \
                         compute the answer instead to test a model that keeps calling a tool",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The settings of a mock that are not steps: every one can come from a scenario file or be set from code
/// (`MockModel::configure`), in every language. Each field is optional: `configure` changes only what is given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockSettings {
    /// What routes without a policy of their own do after their last step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
    /// How responses report token usage: `"none"`, `"estimate"` or a given usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsagePolicy>,
    /// The seed of everything random.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The provider id in call records (default `"mock"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// Capabilities the mock declares, for code that asks (it answers from its script regardless).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Vec<String>>,
    /// Delays for steps that do not set their own (Cogitator's `setDefaultDelay`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_defaults: Option<StepTiming>,
    /// Whether hosts skip the scripted delays (virtual times are still recorded). Bindings and the server read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instant: Option<bool>,
    /// Keep only the last N journal entries (counters still count every request); `0` keeps none. Set from code
    /// or the CLI, not from a scenario.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_limit: Option<usize>,
    /// Where Chat Completions replies carry scripted thinking (`none`, `reasoning_content`, `reasoning`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_field: Option<ReasoningField>,
    /// How fast recorded replies are replayed: their recorded waits divided by this (default 1; `instant` skips
    /// them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_speed: Option<f64>,
    /// Whether the routes are recordings: a request none matches is `no_recording` rather than
    /// `no_route_matched`. A scenario's `recording` section sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<bool>,
    /// How streamed replies are delivered over the wire: seeded cuts, keep-alives, whitespace (`wire::Delivery`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<crate::wire::Delivery>,
    /// Provider failures injected at seeded rates (`chaos::Chaos`); `{"rates": {}}` turns it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chaos: Option<crate::chaos::Chaos>,
    /// Time to first token and inter-token latency drawn from seeded log-normal profiles (`latency::Latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<crate::latency::Latency>,
    /// Whether wire requests are checked against the real APIs' rules: `off` (default), `warn`, `strict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<crate::wire::Contracts>,
    /// Per-minute limits reported in each provider's rate-limit headers, and enforced as 429s when asked
    /// (`rate_limits::RateLimits`; headers on by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<crate::rate_limits::RateLimits>,
    /// MCP servers scripted beside the model (`mcp::Mcp`), served at `/mcp` and by `cuecard mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<crate::mcp::Mcp>,
}

/// Where Chat Completions replies carry a step's thinking. OpenAI's own API sends no reasoning text, so by default
/// it is not sent (its time still passes); OpenAI-compatible providers send it beside the content: DeepSeek and older
/// vLLM as `reasoning_content`, OpenRouter, Groq and newer vLLM as `reasoning` (`../shared/spec/providers.md` §6.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningField {
    /// Not sent (OpenAI).
    #[default]
    None,
    /// `message.reasoning_content` / `delta.reasoning_content` (DeepSeek, older vLLM).
    ReasoningContent,
    /// `message.reasoning` / `delta.reasoning` (OpenRouter, Groq, newer vLLM).
    Reasoning,
}

impl ReasoningField {
    /// The JSON key, or `None` when thinking is not sent.
    pub const fn key(self) -> Option<&'static str> {
        match self {
            ReasoningField::None => None,
            ReasoningField::ReasoningContent => Some("reasoning_content"),
            ReasoningField::Reasoning => Some("reasoning"),
        }
    }
}

/// A whole script: routes with their steps, and the settings. A scenario builds one; a mock is made from one or
/// replaces its own with one.
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// The routes, in match order.
    pub routes: Vec<Route>,
    /// The settings.
    pub settings: MockSettings,
}

/// An error raised by a host callback (a Python exception, a JS error, ...), carried through the core unchanged
/// so the binding can re-raise the very same object.
#[derive(Clone)]
pub struct HostError {
    message: String,
    payload: Arc<dyn Any + Send + Sync>,
}

impl HostError {
    /// Wraps a host error object with a message for Rust-side display.
    pub fn new(message: impl Into<String>, payload: Arc<dyn Any + Send + Sync>) -> HostError {
        HostError { message: message.into(), payload }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The host's error object.
    pub fn payload(&self) -> &Arc<dyn Any + Send + Sync> {
        &self.payload
    }
}

impl fmt::Debug for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostError").field("message", &self.message).finish_non_exhaustive()
    }
}

/// Why a call to the mock did not produce a response.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CallError {
    /// The script says the provider fails this way.
    #[error("{0}")]
    Provider(ProviderError),
    /// cuecard itself refused: the script ran out, no route matched, a callback misbehaved.
    #[error("{0}")]
    Cuecard(Error),
    /// A host callback raised this error; bindings re-raise it unchanged.
    #[error("{}", .0.message)]
    Host(HostError),
}

impl CallError {
    /// The provider failure, if it is one.
    pub fn provider(&self) -> Option<&ProviderError> {
        match self {
            CallError::Provider(e) => Some(e),
            _ => None,
        }
    }

    /// cuecard's own error, if it is one.
    pub fn cuecard(&self) -> Option<&Error> {
        match self {
            CallError::Cuecard(e) => Some(e),
            _ => None,
        }
    }

    /// The stable code of a cuecard error or the kind of a provider failure (`host_error` for host errors).
    pub fn code(&self) -> &'static str {
        match self {
            CallError::Provider(e) => e.kind.code(),
            CallError::Cuecard(e) => e.code(),
            CallError::Host(_) => ErrorKind::HostError.code(),
        }
    }
}

impl From<Error> for CallError {
    fn from(error: Error) -> CallError {
        CallError::Cuecard(error)
    }
}

impl From<ProviderError> for CallError {
    fn from(error: ProviderError) -> CallError {
        CallError::Provider(error)
    }
}

pub(crate) fn callback_failed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::CallbackFailed, message)
}

impl HostError {
    /// The error other languages and the wire see of a host error: `host_error` with its message.
    pub fn to_error(&self) -> Error {
        Error::new(ErrorKind::HostError, self.message.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_and_empty_tokens_are_refused_with_a_reason() {
        assert_eq!(Step::text("").unwrap_err().code(), "invalid_argument");
        let err = Step::tokens(["a", ""]).unwrap_err();
        assert!(err.message().contains("token 1 is empty"), "{}", err.message());
        assert!(Step::tokens(Vec::<String>::new()).is_ok());
    }

    #[test]
    fn failing_after_needs_tokens_and_only_once() {
        let step = Step::text("hi").unwrap().failing_after(ProviderError::connection_reset()).unwrap();
        assert_eq!(step.describe(), "text \"hi\", then fail connection_reset");
        assert_eq!(step.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
        let tool = Step::tool_call("f", &serde_json::json!({}));
        assert_eq!(tool.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
        let fail = Step::fail(ProviderError::rate_limited());
        assert_eq!(fail.failing_after(ProviderError::server_error()).unwrap_err().code(), "invalid_state");
    }

    #[test]
    fn route_match_requires_every_given_criterion() {
        let m = RouteMatch::operation("classify").and_model("gpt-4o");
        let mut request = ChatRequest::user("gpt-4o", "hi").with_operation("classify");
        assert!(m.matches(&request));
        request.model = "other".into();
        assert!(!m.matches(&request));
        assert!(RouteMatch::any().matches(&request));
        assert_eq!(m.describe(), "operation=\"classify\", model=\"gpt-4o\"");
    }

    #[test]
    fn preview_shortens_long_text() {
        assert_eq!(preview("short"), "\"short\"");
        assert_eq!(preview(&"x".repeat(40)), format!("\"{}\"…", "x".repeat(23)));
    }
}
