//! What a mock keeps for its MCP servers (the steps used, the sessions, the MCP journal) under its lock, and the
//! moment an MCP message arrives. The MCP engine (`crate::mcp`) reads and changes it through
//! `MockModel::with_mcp`.

use crate::journal::{McpEntry, UnusedMcpStep};
use crate::script::mcp::Mcp;
use std::collections::VecDeque;
use std::sync::Arc;

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
    /// The MCP journal: the last entries, as many as the mock's journal limit keeps (issue #59, S2).
    pub journal: VecDeque<McpEntry>,
    /// How many MCP messages were journaled, the evicted ones included: the next entry's index.
    pub received: u64,
}

impl McpState {
    /// A fresh state for `mcp`: nothing used, no session, an empty journal.
    pub fn new(mcp: Arc<Mcp>) -> McpState {
        let used = mcp.servers.iter().map(|s| s.tools.iter().map(|t| vec![false; t.steps.len()]).collect()).collect();
        McpState { mcp, used, sessions: Vec::new(), journal: VecDeque::new(), received: 0 }
    }

    /// Journals `entry`, then drops the oldest entries past `limit` (the mock's journal limit; `None` keeps all).
    pub fn record(&mut self, entry: McpEntry, limit: Option<usize>) {
        self.received += 1;
        crate::journal::push_bounded(&mut self.journal, entry, limit);
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
    /// The mock's journal limit, which bounds the MCP journal too.
    pub journal_limit: Option<usize>,
    /// The mock replays a recording: what it lacks is `no_recording` (which a recording proxy forwards). (Read by
    /// the A2A engine, which the WebAssembly builds leave out.)
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub replays_recording: bool,
}
