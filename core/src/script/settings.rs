//! The settings of a mock that are not steps ([`MockSettings`]), and the whole script ([`Script`]): routes and
//! settings together.

use super::route::{Exhaustion, Route};
use super::step::StepTiming;
use crate::usage::UsagePolicy;
use serde::{Deserialize, Serialize};

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
    pub delivery: Option<crate::delivery::Delivery>,
    /// Provider failures injected at seeded rates (`chaos::Chaos`); `{"rates": {}}` turns it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chaos: Option<crate::chaos::Chaos>,
    /// Faults inside answered steps, drawn at seeded rates (`faults::AnswerFaults`); `{"rates": {}}` turns it off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_faults: Option<crate::faults::AnswerFaults>,
    /// Time to first token and inter-token latency drawn from seeded log-normal profiles (`latency::Latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<crate::latency::Latency>,
    /// Whether wire requests are checked against the real APIs' rules: `off` (default), `warn`, `strict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contracts: Option<crate::contracts::Contracts>,
    /// Per-minute limits reported in each provider's rate-limit headers, and enforced as 429s when asked
    /// (`rate_limits::RateLimits`; headers on by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limits: Option<crate::rate_limits::RateLimits>,
    /// MCP servers scripted beside the model (`mcp::Mcp`), served at `/mcp` and by `cuecard mcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<crate::script::mcp::Mcp>,
    /// Remote agents scripted beside the model (`a2a::A2a`), served over A2A at `/a2a/{name}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub a2a: Option<crate::script::A2aSection>,
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
