//! The `a2a` section of a scenario (and of `MockSettings`): remote agents a test scripts beside the model and its MCP
//! servers, served over the Agent2Agent protocol (v0.3 and v1.0 on one endpoint, `crate::a2a`). Each message sent to
//! an agent takes the first of its steps not yet used whose `match` it meets, as MCP tool calls do.

use super::route::Exhaustion;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `a2a` setting: `{"agents": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2a {
    /// The agents. `/a2a/{name}` serves each (its card at `/a2a/{name}/.well-known/agent-card.json`); the first also
    /// at `/a2a` with its card at `/.well-known/agent-card.json` (and the 0.2-era `/.well-known/agent.json`).
    pub agents: Vec<A2aAgent>,
}

/// One scripted remote agent: its card's facts and the steps that answer the messages sent to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aAgent {
    /// Its name: the card's `name` and the path segment of `/a2a/{name}`.
    pub name: String,
    /// The card's `description` (default: "A scripted agent (cuecard)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The card's `version` (default `1.0.0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The card's skills.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<A2aSkill>,
    /// `capabilities.streaming` (default true): clients stream their messages when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// `capabilities.pushNotifications` (default false): push configs are accepted when it is, and a webhook on
    /// loopback is POSTed the task where it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    /// `defaultInputModes` (default `["text/plain"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_modes: Option<Vec<String>>,
    /// `defaultOutputModes` (default `["text/plain"]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_modes: Option<Vec<String>>,
    /// The answers to the messages sent to it, in order.
    #[serde(default)]
    pub steps: Vec<A2aStep>,
    /// What it does after its last step (`fail`, the default: a JSON-RPC error naming the message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exhausted: Option<Exhaustion>,
}

/// A skill on the card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aSkill {
    /// `id`.
    pub id: String,
    /// `name` (default: the id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `description` (default: the name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `tags`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `examples`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
}

/// The state a step leaves its task in (v0.3 spells it `input-required`, v1.0 `TASK_STATE_INPUT_REQUIRED`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum A2aState {
    /// Done, with its artifacts (the default).
    #[default]
    Completed,
    /// Waiting for the client's next message (a follow-up with the task's id takes the next step).
    InputRequired,
    /// Waiting for the client to authenticate.
    AuthRequired,
    /// The agent failed (`status` says why).
    Failed,
    /// The agent declined the task.
    Rejected,
    /// The agent cancelled it.
    Canceled,
}

impl A2aState {
    /// Whether a task in this state takes no more messages.
    pub const fn is_terminal(self) -> bool {
        matches!(self, A2aState::Completed | A2aState::Failed | A2aState::Rejected | A2aState::Canceled)
    }
}

/// One answer of an agent. A task (the default: `text` and/or `artifacts`, ending in `state` with a `status`
/// message), a direct `message` reply instead of a task, or a JSON-RPC `error`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aStep {
    /// Only messages that meet it take this step.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matcher: Option<A2aMatch>,
    /// The answer's text: one text artifact (streamed in word-like chunks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Artifacts beside (or instead of) `text`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<A2aArtifact>,
    /// The state the task ends in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<A2aState>,
    /// The final status's message (why it failed, what input it needs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Reply with a message (`role` agent) instead of a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A JSON-RPC error instead of an answer (`-32001` task not found, `-32004` unsupported operation, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<super::mcp::McpError>,
    /// Virtual milliseconds before the answer (spread over a stream's events).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay_ms: u64,
    /// On a stream: the connection is cut after this many events, before the task reaches its state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_after: Option<usize>,
}

// How a step's artifacts are made and streamed, read by the A2A engine and the recorder: the WebAssembly module has
// neither (`a2a/absent.rs`, the `record` feature), so there these are unused.

/// A part of a message or an artifact, whatever generation carried it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) enum Part {
    Text(String),
    Data(Value),
}

#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
impl A2aStep {
    /// The artifacts this step makes, as `(name, parts)` in order: its `text` (named `answer`), then its `artifacts`.
    pub(crate) fn artifacts_made(&self) -> Vec<(Option<String>, Vec<Part>)> {
        let mut made = Vec::new();
        if let Some(text) = &self.text {
            made.push((Some("answer".to_string()), vec![Part::Text(text.clone())]));
        }
        for artifact in &self.artifacts {
            let mut parts = Vec::new();
            parts.extend(artifact.text.clone().map(Part::Text));
            parts.extend(artifact.data.clone().map(Part::Data));
            made.push((artifact.name.clone(), parts));
        }
        made
    }

    /// How many events a stream of this step sends before its final status, as `a2a::engine` streams them: the
    /// task and `working`, then each artifact of [`A2aStep::artifacts_made`] in its [`stream_chunks`]. `cut_after`
    /// this many delivers all the step has and cuts the stream before the task ends: what a recorded stream that
    /// broke off is replayed as.
    pub fn events_before_final(&self) -> usize {
        let chunks: usize = self.artifacts_made().iter().map(|(_, parts)| stream_chunks(parts).len()).sum();
        2 + chunks
    }
}

/// The chunks a stream sends an artifact's parts in: a text part word-like token by token, a data part whole.
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
pub(crate) fn stream_chunks(parts: &[Part]) -> Vec<Vec<Part>> {
    parts
        .iter()
        .flat_map(|part| match part {
            Part::Text(text) => {
                crate::tokenize::tokenize(text).map(|t| vec![Part::Text(t.to_string())]).collect::<Vec<_>>()
            }
            Part::Data(_) => vec![vec![part.clone()]],
        })
        .collect()
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// What a message must carry to take a step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aMatch {
    /// Text the message's text parts contain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The message's `contextId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Fields its `metadata` contains (objects compared key by key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// An artifact of a task: a text, or JSON data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct A2aArtifact {
    /// `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A text part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A data part (any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

// (The WebAssembly module reads the section as data and checks nothing: `script::A2aSection`.)
#[cfg_attr(target_arch = "wasm32", allow(dead_code))]
impl A2a {
    /// What is wrong with the section, if anything: `(field path below "a2a", problem)`.
    pub fn problem(&self) -> Option<(String, String)> {
        let mut names = std::collections::HashSet::new();
        for (i, agent) in self.agents.iter().enumerate() {
            let valid = !agent.name.is_empty()
                && agent.name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !valid {
                let problem = format!("{:?} is not a name of A-Z a-z 0-9 - _ . (it is a path segment)", agent.name);
                return Some((format!("agents[{i}].name"), problem));
            }
            if !names.insert(agent.name.as_str()) {
                return Some((format!("agents[{i}].name"), format!("two agents are named {:?}", agent.name)));
            }
            for (s, step) in agent.steps.iter().enumerate() {
                let answers = [
                    step.text.is_some() || !step.artifacts.is_empty() || step.state.is_some(),
                    step.message.is_some(),
                    step.error.is_some(),
                ];
                if answers.iter().filter(|a| **a).count() > 1 {
                    let problem =
                        "a step answers with a task (text, artifacts, state), a message or an error: one of them";
                    return Some((format!("agents[{i}].steps[{s}]"), problem.into()));
                }
                if let Some(a) = step.artifacts.iter().position(|a| a.text.is_none() && a.data.is_none()) {
                    return Some((
                        format!("agents[{i}].steps[{s}].artifacts[{a}]"),
                        "an artifact needs text or data".into(),
                    ));
                }
            }
        }
        None
    }
}
