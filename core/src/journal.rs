//! The journal: every request the mock received, in arrival order, with what happened to it.
//!
//! Entries are deep copies (snapshots): later mutation of the caller's request never changes them. A bounded
//! journal keeps counters for everything plus only the last N entries, so a mock can serve long runs with flat
//! memory.

use crate::model::{ChatRequest, ChatResponse};
use crate::provider_error::{ProviderError, ProviderErrorKind};
use crate::segments::Segments;
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// What happened to a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// A computed step is still running.
    Pending,
    /// Answered with a response.
    Answered,
    /// Failed before anything was streamed, as scripted.
    Failed {
        /// The failure's kind.
        kind: ProviderErrorKind,
        /// Its HTTP status.
        status: Option<u16>,
    },
    /// Streamed its thinking and text, then failed, as scripted.
    FailedAfterTokens {
        /// The failure's kind.
        kind: ProviderErrorKind,
        /// Its HTTP status.
        status: Option<u16>,
    },
    /// Arrived after the last step of its route.
    Exhausted,
    /// Matched no route.
    Unmatched,
    /// A computed step's callback failed.
    CallbackFailed {
        /// The callback's error message.
        message: String,
    },
    /// Refused before reaching the script (a malformed request on the wire).
    Rejected {
        /// Why.
        reason: String,
    },
    /// Refused as the real API refuses it, under `contracts: strict`: it broke `rule` (the spec's id, `A1`).
    /// (Boxed text rather than `String`: this is the largest variant, and the journal's ring keeps one outcome per
    /// request; 16 bytes less per entry.)
    ContractViolation {
        /// The rule's id.
        rule: Box<str>,
        /// The real API's message.
        message: Box<str>,
    },
}

impl Outcome {
    /// Whether the request got a scripted answer (a response or a scripted failure), as opposed to an
    /// unexpected request (exhausted, unmatched, rejected) or a broken callback.
    pub fn is_scripted(&self) -> bool {
        matches!(self, Outcome::Answered | Outcome::Failed { .. } | Outcome::FailedAfterTokens { .. })
    }

    /// Whether the request was unexpected by the script.
    pub fn is_unexpected(&self) -> bool {
        matches!(self, Outcome::Exhausted | Outcome::Unmatched)
    }

    /// A short word for history tables: `answered`, `failed rate_limited 429`, `exhausted`.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Pending => "pending".into(),
            Outcome::Answered => "answered".into(),
            Outcome::Failed { kind, status } => with_status(format!("failed {kind}"), *status),
            Outcome::FailedAfterTokens { kind, status } => with_status(format!("failed after tokens {kind}"), *status),
            Outcome::Exhausted => "exhausted".into(),
            Outcome::Unmatched => "unmatched".into(),
            Outcome::CallbackFailed { .. } => "callback failed".into(),
            Outcome::Rejected { reason } => format!("rejected: {reason}"),
            Outcome::ContractViolation { rule, .. } => format!("contract violation {rule}"),
        }
    }
}

fn with_status(text: String, status: Option<u16>) -> String {
    match status {
        Some(s) => format!("{text} {s}"),
        None => text,
    }
}

/// The request as it arrived on the wire, kept beside the decoded request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RawRequest {
    /// The HTTP path.
    pub path: Box<str>,
    /// The body as received (lossy UTF-8 if it was not valid UTF-8).
    pub body: Box<str>,
    /// The rule of the real API it broke, found under `contracts: warn` (it was answered as scripted all the same;
    /// under `strict` the outcome is `contract_violation`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_violation: Option<Box<crate::contracts::Violation>>,
}

/// A request as a call gives it to the mock, which journals it: a borrowed request is copied once (the journal's
/// snapshot, which later changes by the caller do not reach); an owned one (a decoded wire request, a binding's
/// converted request) is moved in and shared by the journal and the call that answers it, never copied.
pub trait IntoJournaled {
    /// The request, shared.
    fn into_journaled(self) -> Arc<ChatRequest>;
}

impl IntoJournaled for &ChatRequest {
    fn into_journaled(self) -> Arc<ChatRequest> {
        Arc::new(self.clone())
    }
}

impl IntoJournaled for ChatRequest {
    fn into_journaled(self) -> Arc<ChatRequest> {
        Arc::new(self)
    }
}

impl IntoJournaled for Arc<ChatRequest> {
    fn into_journaled(self) -> Arc<ChatRequest> {
        self
    }
}

/// One journaled request. The large parts are boxed: the journal's ring holds a small entry per request (no
/// room for a response or an error it may not have, nor growth slack on them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JournalEntry {
    /// Arrival index, from 0, over the whole life of the mock (also counts evicted entries).
    pub index: u64,
    /// The request as it arrived: a snapshot the caller cannot change (a borrowed request is copied once; an
    /// owned one, such as a decoded wire request, is moved in and shared with the call that answers it).
    pub request: Arc<ChatRequest>,
    /// The raw wire request, when it came over HTTP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<Box<RawRequest>>,
    /// Index of the route that took it, if any (`u32`, not `usize`: a journal keeps one per request).
    pub route: Option<u32>,
    /// Index of the step that answered it within its route, if any.
    pub step: Option<u32>,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Virtual time of arrival, in milliseconds since the mock was created.
    pub at_ms: u64,
    /// The response, when there was one (shared with the call that answered: a whole answer's `Exchange`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response: Option<Arc<ChatResponse>>,
    /// The scripted failure, when the request failed as scripted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Box<ProviderError>>,
    /// The connection closed before its stream ended: the client went away (or the server stopped) mid-stream.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub left_mid_stream: bool,
    /// The `chaos` setting failed it (its `error`), before the script was reached: no step was used.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub chaos: bool,
    /// The `answer_faults` setting rewrote its step into a faulty answer of this kind (`invalid_arguments`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer_fault: Option<crate::faults::FaultKind>,
    /// The seed its streamed reply's writes were drawn from (the `delivery` setting; derived from the delivery
    /// seed and the request's index, so the same scenario gives the same writes again). Also in the reply's
    /// `x-cuecard-delivery-seed` header.
    /// (`NonZeroU64`: the entry stays one word smaller, and a request seed is never 0.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivery_seed: Option<std::num::NonZeroU64>,
}

/// Counters kept for every request, also in bounded mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct JournalCounts {
    /// Every request.
    pub total: u64,
    /// Answered with a response.
    pub answered: u64,
    /// Failed as scripted (before or after tokens).
    pub failed: u64,
    /// Arrived after the script ran out.
    pub exhausted: u64,
    /// Matched no route.
    pub unmatched: u64,
    /// Callback failures.
    pub callback_failed: u64,
    /// Rejected before the script.
    pub rejected: u64,
}

impl JournalCounts {
    fn add(&mut self, outcome: &Outcome, delta: i64) {
        let counter = match outcome {
            Outcome::Pending => return,
            Outcome::Answered => &mut self.answered,
            Outcome::Failed { .. } | Outcome::FailedAfterTokens { .. } => &mut self.failed,
            Outcome::Exhausted => &mut self.exhausted,
            Outcome::Unmatched => &mut self.unmatched,
            Outcome::CallbackFailed { .. } => &mut self.callback_failed,
            Outcome::Rejected { .. } | Outcome::ContractViolation { .. } => &mut self.rejected,
        };
        *counter = counter.saturating_add_signed(delta);
    }
}

/// Which journal entry a request in flight will settle: its index, and the journal's generation when it arrived.
/// A reset or a new script starts a new generation, and indexes start again at 0: a late write (a computed answer
/// that was still running, a stream abandoned afterwards) carries the old generation and finds nothing, instead
/// of writing into the new script's request of the same index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryTicket {
    /// The entry's index.
    pub index: u64,
    generation: u64,
}

#[cfg(feature = "otlp")]
thread_local! {
    /// The ticket of the entry this thread journaled last. A server answers a request synchronously on one thread
    /// from the wire layer down to the journal, so right after the answer this is that request's entry: the
    /// OpenTelemetry span of the call reads it there (`telemetry`), with no index threaded through every reply.
    static LAST_PUSHED: std::cell::Cell<Option<EntryTicket>> = const { std::cell::Cell::new(None) };
}

/// Takes the ticket of the entry this thread journaled last (see `LAST_PUSHED`), leaving none.
#[cfg(feature = "otlp")]
pub(crate) fn take_last_pushed() -> Option<EntryTicket> {
    LAST_PUSHED.with(std::cell::Cell::take)
}

/// The journal itself. Held inside the mock under its lock.
#[derive(Clone, Debug, Default)]
pub struct Journal {
    entries: Segments<JournalEntry>,
    capacity: Option<usize>,
    counts: JournalCounts,
    /// Bumped by every clear and renewal (see [`EntryTicket`]).
    generation: u64,
}

impl Journal {
    /// A journal that keeps every entry.
    pub fn unbounded() -> Journal {
        Journal::default()
    }

    /// A journal that keeps counters for all and entries for only the last `capacity` requests.
    pub fn bounded(capacity: usize) -> Journal {
        Journal { capacity: Some(capacity), ..Journal::default() }
    }

    /// The capacity, if bounded.
    pub fn capacity(&self) -> Option<usize> {
        self.capacity
    }

    /// An empty journal of `capacity` (`None`: unbounded) that follows this one: a ticket of this one's requests
    /// finds nothing in it.
    pub(crate) fn renewed(&self, capacity: Option<usize>) -> Journal {
        Journal { capacity, generation: self.generation + 1, ..Journal::default() }
    }

    #[cfg(test)]
    fn next_ticket_of(&self, index: u64) -> EntryTicket {
        EntryTicket { index, generation: self.generation }
    }

    /// The ticket of the entry that the next `push` appends.
    pub(crate) fn next_ticket(&self) -> EntryTicket {
        EntryTicket { index: self.counts.total, generation: self.generation }
    }

    /// Appends an entry; its index must be `counts().total`. Returns the entry a bounded journal let go of, so
    /// that the caller can free it after releasing its lock.
    #[must_use = "drop the evicted entry after releasing the lock"]
    pub(crate) fn push(&mut self, entry: JournalEntry) -> Option<JournalEntry> {
        #[cfg(feature = "otlp")]
        LAST_PUSHED.with(|last| last.set(Some(self.next_ticket())));
        self.counts.total += 1;
        self.counts.add(&entry.outcome, 1);
        let Some(cap) = self.capacity else {
            self.entries.push_back(entry);
            return None;
        };
        if cap == 0 {
            return Some(entry);
        }
        let mut evicted = None;
        while self.entries.len() >= cap {
            evicted = self.entries.pop_front();
        }
        self.entries.push_back(entry);
        evicted
    }

    /// Sets the outcome (and response) of the ticket's entry once its answer is known; returns whether the ticket
    /// is of this generation (a request of an earlier script changes nothing, counters included).
    pub(crate) fn settle(
        &mut self,
        ticket: EntryTicket,
        outcome: Outcome,
        response: Option<Arc<ChatResponse>>,
        error: Option<Box<ProviderError>>,
    ) -> bool {
        if ticket.generation != self.generation {
            return false;
        }
        self.counts.add(&outcome, 1);
        if let Some(entry) = self.entry_mut(ticket.index) {
            entry.outcome = outcome;
            entry.response = response;
            entry.error = error;
        }
        true
    }

    /// Records that the connection of the ticket's request closed before its stream ended (if the entry is still
    /// kept, and of this generation).
    pub(crate) fn note_left_mid_stream(&mut self, ticket: EntryTicket) {
        if ticket.generation != self.generation {
            return;
        }
        if let Some(entry) = self.entry_mut(ticket.index) {
            entry.left_mid_stream = true;
        }
    }

    /// The ticket's entry, if still kept and of this generation.
    #[cfg(feature = "otlp")]
    pub(crate) fn get_ticket(&self, ticket: EntryTicket) -> Option<&JournalEntry> {
        if ticket.generation == self.generation {
            self.get(ticket.index)
        } else {
            None
        }
    }

    /// Entry `index`, if still kept.
    pub fn get(&self, index: u64) -> Option<&JournalEntry> {
        let first = self.entries.front()?.index;
        let offset = usize::try_from(index.checked_sub(first)?).ok()?;
        self.entries.get(offset)
    }

    fn entry_mut(&mut self, index: u64) -> Option<&mut JournalEntry> {
        let first = self.entries.front()?.index;
        let offset = usize::try_from(index.checked_sub(first)?).ok()?;
        self.entries.get_mut(offset)
    }

    /// Number of requests received (including evicted ones).
    pub fn len(&self) -> u64 {
        self.counts.total
    }

    /// Whether no request was received.
    pub fn is_empty(&self) -> bool {
        self.counts.total == 0
    }

    /// The counters.
    pub fn counts(&self) -> JournalCounts {
        self.counts
    }

    /// The newest kept entry.
    pub fn newest(&self) -> Option<&JournalEntry> {
        self.entries.len().checked_sub(1).and_then(|last| self.entries.get(last))
    }

    /// The kept entries, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &JournalEntry> {
        self.entries.iter()
    }

    /// Clears everything, counters included, and starts a new generation.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.counts = JournalCounts::default();
        self.generation += 1;
    }
}

/// Appends `entry` to a side journal (MCP's, A2A's), then drops the oldest entries past `limit` (the mock's journal
/// limit; `None` keeps all).
pub(crate) fn push_bounded<T>(journal: &mut std::collections::VecDeque<T>, entry: T, limit: Option<usize>) {
    journal.push_back(entry);
    if let Some(limit) = limit {
        while journal.len() > limit {
            journal.pop_front();
        }
    }
}

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
    /// A retry's `inputResponses`: what the client answered to an `input_required` result (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Value>,
    /// The stateless revision the request was served in (`2026-07-28`: it named it in `params._meta`, or it was
    /// `server/discover`); absent for the handshake era.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

impl McpEntry {
    /// Whether the scenario did not expect it (an unknown name or method, a tool past its steps, a refused message).
    pub fn is_unexpected(&self) -> bool {
        matches!(self.outcome, Outcome::Exhausted | Outcome::Unmatched | Outcome::Rejected { .. })
    }
}

/// One message of a realtime session (a WebSocket: OpenAI Realtime, the Responses WebSocket mode, Gemini Live),
/// journaled in the order it crossed: every client message the mock received and every server message it sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SocketEvent {
    /// Position among the mock's socket messages, from 0.
    pub index: u64,
    /// How many model requests were journaled before it: a response a session takes a step for is journaled as a
    /// model request too (endpoint `realtime`, `responses_websocket` or `gemini_live`).
    pub after_requests: u64,
    /// Virtual time, in milliseconds since the mock was created.
    pub at_ms: u64,
    /// The session (socket) it belongs to: `ws_1`, ...
    pub session: String,
    /// `openai_realtime`, `responses_websocket` or `gemini_live`.
    pub protocol: &'static str,
    /// `client` (received) or `server` (sent).
    pub direction: &'static str,
    /// The event's type: OpenAI's `type` field, Gemini's top-level key (`setup`, `serverContent`, ...), `close` for
    /// a close (its code and reason in `event`), `invalid` for a client message that is not a JSON object.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message as JSON (a close: `{"code", "reason"}`; an unreadable message: `{"text"}`).
    pub event: Value,
    /// The journal entry of the model request this message belongs to (a server event of a response, or the
    /// client event that asked for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<u64>,
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

/// One A2A request the mock received (a JSON-RPC call to a scripted agent, or its card), journaled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct A2aEntry {
    /// Arrival index among A2A requests, from 0.
    pub index: u64,
    /// How many model requests were journaled before it arrived (its place among them).
    pub after_requests: u64,
    /// Virtual time of arrival, in milliseconds since the mock was created.
    pub at_ms: u64,
    /// The agent's name (empty when the path named none that exists).
    pub agent: String,
    /// The JSON-RPC method as sent (`message/send`, `SendStreamingMessage`), or `card` for a card fetch.
    pub method: String,
    /// The protocol generation it was answered in: `0.3` or `1.0`.
    pub version: &'static str,
    /// The request id, as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The task it concerns (made, followed up, read or cancelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The message's text parts, joined (for sends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The message's parts as sent (for sends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<Value>,
    /// The agent step that answered it, by index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// What happened: `answered` (a scripted error included), `unmatched` (an unknown agent or method),
    /// `exhausted` (no step left for the message), `rejected` (not a valid request).
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The JSON-RPC error sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// The webhooks this request made the agent POST the task to (push notifications), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pushed: Vec<String>,
}

/// An agent step no message took.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnusedA2aStep {
    /// The agent.
    pub agent: String,
    /// The step's index.
    pub step: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: u64, outcome: Outcome) -> JournalEntry {
        JournalEntry {
            index,
            request: Arc::new(ChatRequest::user("m", format!("request {index}"))),
            raw: None,
            route: Some(0),
            step: Some(0),
            outcome,
            at_ms: 0,
            response: None,
            error: None,
            left_mid_stream: false,
            chaos: false,
            answer_fault: None,
            delivery_seed: None,
        }
    }

    #[test]
    fn bounded_mode_keeps_counters_and_the_last_entries() {
        let mut journal = Journal::bounded(3);
        for i in 0..10 {
            let outcome = if i % 2 == 0 { Outcome::Answered } else { Outcome::Exhausted };
            // The entry let go of comes back to the caller, to be freed after its lock is released.
            let evicted = journal.push(entry(i, outcome)).map(|e| e.index);
            assert_eq!(evicted, i.checked_sub(3), "push {i}");
        }
        assert_eq!(journal.len(), 10);
        assert_eq!(journal.counts().answered, 5);
        assert_eq!(journal.counts().exhausted, 5);
        let kept: Vec<u64> = journal.entries().map(|e| e.index).collect();
        assert_eq!(kept, [7, 8, 9]);
    }

    #[test]
    fn an_unbounded_journal_lets_nothing_go_and_a_zero_bound_keeps_nothing() {
        let mut unbounded = Journal::unbounded();
        assert!(journal_push_all(&mut unbounded, 5).iter().all(Option::is_none));
        assert_eq!(unbounded.entries().count(), 5);
        let mut zero = Journal::bounded(0);
        assert_eq!(journal_push_all(&mut zero, 3), [Some(0), Some(1), Some(2)]);
        assert_eq!((zero.len(), zero.entries().count()), (3, 0));
    }

    fn journal_push_all(journal: &mut Journal, n: u64) -> Vec<Option<u64>> {
        (0..n).map(|i| journal.push(entry(i, Outcome::Answered)).map(|e| e.index)).collect()
    }

    #[test]
    fn settling_an_evicted_entry_still_counts() {
        let mut journal = Journal::bounded(1);
        drop(journal.push(entry(0, Outcome::Pending)));
        drop(journal.push(entry(1, Outcome::Answered)));
        assert!(journal.settle(EntryTicket { index: 0, generation: 0 }, Outcome::Answered, None, None));
        assert_eq!(journal.counts().answered, 2);
        assert!(journal.settle(EntryTicket { index: 1, generation: 0 }, Outcome::Answered, None, None));
        assert_eq!(journal.entries().count(), 1);
    }

    #[test]
    fn a_ticket_of_an_earlier_generation_writes_nothing_after_a_clear_or_a_renewal() {
        let mut journal = Journal::unbounded();
        let old = journal.next_ticket();
        drop(journal.push(entry(0, Outcome::Pending)));
        journal.clear();
        drop(journal.push(entry(0, Outcome::Pending)));
        assert!(!journal.settle(old, Outcome::Answered, None, None));
        journal.note_left_mid_stream(old);
        let kept = journal.get(0).map(|e| (e.outcome.clone(), e.left_mid_stream));
        assert_eq!(kept, Some((Outcome::Pending, false)));
        assert_eq!(journal.counts().answered, 0);
        let mut renewed = journal.renewed(Some(4));
        let current = journal.next_ticket();
        drop(renewed.push(entry(0, Outcome::Pending)));
        assert!(!renewed.settle(current, Outcome::Answered, None, None));
        assert!(renewed.settle(renewed.next_ticket_of(0), Outcome::Answered, None, None));
        assert_eq!(renewed.counts().answered, 1);
    }
}
