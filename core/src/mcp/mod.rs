//! MCP servers scripted in the same scenario as the model: tools answered by steps, resources and prompts, over
//! Streamable HTTP (`/mcp`, `/mcp/{server}` on the wire server, and so every in-process transport) and stdio
//! (`cuecard mcp`). The engine is pure: a JSON-RPC message in, the messages to send out, against the mock's state.
//!
//! Facts are from `../shared/spec/mcp.md`: the handshake era (2024-11-05 to 2025-11-25) is served in full, with the
//! client's version echoed when it is one of those; `server/discover` (2026-07-28) is answered at once with those
//! versions, so a client that probes falls back to `initialize` without waiting (the spec's §6.3).
//!
//! MCP requests have a journal of their own beside the model's (`McpEntry`): the model's request indexes, counts
//! and checks stay about the model, and each MCP entry says how many model requests came before it
//! (`after_requests`), so the two read as one story in arrival order.

pub(crate) mod checks;
mod engine;
mod http;
mod stdio;

pub use crate::script::mcp::{
    Mcp, McpError, McpPrompt, McpPromptArgument, McpPromptMessage, McpResource, McpServer, McpTool, McpToolMatch,
    McpToolStep,
};
pub use http::{handle_http, is_mcp_path};
pub use stdio::{StdioOutput, StdioSession};

use crate::journal::Outcome;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The handshake versions served, newest first: a client asking for one of them gets it echoed.
pub const PROTOCOL_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The version answered to a client asking for one not served (the newest handshake version, as the reference
/// server does).
pub const LATEST_PROTOCOL_VERSION: &str = PROTOCOL_VERSIONS[0];

/// One MCP message the mock received, journaled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpEntry {
    /// Arrival index among MCP messages, from 0.
    pub index: u64,
    /// How many model requests were journaled before it arrived: it sits between model request `after_requests - 1`
    /// and `after_requests`.
    pub after_requests: u64,
    /// Virtual time of arrival, in milliseconds since the mock was created.
    pub at_ms: u64,
    /// The server's name (empty when the request named none that exists).
    pub server: String,
    /// `http` or `stdio`.
    pub transport: &'static str,
    /// The HTTP session (`Mcp-Session-Id`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The JSON-RPC method (`tools/call`, `notifications/initialized`); empty for a message without one (a
    /// response, or what could not be read).
    pub method: String,
    /// The request id, as sent (absent for notifications).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The tool or prompt name, or the resource URI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A tool call's arguments (a prompt's, for `prompts/get`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The tool step that answered it, by index within the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// What happened: `answered` (a scripted error included), `unmatched` (an unknown tool, prompt, resource or
    /// method), `exhausted` (the tool's steps ran out), `rejected` (not a valid message, or refused by the transport).
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The result sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The JSON-RPC error sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The step closed the connection instead of answering.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dropped_connection: bool,
}

impl McpEntry {
    /// Whether the scenario did not expect it (an unknown name or method, a tool past its steps, a refused message).
    pub fn is_unexpected(&self) -> bool {
        matches!(self.outcome, Outcome::Exhausted | Outcome::Unmatched | Outcome::Rejected { .. })
    }
}

/// A tool step no call took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnusedMcpStep {
    /// The server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The step's index within the tool.
    pub step: usize,
}

/// An HTTP session, from its initialize to its DELETE.
#[derive(Clone, Debug)]
pub(crate) struct Session {
    pub id: String,
    pub server: usize,
    pub ended: bool,
}

/// What the mock keeps for its MCP servers, under its lock.
#[derive(Clone, Debug, Default)]
pub(crate) struct McpState {
    pub mcp: Arc<Mcp>,
    /// Which steps were used: `[server][tool][step]`.
    pub used: Vec<Vec<Vec<bool>>>,
    pub sessions: Vec<Session>,
    pub journal: Vec<McpEntry>,
}

impl McpState {
    /// A fresh state for `mcp`: nothing used, no session, an empty journal.
    pub fn new(mcp: Arc<Mcp>) -> McpState {
        let used = mcp.servers.iter().map(|s| s.tools.iter().map(|t| vec![false; t.steps.len()]).collect()).collect();
        McpState { mcp, used, sessions: Vec::new(), journal: Vec::new() }
    }

    /// Forgets what happened; keeps the servers.
    pub fn reset(&mut self) {
        *self = McpState::new(Arc::clone(&self.mcp));
    }

    /// The steps no call took.
    pub fn unused_steps(&self) -> Vec<UnusedMcpStep> {
        let mut unused = Vec::new();
        for (server, used) in self.mcp.servers.iter().zip(&self.used) {
            for (tool, used) in server.tools.iter().zip(used) {
                for (step, _) in used.iter().enumerate().filter(|(_, used)| !**used) {
                    unused.push(UnusedMcpStep { server: server.name.clone(), tool: tool.name.clone(), step });
                }
            }
        }
        unused
    }

    /// The index of the server named `name`, or of the first when `name` is `None`.
    pub fn server_index(&self, name: Option<&str>) -> Option<usize> {
        match name {
            None => (!self.mcp.servers.is_empty()).then_some(0),
            Some(name) => self.mcp.servers.iter().position(|s| s.name == name),
        }
    }
}

/// The mock's clock and model journal at the moment an MCP message arrives, and its clock to move.
pub(crate) struct Now<'a> {
    pub requests: u64,
    pub clock_ms: &'a mut u64,
}

#[cfg(test)]
mod tests;
