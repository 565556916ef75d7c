//! `MockMemory`: an in-process conversation store with Cogitator's `MemoryAdapter` operations (threads and
//! entries), recording every call.
//!
//! Deliberate, documented differences from Cogitator's `MockMemoryAdapter` (see `docs/concepts/seeds.md`, "Cogitator"):
//! - ids come from counters (`thread_1`, `entry_1`) and timestamps from a virtual clock that ticks one
//!   millisecond per call, so outputs are deterministic and `before`/`after` filters are meaningful;
//! - `get_entries` honours `include_tool_calls` like the real adapter (tool calls and results are stripped
//!   unless it is true); the Cogitator mock ignores it;
//! - results are copies: mutating a returned value never changes the store.
//!
//! Kept as in the mock: `create_thread` resets that thread's entries, `add_entry` does not check that the thread
//! exists, `disconnect` keeps the data, `limit` keeps the last N (0 = no limit), date filters are strict.

use crate::clock::unix_ms;
use crate::error::{not_found, Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// A conversation thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thread {
    /// `thread_N` or the id given.
    pub id: String,
    /// The agent that owns it.
    pub agent_id: String,
    /// Free-form metadata.
    pub metadata: Map<String, Value>,
    /// Unix milliseconds (virtual).
    pub created_at_ms: u64,
    /// Unix milliseconds (virtual).
    pub updated_at_ms: u64,
}

/// An entry of a thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// `entry_N`.
    pub id: String,
    /// The thread it belongs to.
    pub thread_id: String,
    /// The message, as given.
    pub message: Value,
    /// Tool calls, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Value>,
    /// Tool results, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_results: Option<Value>,
    /// Token count (0 unless given).
    pub token_count: u64,
    /// Unix milliseconds (virtual).
    pub created_at_ms: u64,
    /// Free-form metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// What `add_entry` takes: an entry without id and creation time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewEntry {
    /// The thread.
    pub thread_id: String,
    /// The message.
    pub message: Value,
    /// Tool calls.
    #[serde(default)]
    pub tool_calls: Option<Value>,
    /// Tool results.
    #[serde(default)]
    pub tool_results: Option<Value>,
    /// Token count.
    #[serde(default)]
    pub token_count: Option<u64>,
    /// Metadata.
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// Which entries `get_entries` returns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryQuery {
    /// The thread.
    pub thread_id: String,
    /// Keep only the last N (0 or none: all).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only entries created strictly before (Unix ms).
    #[serde(default)]
    pub before_ms: Option<u64>,
    /// Only entries created strictly after (Unix ms).
    #[serde(default)]
    pub after_ms: Option<u64>,
    /// Keep tool calls and results (stripped otherwise).
    #[serde(default)]
    pub include_tool_calls: bool,
}

/// A method of the memory adapter. As data, snake_case (`create_thread`); [`MemoryMethod::cogitator_name`] is
/// the camelCase name Cogitator's call log uses, and parsing accepts both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryMethod {
    /// `connect`.
    Connect,
    /// `disconnect`.
    Disconnect,
    /// `createThread`.
    CreateThread,
    /// `getThread`.
    GetThread,
    /// `updateThread`.
    UpdateThread,
    /// `deleteThread`.
    DeleteThread,
    /// `addEntry`.
    AddEntry,
    /// `getEntries`.
    GetEntries,
    /// `getEntry`.
    GetEntry,
    /// `deleteEntry`.
    DeleteEntry,
    /// `clearThread`.
    ClearThread,
}

impl MemoryMethod {
    /// Every method.
    pub const ALL: [MemoryMethod; 11] = [
        MemoryMethod::Connect,
        MemoryMethod::Disconnect,
        MemoryMethod::CreateThread,
        MemoryMethod::GetThread,
        MemoryMethod::UpdateThread,
        MemoryMethod::DeleteThread,
        MemoryMethod::AddEntry,
        MemoryMethod::GetEntries,
        MemoryMethod::GetEntry,
        MemoryMethod::DeleteEntry,
        MemoryMethod::ClearThread,
    ];

    /// The snake_case name.
    pub const fn name(self) -> &'static str {
        match self {
            MemoryMethod::Connect => "connect",
            MemoryMethod::Disconnect => "disconnect",
            MemoryMethod::CreateThread => "create_thread",
            MemoryMethod::GetThread => "get_thread",
            MemoryMethod::UpdateThread => "update_thread",
            MemoryMethod::DeleteThread => "delete_thread",
            MemoryMethod::AddEntry => "add_entry",
            MemoryMethod::GetEntries => "get_entries",
            MemoryMethod::GetEntry => "get_entry",
            MemoryMethod::DeleteEntry => "delete_entry",
            MemoryMethod::ClearThread => "clear_thread",
        }
    }

    /// The camelCase name of Cogitator's `MemoryAdapter` (`createThread`).
    pub const fn cogitator_name(self) -> &'static str {
        match self {
            MemoryMethod::Connect => "connect",
            MemoryMethod::Disconnect => "disconnect",
            MemoryMethod::CreateThread => "createThread",
            MemoryMethod::GetThread => "getThread",
            MemoryMethod::UpdateThread => "updateThread",
            MemoryMethod::DeleteThread => "deleteThread",
            MemoryMethod::AddEntry => "addEntry",
            MemoryMethod::GetEntries => "getEntries",
            MemoryMethod::GetEntry => "getEntry",
            MemoryMethod::DeleteEntry => "deleteEntry",
            MemoryMethod::ClearThread => "clearThread",
        }
    }
}

impl std::str::FromStr for MemoryMethod {
    type Err = Error;

    /// Either name form; anything else is `invalid_argument` listing the methods.
    fn from_str(name: &str) -> Result<MemoryMethod> {
        MemoryMethod::ALL.into_iter().find(|m| m.name() == name || m.cogitator_name() == name).ok_or_else(|| {
            let names: Vec<&str> = MemoryMethod::ALL.iter().map(|m| m.name()).collect();
            crate::error::invalid_argument(format!("{name:?} is not a memory method ({})", names.join(", ")))
                .with_context("argument", "method")
        })
    }
}

/// One recorded call: the method and its arguments as JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryCall {
    /// The method.
    pub method: MemoryMethod,
    /// The arguments, in the method's parameter order.
    pub args: Vec<Value>,
}

#[derive(Debug, Default)]
struct Store {
    threads: BTreeMap<String, Thread>,
    entries: BTreeMap<String, Vec<MemoryEntry>>,
    calls: Vec<MemoryCall>,
    connected: bool,
    next_thread: u64,
    next_entry: u64,
    tick_ms: u64,
}

impl Store {
    fn record(&mut self, method: MemoryMethod, args: Vec<Value>) -> u64 {
        self.calls.push(MemoryCall { method, args });
        self.tick_ms += 1;
        unix_ms(self.tick_ms)
    }
}

/// The memory double. `Send + Sync`.
#[derive(Debug, Default)]
pub struct MockMemory {
    store: Mutex<Store>,
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

impl MockMemory {
    /// An empty, disconnected store.
    pub fn new() -> MockMemory {
        MockMemory::default()
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The provider name Cogitator reports for this adapter.
    pub fn provider(&self) -> &'static str {
        "memory"
    }

    /// Marks the store connected.
    pub fn connect(&self) {
        let mut store = self.lock();
        store.record(MemoryMethod::Connect, vec![]);
        store.connected = true;
    }

    /// Marks the store disconnected (the data stays).
    pub fn disconnect(&self) {
        let mut store = self.lock();
        store.record(MemoryMethod::Disconnect, vec![]);
        store.connected = false;
    }

    /// Whether connected.
    pub fn is_connected(&self) -> bool {
        self.lock().connected
    }

    /// Creates a thread (id `thread_N` unless given) and resets its entries, even if it existed.
    pub fn create_thread(
        &self,
        agent_id: &str,
        metadata: Option<Map<String, Value>>,
        thread_id: Option<&str>,
    ) -> Thread {
        let mut store = self.lock();
        let now = store.record(
            MemoryMethod::CreateThread,
            vec![
                Value::from(agent_id),
                metadata.clone().map_or(Value::Null, Value::Object),
                thread_id.map_or(Value::Null, Value::from),
            ],
        );
        let id = match thread_id {
            Some(id) => id.to_string(),
            None => {
                store.next_thread += 1;
                format!("thread_{}", store.next_thread)
            }
        };
        let thread = Thread {
            id: id.clone(),
            agent_id: agent_id.to_string(),
            metadata: metadata.unwrap_or_default(),
            created_at_ms: now,
            updated_at_ms: now,
        };
        store.threads.insert(id.clone(), thread.clone());
        store.entries.insert(id, Vec::new());
        thread
    }

    /// The thread, or `None`.
    pub fn get_thread(&self, thread_id: &str) -> Option<Thread> {
        let mut store = self.lock();
        store.record(MemoryMethod::GetThread, vec![Value::from(thread_id)]);
        store.threads.get(thread_id).cloned()
    }

    /// Shallow-merges `metadata` into the thread's; `not_found` with Cogitator's message (`"Thread <id> not
    /// found"`) for an unknown thread.
    pub fn update_thread(&self, thread_id: &str, metadata: Map<String, Value>) -> Result<Thread> {
        let mut store = self.lock();
        let now =
            store.record(MemoryMethod::UpdateThread, vec![Value::from(thread_id), Value::Object(metadata.clone())]);
        let thread = store
            .threads
            .get_mut(thread_id)
            .ok_or_else(|| not_found(format!("Thread {thread_id} not found")).with_context("thread_id", thread_id))?;
        thread.metadata.extend(metadata);
        thread.updated_at_ms = now;
        Ok(thread.clone())
    }

    /// Removes the thread and its entries (always succeeds).
    pub fn delete_thread(&self, thread_id: &str) {
        let mut store = self.lock();
        store.record(MemoryMethod::DeleteThread, vec![Value::from(thread_id)]);
        store.threads.remove(thread_id);
        store.entries.remove(thread_id);
    }

    /// Adds an entry (id `entry_N`); the thread need not exist.
    pub fn add_entry(&self, entry: NewEntry) -> MemoryEntry {
        let mut store = self.lock();
        let now = store.record(MemoryMethod::AddEntry, vec![to_value(&entry)]);
        store.next_entry += 1;
        let stored = MemoryEntry {
            id: format!("entry_{}", store.next_entry),
            thread_id: entry.thread_id.clone(),
            message: entry.message,
            tool_calls: entry.tool_calls,
            tool_results: entry.tool_results,
            token_count: entry.token_count.unwrap_or(0),
            created_at_ms: now,
            metadata: entry.metadata,
        };
        store.entries.entry(entry.thread_id).or_default().push(stored.clone());
        stored
    }

    /// The thread's entries: strict date filters, then the last `limit`, in insertion order.
    pub fn get_entries(&self, query: &EntryQuery) -> Vec<MemoryEntry> {
        let mut store = self.lock();
        store.record(MemoryMethod::GetEntries, vec![to_value(query)]);
        let Some(entries) = store.entries.get(&query.thread_id) else {
            return Vec::new();
        };
        let mut found: Vec<MemoryEntry> = entries
            .iter()
            .filter(|e| query.before_ms.is_none_or(|t| e.created_at_ms < t))
            .filter(|e| query.after_ms.is_none_or(|t| e.created_at_ms > t))
            .cloned()
            .collect();
        if let Some(limit) = query.limit.filter(|l| *l > 0) {
            let skip = found.len().saturating_sub(limit);
            found.drain(..skip);
        }
        if !query.include_tool_calls {
            for entry in &mut found {
                entry.tool_calls = None;
                entry.tool_results = None;
            }
        }
        found
    }

    /// The entry with `id`, or `None`.
    pub fn get_entry(&self, entry_id: &str) -> Option<MemoryEntry> {
        let mut store = self.lock();
        store.record(MemoryMethod::GetEntry, vec![Value::from(entry_id)]);
        store.entries.values().flatten().find(|e| e.id == entry_id).cloned()
    }

    /// Removes the first entry with `id` (always succeeds).
    pub fn delete_entry(&self, entry_id: &str) {
        let mut store = self.lock();
        store.record(MemoryMethod::DeleteEntry, vec![Value::from(entry_id)]);
        for entries in store.entries.values_mut() {
            if let Some(i) = entries.iter().position(|e| e.id == entry_id) {
                entries.remove(i);
                return;
            }
        }
    }

    /// Empties the thread's entries (creates an empty list for an unknown thread).
    pub fn clear_thread(&self, thread_id: &str) {
        let mut store = self.lock();
        store.record(MemoryMethod::ClearThread, vec![Value::from(thread_id)]);
        store.entries.insert(thread_id.to_string(), Vec::new());
    }

    /// Every recorded call, in order.
    pub fn calls(&self) -> Vec<MemoryCall> {
        self.lock().calls.clone()
    }

    /// The recorded calls of one method.
    pub fn calls_for(&self, method: MemoryMethod) -> Vec<MemoryCall> {
        self.lock().calls.iter().filter(|c| c.method == method).cloned().collect()
    }

    /// Clears everything and disconnects.
    pub fn reset(&self) {
        *self.lock() = Store::default();
    }

    /// Calls `method` with its arguments as a JSON object of the parameter names (`{"agent_id": "a1",
    /// "metadata": {...}}` for `create_thread`, `{"entry": {...}}` for `add_entry`, `{"query": {...}}` for
    /// `get_entries`) and returns the result as JSON (`null` for methods without one): the entry point of
    /// bindings that speak JSON, such as the C ABI.
    pub fn call_json(&self, method: MemoryMethod, arguments: Value) -> Result<Value> {
        #[derive(Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        struct Arguments {
            #[serde(default)]
            agent_id: Option<String>,
            #[serde(default)]
            thread_id: Option<String>,
            #[serde(default)]
            entry_id: Option<String>,
            #[serde(default)]
            metadata: Option<Map<String, Value>>,
            #[serde(default)]
            entry: Option<NewEntry>,
            #[serde(default)]
            query: Option<EntryQuery>,
        }
        let arguments: Arguments = match arguments {
            Value::Null => Arguments::default(),
            other => crate::input::deserialize_data(&other).map_err(|e| {
                crate::error::invalid_argument(format!(
                    "invalid arguments of {} at {}: {}",
                    method.name(),
                    e.path,
                    e.message
                ))
                .with_context("argument", "arguments")
            })?,
        };
        let missing = |name: &str| {
            crate::error::invalid_argument(format!("{} needs the argument {name:?}", method.name()))
                .with_context("argument", name)
        };
        let thread_id = || arguments.thread_id.clone().ok_or_else(|| missing("thread_id"));
        let entry_id = || arguments.entry_id.clone().ok_or_else(|| missing("entry_id"));
        Ok(match method {
            MemoryMethod::Connect => {
                self.connect();
                Value::Null
            }
            MemoryMethod::Disconnect => {
                self.disconnect();
                Value::Null
            }
            MemoryMethod::CreateThread => {
                let agent_id = arguments.agent_id.clone().ok_or_else(|| missing("agent_id"))?;
                to_value(&self.create_thread(&agent_id, arguments.metadata.clone(), arguments.thread_id.as_deref()))
            }
            MemoryMethod::GetThread => to_value(&self.get_thread(&thread_id()?)),
            MemoryMethod::UpdateThread => {
                to_value(&self.update_thread(&thread_id()?, arguments.metadata.clone().unwrap_or_default())?)
            }
            MemoryMethod::DeleteThread => {
                self.delete_thread(&thread_id()?);
                Value::Null
            }
            MemoryMethod::AddEntry => {
                to_value(&self.add_entry(arguments.entry.clone().ok_or_else(|| missing("entry"))?))
            }
            MemoryMethod::GetEntries => {
                to_value(&self.get_entries(&arguments.query.clone().ok_or_else(|| missing("query"))?))
            }
            MemoryMethod::GetEntry => to_value(&self.get_entry(&entry_id()?)),
            MemoryMethod::DeleteEntry => {
                self.delete_entry(&entry_id()?);
                Value::Null
            }
            MemoryMethod::ClearThread => {
                self.clear_thread(&thread_id()?);
                Value::Null
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn threads_and_entries_follow_the_adapter_contract() {
        let memory = MockMemory::new();
        memory.connect();
        let thread = memory.create_thread("agent_1", None, None);
        assert_eq!(thread.id, "thread_1");
        assert!(memory.get_thread("nope").is_none());
        let updated = memory.update_thread("thread_1", Map::from_iter([("k".to_string(), json!(1))])).unwrap();
        assert_eq!(updated.metadata["k"], 1);
        let err = memory.update_thread("nope", Map::new()).unwrap_err();
        assert_eq!((err.code(), err.message()), ("not_found", "Thread nope not found"));
        for i in 0..5 {
            memory.add_entry(NewEntry {
                thread_id: "thread_1".into(),
                message: json!({"role": "user", "content": format!("m{i}")}),
                tool_calls: Some(json!([{"name": "t"}])),
                ..NewEntry::default()
            });
        }
        let last_two =
            memory.get_entries(&EntryQuery { thread_id: "thread_1".into(), limit: Some(2), ..EntryQuery::default() });
        assert_eq!(last_two.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(), ["entry_4", "entry_5"]);
        assert!(last_two[0].tool_calls.is_none(), "tool calls are stripped unless asked for");
        let third = memory.get_entry("entry_3").unwrap();
        let after = memory.get_entries(&EntryQuery {
            thread_id: "thread_1".into(),
            after_ms: Some(third.created_at_ms),
            include_tool_calls: true,
            ..EntryQuery::default()
        });
        assert_eq!(after.len(), 2);
        assert!(after[0].tool_calls.is_some());
        memory.delete_entry("entry_5");
        memory.create_thread("agent_1", None, Some("thread_1"));
        assert!(memory.get_entries(&EntryQuery { thread_id: "thread_1".into(), ..EntryQuery::default() }).is_empty());
        assert_eq!(memory.calls_for("addEntry".parse().unwrap()).len(), 5);
        assert_eq!(memory.calls_for("add_entry".parse().unwrap()).len(), 5);
        assert_eq!(memory.calls()[0].method, MemoryMethod::Connect);
        assert_eq!(serde_json::to_value(&memory.calls()[1]).unwrap()["method"], "create_thread");
        assert_eq!("addEntries".parse::<MemoryMethod>().unwrap_err().code(), "invalid_argument");
        memory.disconnect();
        assert!(!memory.is_connected());
        assert!(memory.get_thread("thread_1").is_some(), "disconnect keeps the data");
    }

    #[test]
    fn every_method_can_be_called_with_json() {
        let memory = MockMemory::new();
        let call = |method: &str, args: Value| memory.call_json(method.parse().unwrap(), args);
        assert_eq!(call("connect", Value::Null).unwrap(), Value::Null);
        assert_eq!(call("createThread", json!({"agent_id": "a1"})).unwrap()["id"], "thread_1");
        let entry = call("add_entry", json!({"entry": {"thread_id": "thread_1", "message": "hi"}})).unwrap();
        assert_eq!(entry["id"], "entry_1");
        assert_eq!(call("get_entries", json!({"query": {"thread_id": "thread_1"}})).unwrap()[0]["message"], "hi");
        assert_eq!(call("update_thread", json!({"thread_id": "nope"})).unwrap_err().code(), "not_found");
        let err = call("get_thread", json!({})).unwrap_err();
        assert_eq!((err.code(), err.message()), ("invalid_argument", "get_thread needs the argument \"thread_id\""));
        assert_eq!(call("get_entry", json!({"entry": 1})).unwrap_err().code(), "invalid_argument");
        // update_thread on an unknown thread is recorded (as Cogitator records every call); bad arguments are not.
        assert_eq!(memory.calls().len(), 5);
    }
}
