//! A2A recordings (issue #53 §2): what a client exchanged with a real remote agent, kept as the `a2a` section of a
//! recording — the agent's card (description, version, skills, capabilities, modes) and each message's answer as an
//! agent step matching the message's text. Every language replays the section as it serves any scripted agent, in
//! whichever generation the client speaks.
//!
//! Both generations are read: v0.3's objects carry `kind`, v1.0 wraps each in `task`/`message`/`statusUpdate`/
//! `artifactUpdate` and spells states `TASK_STATE_*` (`../shared/spec/a2a.md` §4). A step holds where the task
//! ended, its artifacts (a lone text artifact as the step's `text`, streamed again in word-like chunks), the final
//! status's message, a direct message reply or the JSON-RPC error. A stream that broke off before the task ended is
//! replayed as the same content, cut before the final status. A task answered at once (non-blocking) is completed by
//! the `tasks/get` that later read it finished. Cards, sends and reads say what the recording keeps; cancels, push
//! configs and re-subscriptions are answered from the task on replay and not kept.

use crate::error::{invalid_argument, Result};
use crate::script::a2a::{A2a, A2aAgent, A2aArtifact, A2aMatch, A2aSkill, A2aState, A2aStep};
use crate::script::mcp::McpError;
use serde_json::{json, Value};
use std::collections::HashMap;

/// The agents recorded, in the order they were first seen.
#[derive(Debug, Default)]
pub(super) struct A2aRecording {
    agents: Vec<A2aAgent>,
    /// The step that made each task the upstream named, by its id: `(agent, step)`, to complete it when a later
    /// read finds the task finished.
    tasks: HashMap<String, (usize, usize)>,
}

/// An agent before its card is read (a client that skipped the card).
const UNNAMED: &str = "recorded";

const CARD_FILES: [&str; 2] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

impl A2aRecording {
    /// The `a2a` section of an existing recording, to go on from.
    pub(super) fn from_document(document: &Value) -> Result<A2aRecording> {
        let Some(section) = document.get("a2a") else { return Ok(A2aRecording::default()) };
        let a2a: A2a = serde_json::from_value(section.clone())
            .map_err(|e| invalid_argument(format!("the recording's a2a section: {e}")))?;
        Ok(A2aRecording { agents: a2a.agents, tasks: HashMap::new() })
    }

    pub(super) fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The section as data: `{"agents": [...]}`.
    pub(super) fn to_value(&self) -> Value {
        json!({"agents": self.agents})
    }

    /// The agent an exchange on `path` belongs to, by index (`/a2a/{name}` names one; any other path is the first).
    fn agent(&mut self, path: &str) -> usize {
        let named = named_in(path);
        let found = match named {
            Some(name) => self.agents.iter().position(|a| a.name == name),
            None => (!self.agents.is_empty()).then_some(0),
        };
        found.unwrap_or_else(|| {
            self.agents.push(new_agent(named.unwrap_or(UNNAMED)));
            self.agents.len() - 1
        })
    }

    /// Records a card fetched on `path` (its JSON body). Returns whether it was a card.
    pub(super) fn record_card(&mut self, path: &str, card: &Value) -> bool {
        if !card.is_object() || card.get("name").is_none() {
            return false;
        }
        let named_by_path = named_in(path).is_some();
        let at = self.agent(path);
        let Some(agent) = self.agents.get_mut(at) else { return false };
        // The first agent is served at `/a2a` whatever its name: it takes the card's name, made a path segment.
        if !named_by_path {
            if let Some(name) = card.get("name").and_then(Value::as_str).map(path_segment) {
                agent.name = name;
            }
        }
        agent.description = text(card, "description");
        agent.version = text(card, "version");
        agent.streaming = card.pointer("/capabilities/streaming").and_then(Value::as_bool);
        agent.push_notifications = card.pointer("/capabilities/pushNotifications").and_then(Value::as_bool);
        agent.input_modes = strings(card.get("defaultInputModes"));
        agent.output_modes = strings(card.get("defaultOutputModes"));
        agent.skills = card
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|skill| {
                Some(A2aSkill {
                    id: text(skill, "id")?,
                    name: text(skill, "name"),
                    description: text(skill, "description"),
                    tags: strings(skill.get("tags")).unwrap_or_default(),
                    examples: strings(skill.get("examples")).unwrap_or_default(),
                })
            })
            .collect();
        true
    }

    /// Records one JSON-RPC request on `path` and what answered it: the `responses` (one for a plain call, every
    /// event of a stream, in order), and whether the stream was cut. Returns whether something was kept.
    pub(super) fn record_call(&mut self, path: &str, request: &Value, responses: &[Value], cut: bool) -> bool {
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
        let params = request.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "message/send" | "SendMessage" | "message/stream" | "SendStreamingMessage" => {
                let Some(message) = params.get("message") else { return false };
                if responses.is_empty() {
                    return false;
                }
                let mut answer = Answer::default();
                for response in responses {
                    answer.read(response);
                }
                let streamed = matches!(method, "message/stream" | "SendStreamingMessage");
                let mut step = answer.step();
                let said = message_text(message);
                step.matcher = (!said.is_empty()).then(|| A2aMatch { text: Some(said), ..A2aMatch::default() });
                if streamed && step.error.is_none() && step.message.is_none() && (cut || !answer.ended) {
                    step.cut_after = Some(step.events_before_final());
                }
                let at = self.agent(path);
                let Some(agent) = self.agents.get_mut(at) else { return false };
                agent.steps.push(step);
                if let Some(task) = answer.task_id {
                    self.tasks.insert(task, (at, agent.steps.len() - 1));
                }
                true
            }
            "tasks/get" | "GetTask" => {
                let Some(response) = responses.first() else { return false };
                let mut answer = Answer::default();
                answer.read(response);
                let place = answer.task_id.as_ref().and_then(|id| self.tasks.get(id)).copied();
                let Some((agent, at)) = place.filter(|_| answer.ended) else { return false };
                let Some(step) = self.agents.get_mut(agent).and_then(|a| a.steps.get_mut(at)) else { return false };
                let matcher = step.matcher.take();
                *step = A2aStep { matcher, ..answer.step() };
                true
            }
            _ => false,
        }
    }
}

/// The agent a path names (`/a2a/{name}`, its card under it), or `None` for the first.
fn named_in(path: &str) -> Option<&str> {
    let rest = CARD_FILES.iter().find_map(|file| path.strip_suffix(file)).unwrap_or(path);
    rest.strip_prefix("/a2a/").map(|n| n.trim_end_matches('/')).filter(|n| !n.is_empty())
}

fn new_agent(name: &str) -> A2aAgent {
    A2aAgent {
        name: name.to_string(),
        description: None,
        version: None,
        skills: Vec::new(),
        streaming: None,
        push_notifications: None,
        input_modes: None,
        output_modes: None,
        steps: Vec::new(),
        on_exhausted: None,
    }
}

/// A card's name as the path segment a scenario's agent is named by (`Research Agent` is `Research-Agent`).
fn path_segment(name: &str) -> String {
    let made: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' }).collect();
    if made.is_empty() {
        UNNAMED.to_string()
    } else {
        made
    }
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value?.as_array().map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
}

/// The text parts of a message, joined as the engine joins them for matching.
fn message_text(message: &Value) -> String {
    parts_of(message).iter().filter_map(|p| p.as_str()).collect::<Vec<_>>().join("\n")
}

/// A message's or an artifact's parts: a text part as a JSON string, a data part as its data, any other part (a
/// file) as sent.
fn parts_of(holder: &Value) -> Vec<Value> {
    let parts = holder.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    parts
        .iter()
        .map(|part| match (part.get("text").and_then(Value::as_str), part.get("data")) {
            (Some(text), _) => json!(text),
            (None, Some(data)) => data.clone(),
            _ => part.clone(),
        })
        .collect()
}

/// A state where the task stops: terminal, or waiting for the client (both generations' spellings).
fn final_state(state: &str) -> Option<A2aState> {
    let state = state.strip_prefix("TASK_STATE_").map_or_else(|| state.to_string(), |s| s.to_ascii_lowercase());
    Some(match state.replace('_', "-").as_str() {
        "completed" => A2aState::Completed,
        "failed" => A2aState::Failed,
        "canceled" | "cancelled" => A2aState::Canceled,
        "rejected" => A2aState::Rejected,
        "input-required" => A2aState::InputRequired,
        "auth-required" => A2aState::AuthRequired,
        _ => return None,
    })
}

/// An error's `data` as a step gives it: v1.0's protocol `ErrorInfo` (which the engine makes again from the code)
/// is its `metadata`; anything else as sent.
fn error_data(data: Option<&Value>) -> Option<Value> {
    let data = data.filter(|d| !d.is_null())?;
    let info = data.as_array().and_then(|items| match items.as_slice() {
        [only] if only.get("domain").and_then(Value::as_str) == Some("a2a-protocol.org") => Some(only),
        _ => None,
    });
    match info {
        Some(info) => info.get("metadata").cloned(),
        None => Some(data.clone()),
    }
}

/// An artifact as read so far: its chunks joined.
#[derive(Debug, Default)]
struct Artifact {
    id: String,
    name: Option<String>,
    text: String,
    data: Vec<Value>,
}

/// What the responses to one call said, read in order.
#[derive(Debug, Default)]
struct Answer {
    task_id: Option<String>,
    artifacts: Vec<Artifact>,
    state: Option<A2aState>,
    status: Option<String>,
    message: Option<String>,
    error: Option<McpError>,
    /// The task reached a state where it stops.
    ended: bool,
}

impl Answer {
    /// Reads one JSON-RPC response: a result (a task, a message, a status or an artifact update) or an error.
    fn read(&mut self, response: &Value) {
        if let Some(error) = response.get("error") {
            self.error = Some(McpError {
                code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                message: text(error, "message").unwrap_or_default(),
                data: error_data(error.get("data")),
            });
            return;
        }
        let Some(result) = response.get("result") else { return };
        let (kind, item) = match result.get("kind").and_then(Value::as_str) {
            Some(kind) => (kind, result),
            None => match ["task", "message", "statusUpdate", "artifactUpdate"]
                .into_iter()
                .find_map(|key| result.get(key).map(|item| (key, item)))
            {
                Some(found) => found,
                None => return,
            },
        };
        match kind {
            "task" => {
                self.task_id = text(item, "id").or(self.task_id.take());
                for artifact in item.get("artifacts").and_then(Value::as_array).into_iter().flatten() {
                    self.artifact(artifact, false);
                }
                self.status(item.get("status"));
            }
            "message" => {
                self.message = Some(message_text(item));
                self.ended = true;
            }
            "status-update" | "statusUpdate" => {
                self.task_id = text(item, "taskId").or(self.task_id.take());
                self.status(item.get("status"));
            }
            "artifact-update" | "artifactUpdate" => {
                self.task_id = text(item, "taskId").or(self.task_id.take());
                if let Some(artifact) = item.get("artifact") {
                    self.artifact(artifact, item.get("append").and_then(Value::as_bool).unwrap_or(false));
                }
            }
            _ => {}
        }
    }

    fn status(&mut self, status: Option<&Value>) {
        let Some(status) = status else { return };
        if let Some(state) = status.get("state").and_then(Value::as_str).and_then(final_state) {
            self.state = Some(state);
            self.ended = true;
            self.status = status.get("message").map(message_text).filter(|t| !t.is_empty());
        }
    }

    /// An artifact whole, or a chunk of one (`append`: added to the artifact of the same id).
    fn artifact(&mut self, artifact: &Value, append: bool) {
        let id = text(artifact, "artifactId").unwrap_or_default();
        let at = match self.artifacts.iter().position(|a| a.id == id) {
            Some(at) if append => at,
            Some(at) => {
                // Sent whole again (a task after its chunks): it replaces what was read.
                self.artifacts.remove(at);
                self.artifacts.push(Artifact { id, ..Artifact::default() });
                self.artifacts.len() - 1
            }
            None => {
                self.artifacts.push(Artifact { id, ..Artifact::default() });
                self.artifacts.len() - 1
            }
        };
        let Some(kept) = self.artifacts.get_mut(at) else { return };
        kept.name = text(artifact, "name").or(kept.name.take());
        for part in parts_of(artifact) {
            match part {
                Value::String(text) => kept.text.push_str(&text),
                other => kept.data.push(other),
            }
        }
    }

    /// The step that answers as this did.
    fn step(&self) -> A2aStep {
        if let Some(error) = &self.error {
            return A2aStep { error: Some(error.clone()), ..A2aStep::default() };
        }
        if let Some(message) = &self.message {
            return A2aStep { message: Some(message.clone()), ..A2aStep::default() };
        }
        let mut step = A2aStep {
            state: self.state.filter(|s| *s != A2aState::Completed),
            status: self.status.clone(),
            ..A2aStep::default()
        };
        match self.artifacts.as_slice() {
            // One text artifact is the step's text (streamed again in chunks on replay).
            [only] if only.data.is_empty() && !only.text.is_empty() => step.text = Some(only.text.clone()),
            artifacts => {
                for artifact in artifacts {
                    let text = Some(artifact.text.clone()).filter(|t| !t.is_empty());
                    let name = artifact.name.clone();
                    if artifact.data.is_empty() {
                        step.artifacts.push(A2aArtifact { name: name.clone(), text: text.clone(), data: None });
                    }
                    for (i, data) in artifact.data.iter().enumerate() {
                        let text = if i == 0 { text.clone() } else { None };
                        step.artifacts.push(A2aArtifact { name: name.clone(), text, data: Some(data.clone()) });
                    }
                }
                step.artifacts.retain(|a| a.text.is_some() || a.data.is_some());
            }
        }
        step
    }
}

/// The JSON-RPC responses of a reply body: the body itself, or each `data:` event of an SSE stream.
pub(super) fn responses_of(body: &[u8]) -> Vec<Value> {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        return vec![value];
    }
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    text.split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            serde_json::from_str(&data.join("\n")).ok()
        })
        .collect()
}

/// A card's endpoints (`url`, and each interface's `url` in `supportedInterfaces` and `additionalInterfaces`) made
/// `endpoint`: a card relayed by a recording proxy sends the client's messages back through the proxy.
#[cfg_attr(not(feature = "proxy"), allow(dead_code))]
pub(crate) fn card_pointing_at(card: &mut Value, endpoint: &str) {
    if let Some(url) = card.get_mut("url") {
        *url = json!(endpoint);
    }
    for list in ["supportedInterfaces", "additionalInterfaces"] {
        for interface in card.get_mut(list).and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(url) = interface.get_mut("url") {
                *url = json!(endpoint);
            }
        }
    }
}

/// Whether `path` fetches a card.
pub(crate) fn is_card_path(path: &str) -> bool {
    CARD_FILES.iter().any(|file| path.ends_with(file))
}

#[cfg(test)]
mod tests;
