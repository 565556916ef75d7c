//! What a mock keeps of its realtime sessions (WebSockets, `wire::sockets` speaks them): each open session's state,
//! opaque here, and the journal of every message that crossed a session, numbered per mock (so per test under
//! `/t/{id}/`) and forgotten with the journal on a reset.
//!
//! The session state belongs to the protocol that serves it, a layer above the mock: the store holds it as
//! `Any`, so the mock does not depend on the protocols. The WebAssembly module serves no sockets
//! (`wire/sockets/absent.rs`): there the store stays empty.
#![cfg_attr(target_arch = "wasm32", allow(dead_code))]

use super::MockModel;
use crate::journal::SocketEvent;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One session's state, shared with the call that serves one of its messages.
pub(crate) type SessionSlot = Arc<Mutex<Box<dyn Any + Send>>>;

/// Every session of one mock and their messages.
#[derive(Default)]
pub(crate) struct Store {
    sessions: BTreeMap<u64, SessionSlot>,
    next_session: u64,
    log: SocketLog,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("sessions", &self.sessions.len()).finish()
    }
}

/// The number of a session id (`ws_3` is 3).
fn number_of(id: &str) -> Option<u64> {
    id.strip_prefix("ws_")?.parse().ok()
}

/// The journal of socket messages, shared with the answers being made: an answer computed by a host callback is
/// finished by a call that holds no mock (`Turn::map`), and journals its messages here.
pub(crate) type SocketLog = Arc<Mutex<SocketJournal>>;

/// Socket messages kept per journal entry the mock keeps: a realtime turn is tens to hundreds of messages, so a
/// bounded journal (`journal_limit`, what `cuecard serve` sets) bounds the socket journal too.
const MESSAGES_PER_ENTRY: usize = 100;

/// The socket messages, oldest first, with their running numbering.
#[derive(Debug, Default)]
pub(crate) struct SocketJournal {
    events: std::collections::VecDeque<SocketEvent>,
    next_index: u64,
    /// At most this many are kept (the oldest are dropped); none when the model journal is unbounded.
    capacity: Option<usize>,
}

impl SocketJournal {
    /// Adds a message, numbered after the last, dropping the oldest past the capacity.
    pub(crate) fn push(&mut self, mut event: SocketEvent) {
        event.index = self.next_index;
        self.next_index += 1;
        self.events.push_back(event);
        if let Some(capacity) = self.capacity {
            while self.events.len() > capacity {
                self.events.pop_front();
            }
        }
    }

    /// Forgets the newest `count` server messages of `session` (an answer its transport did not finish sending), and
    /// numbers the messages after them again so the numbering has no gap.
    pub(crate) fn forget_unsent(&mut self, session: &str, count: usize) {
        let mut left = count;
        let mut at = self.events.len();
        let mut first_removed = None;
        while left > 0 && at > 0 {
            at -= 1;
            let unsent = self.events.get(at).is_some_and(|e| e.session == session && e.direction == "server");
            if unsent {
                if let Some(event) = self.events.remove(at) {
                    first_removed = Some(event.index);
                }
                left -= 1;
            }
        }
        let Some(from) = first_removed else { return };
        let mut index = from;
        for event in self.events.iter_mut().filter(|e| e.index > from) {
            event.index = index;
            index += 1;
        }
        self.next_index = index;
    }
}

/// Adds a message to `log`.
pub(crate) fn push(log: &SocketLog, event: SocketEvent) {
    log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(event);
}

impl MockModel {
    /// Opens a session with `state`: its id (`ws_1`, `ws_2`, ... per mock).
    pub(crate) fn open_socket(&self, state: Box<dyn Any + Send>) -> String {
        let mut guard = self.lock();
        let store = &mut guard.sockets;
        store.next_session += 1;
        let number = store.next_session;
        store.sessions.insert(number, Arc::new(Mutex::new(state)));
        crate::stream::numbered_id("ws_", number)
    }

    /// The state of an open session.
    pub(crate) fn socket(&self, id: &str) -> Option<SessionSlot> {
        self.lock().sockets.sessions.get(&number_of(id)?).cloned()
    }

    /// Forgets a closed session's state (its messages stay in the journal).
    pub(crate) fn close_socket(&self, id: &str) {
        if let Some(number) = number_of(id) {
            self.lock().sockets.sessions.remove(&number);
        }
    }

    /// The journal of socket messages, and where the model journal and the clock stand: what a message journaled
    /// now records.
    pub(crate) fn socket_log(&self) -> (SocketLog, u64, u64) {
        let state = self.lock();
        let capacity = state.settings.journal_limit.map(|limit| limit.saturating_mul(MESSAGES_PER_ENTRY));
        state.sockets.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).capacity = capacity;
        (Arc::clone(&state.sockets.log), state.journal.len(), state.clock_ms)
    }

    /// Every message of every session, in the order they crossed.
    pub fn socket_events(&self) -> Vec<SocketEvent> {
        let log = Arc::clone(&self.lock().sockets.log);
        let events = log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).events.iter().cloned().collect();
        events
    }
}
