//! Reading what a mock received: the journal, its counts, the steps no request took, contract violations and
//! the call records an observer would have kept.

use super::*;
use crate::error::{Error, ErrorKind, Result};
use crate::journal::{EntryTicket, JournalCounts, JournalEntry};
use crate::model::{ChatRequest, Message};
use crate::observe::{self, CallRecord};

impl MockModel {
    /// Number of requests received.
    pub fn request_count(&self) -> u64 {
        self.lock().journal.len()
    }

    /// Counters by outcome.
    pub fn counts(&self) -> JournalCounts {
        self.lock().journal.counts()
    }

    /// The journal entries kept (all, unless bounded), oldest first.
    pub fn entries(&self) -> Vec<JournalEntry> {
        self.lock().journal.entries().cloned().collect()
    }

    /// A copy of the ticket's journal entry, if still kept (and of the current script).
    #[cfg(feature = "otlp")]
    pub(crate) fn entry_of(&self, ticket: EntryTicket) -> Option<JournalEntry> {
        self.lock().journal.get_ticket(ticket).cloned()
    }

    /// Records that request `index`'s connection closed before its stream ended (the server calls it when a client
    /// goes away mid-stream); the journal shows `left_mid_stream: true` on the entry.
    pub fn note_left_mid_stream(&self, entry: EntryTicket) {
        self.lock().journal.note_left_mid_stream(entry);
    }

    /// At most `limit` journal entries with an index above `after` (all kept ones when both are `None`), copied
    /// under the lock without copying the rest: a page of a long journal.
    pub fn entries_page(&self, after: Option<u64>, limit: Option<usize>) -> Vec<JournalEntry> {
        let state = self.lock();
        let kept = state.journal.entries().filter(|e| after.is_none_or(|a| e.index > a));
        kept.take(limit.unwrap_or(usize::MAX)).cloned().collect()
    }

    /// The journal entry of request `index` (the index a call's answer reports), if the journal still keeps it.
    pub fn entry(&self, index: u64) -> Option<JournalEntry> {
        self.lock().journal.get(index).cloned()
    }

    /// Copies of the requests received, in arrival order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.lock().journal.entries().map(|e| (*e.request).clone()).collect()
    }

    /// The requests for which `predicate` holds.
    pub fn requests_where(&self, predicate: impl Fn(&ChatRequest) -> bool) -> Vec<ChatRequest> {
        self.lock().journal.entries().filter(|e| predicate(&e.request)).map(|e| (*e.request).clone()).collect()
    }

    /// The requests for `operation`.
    pub fn requests_for_operation(&self, operation: &str) -> Vec<ChatRequest> {
        self.requests_where(|r| r.operation() == Some(operation))
    }

    /// The requests for `model`.
    pub fn requests_for_model(&self, model: &str) -> Vec<ChatRequest> {
        self.requests_where(|r| r.model == model)
    }

    /// The only request received; an error naming the count when there are none or several.
    pub fn request(&self) -> Result<ChatRequest> {
        let state = self.lock();
        let count = state.journal.len();
        let only = if count == 1 { state.journal.entries().next().map(|e| (*e.request).clone()) } else { None };
        only.ok_or_else(|| {
            Error::new(
                ErrorKind::RequestCountMismatch,
                format!("expected exactly 1 request, but the mock received {count}"),
            )
            .with_context("count", count)
        })
    }

    /// The last request received; an error when there is none.
    pub fn last_request(&self) -> Result<ChatRequest> {
        self.lock().journal.newest().map(|e| (*e.request).clone()).ok_or_else(|| {
            Error::new(ErrorKind::RequestCountMismatch, "expected a request, but the mock received none")
                .with_context("count", 0)
        })
    }

    /// The text of the only user message of the only request (LangChain4j's `userMessageText()`); an error
    /// naming what was found otherwise.
    pub fn user_message_text(&self) -> Result<String> {
        let request = self.request()?;
        let users: Vec<&Message> = request.messages.iter().filter(|m| m.role == crate::model::Role::User).collect();
        match users.as_slice() {
            [only] => Ok(only.text()),
            other => Err(Error::new(
                ErrorKind::RequestCountMismatch,
                format!("expected exactly 1 user message in the request, but it has {}", other.len()),
            )),
        }
    }

    /// Steps no request took, over all routes (a repeating or cycling route counts its steps as used once taken).
    pub fn unused_steps(&self) -> Vec<UnusedStep> {
        let state = self.lock();
        let mut unused = Vec::new();
        for (route_index, route) in state.routes.iter().enumerate() {
            for (step_index, step) in route.route.steps.iter().enumerate().skip(route.cursor) {
                unused.push(UnusedStep {
                    route: route_index,
                    route_match: route.route.matcher.describe(),
                    step: step_index,
                    step_description: step.describe(),
                });
            }
        }
        unused
    }

    /// Requests the script did not expect (after the script ran out, or matching no route).
    pub fn unexpected_requests(&self) -> Vec<JournalEntry> {
        self.lock().journal.entries().filter(|e| e.outcome.is_unexpected()).cloned().collect()
    }

    /// Number of unexpected requests (also counted in bounded mode).
    pub fn unexpected_count(&self) -> u64 {
        let counts = self.counts();
        counts.exhausted + counts.unmatched
    }

    /// The routes, described (`default`, `operation="classify"`), with their step counts and cursors.
    pub fn route_summaries(&self) -> Vec<(String, usize, usize)> {
        self.lock().routes.iter().map(|r| (r.route.matcher.describe(), r.route.steps.len(), r.cursor)).collect()
    }

    /// The MCP journal: every MCP message received, oldest first (beside the model's journal; see [`crate::mcp`]).
    pub fn mcp_entries(&self) -> Vec<crate::journal::McpEntry> {
        self.lock().mcp.journal.iter().cloned().collect()
    }

    /// Whether the mock has MCP servers.
    pub fn has_mcp_servers(&self) -> bool {
        !self.lock().mcp.mcp.servers.is_empty()
    }

    /// MCP tool steps no call took.
    pub fn mcp_unused_steps(&self) -> Vec<crate::journal::UnusedMcpStep> {
        self.lock().mcp.unused_steps()
    }

    /// The A2A journal: every request to a scripted agent, oldest first (see [`crate::a2a`]).
    pub fn a2a_entries(&self) -> Vec<crate::journal::A2aEntry> {
        self.lock().a2a.journal.iter().cloned().collect()
    }

    /// Whether the mock has A2A agents.
    pub fn has_a2a_agents(&self) -> bool {
        !self.lock().a2a.a2a.agents.is_empty()
    }

    /// Agent steps no message took.
    pub fn a2a_unused_steps(&self) -> Vec<crate::journal::UnusedA2aStep> {
        self.lock().a2a.unused_steps()
    }

    /// Runs `f` on the agents' state under the lock, with the model journal's length and the clock.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn with_a2a<R>(&self, f: impl FnOnce(&mut super::a2a::AgentsState, mcp::Now<'_>) -> R) -> R {
        let mut guard = self.lock();
        let state = &mut *guard;
        let requests = state.journal.len();
        let (journal_limit, replays_recording) = (state.settings.journal_limit, state.settings.recording);
        f(&mut state.a2a, mcp::Now { requests, clock_ms: &mut state.clock_ms, journal_limit, replays_recording })
    }

    /// Runs `f` on the MCP state under the lock, with the model journal's length and the clock.
    pub(crate) fn with_mcp<R>(&self, f: impl FnOnce(&mut mcp::McpState, mcp::Now<'_>) -> R) -> R {
        let mut guard = self.lock();
        let state = &mut *guard;
        let requests = state.journal.len();
        let (journal_limit, replays_recording) = (state.settings.journal_limit, state.settings.recording);
        f(&mut state.mcp, mcp::Now { requests, clock_ms: &mut state.clock_ms, journal_limit, replays_recording })
    }

    /// Provider-side call records: one per journaled request, as an engine's observer would have recorded them,
    /// so assertions work when no engine reports to an observer (see [`observe::records_from_journal`]).
    pub fn call_records(&self) -> Vec<CallRecord> {
        let state = self.lock();
        observe::records_from_journal(state.journal.entries(), &state.settings.provider_id)
    }
}
