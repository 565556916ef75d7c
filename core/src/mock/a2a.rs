//! What a mock keeps for its A2A agents under its lock: the steps used, the tasks (for follow-ups, `tasks/get`,
//! `tasks/cancel` and re-subscriptions), push configs, the id counter and the A2A journal. The A2A engine
//! (`crate::a2a`) reads and changes it through `MockModel::with_a2a`.

// The WebAssembly module keeps the state (a scenario's agents load, their steps are listed) but not the engine that
// fills it (`a2a/absent.rs`).
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

use crate::journal::{A2aEntry, UnusedA2aStep};
use crate::script::a2a::{A2a, A2aState};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// A part of a message or an artifact (the script layer's: a step's artifacts are made of them).
pub(crate) use crate::script::a2a::Part;

/// A message of a task's history.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Said {
    pub message_id: String,
    /// `user` or `agent`.
    pub from_user: bool,
    pub parts: Vec<Part>,
}

/// An artifact of a task.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Made {
    pub artifact_id: String,
    pub name: Option<String>,
    pub parts: Vec<Part>,
}

/// One POST to a webhook (a push notification), made when the A2A engine decided it and sent after the reply.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Push {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// A task's state: working, or where a step left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskState {
    Submitted,
    Working,
    Ended(A2aState),
}

impl TaskState {
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskState::Ended(state) if state.is_terminal())
    }
}

/// One task an agent made.
#[derive(Clone, Debug)]
pub(crate) struct Task {
    pub id: String,
    pub context_id: String,
    pub agent: usize,
    pub state: TaskState,
    /// The final status's message.
    pub status: Option<Said>,
    /// Virtual milliseconds of its last status.
    pub status_at_ms: u64,
    pub history: Vec<Said>,
    pub artifacts: Vec<Made>,
    /// Push notification configs recorded for it, as sent (with their ids).
    pub push: Vec<Value>,
    /// Answered at once (non-blocking) with no webhook yet: the first registered is told where it ended.
    pub push_owed: bool,
}

/// What the mock keeps for its agents, under its lock.
#[derive(Clone, Debug, Default)]
pub(crate) struct AgentsState {
    pub a2a: Arc<A2a>,
    /// Which steps were used: `[agent][step]`.
    pub used: Vec<Vec<bool>>,
    pub tasks: Vec<Task>,
    /// The last id handed out (ids are `00000000-0000-4000-8000-` and 12 digits: deterministic, UUID-shaped).
    pub last_id: u64,
    /// The A2A journal: the last entries, as many as the mock's journal limit keeps.
    pub journal: VecDeque<A2aEntry>,
    /// How many A2A requests were journaled, the evicted ones included.
    pub received: u64,
    /// The webhook POSTs the request being answered owes, sent after its reply (`a2a::push`).
    pub outbox: Vec<Push>,
}

impl AgentsState {
    pub fn new(a2a: Arc<A2a>) -> AgentsState {
        let used = a2a.agents.iter().map(|agent| vec![false; agent.steps.len()]).collect();
        AgentsState { a2a, used, ..AgentsState::default() }
    }

    /// The next id.
    pub fn next_id(&mut self) -> String {
        self.last_id += 1;
        format!("00000000-0000-4000-8000-{:012}", self.last_id)
    }

    /// Journals `entry`, then drops the oldest entries past `limit`.
    pub fn record(&mut self, entry: A2aEntry, limit: Option<usize>) {
        self.received += 1;
        crate::journal::push_bounded(&mut self.journal, entry, limit);
    }

    /// Forgets what happened; keeps the agents.
    pub fn reset(&mut self) {
        *self = AgentsState::new(Arc::clone(&self.a2a));
    }

    /// The steps no message took.
    pub fn unused_steps(&self) -> Vec<UnusedA2aStep> {
        let mut unused = Vec::new();
        for (agent, used) in self.a2a.agents.iter().zip(&self.used) {
            for (step, _) in used.iter().enumerate().filter(|(_, used)| !**used) {
                unused.push(UnusedA2aStep { agent: agent.name.clone(), step });
            }
        }
        unused
    }

    /// The index of the agent named `name`, or of the first when `name` is `None`.
    pub fn agent_index(&self, name: Option<&str>) -> Option<usize> {
        match name {
            None => (!self.a2a.agents.is_empty()).then_some(0),
            Some(name) => self.a2a.agents.iter().position(|a| a.name == name),
        }
    }
}
