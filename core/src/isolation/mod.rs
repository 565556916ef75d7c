//! One server, many tests: a base-URL prefix `/t/{id}/` (or the header `x-cuecard-test: {id}`) selects an isolated
//! mock, its own copy of the server's script with its own cursors, journal and counters, made on first use. Parallel
//! test runs (pytest-xdist workers, vitest workers, several CI jobs) share one `cuecard serve` without seeing each
//! other's requests; the unprefixed surface stays the default test.
//!
//! Admin paths per test: `/_cuecard/t/{id}/journal`, `/_cuecard/t/{id}/checks`, `/_cuecard/t/{id}/reset`,
//! `PUT /_cuecard/t/{id}/scenario` (which also creates it), `DELETE /_cuecard/t/{id}` to drop it; `GET
//! /_cuecard/tests` lists the live ones. At most `max_tests` live at once: beyond it the least recently used is
//! dropped, and a later request of that test gets a 410 naming why, rather than a fresh mock that would hide the
//! lost journal.
//!
//! Memory is bounded for the whole server, not per test: the tests share `journal_total` journal entries, each
//! keeping at most `journal_total / max_tests` (and never more than the default mock's own limit), so 1,000 tests
//! hammered from a web page cannot hold 1,000 full journals (issue #59 S4). An evicted test is remembered by a
//! 64-bit digest of its id, [`EVICTED_REMEMBERED_PER_TEST`] times `max_tests` of them, so its 410 outlives that
//! many later evictions (S11) in 8 bytes an id.
//!
//! The request path takes a read lock of the map (readers do not block each other) and touches an atomic of the
//! test's own; the write lock is taken only to create or drop a test.

use crate::error::{Error, ErrorKind};
use crate::http::{HttpReply, HttpRequest};
use crate::mock::MockModel;
use crate::wire;
use serde_json::json;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The header that names a test, for clients whose base URL cannot carry the prefix.
pub const TEST_HEADER: &str = "x-cuecard-test";

/// Live tests kept by default.
pub const DEFAULT_MAX_TESTS: usize = 1000;

/// Journal entries the tests of a server keep in all, by default: at the measured 5.8 KB an entry of a 2 KB
/// request, about 600 MB when every test is full; each of the default 1,000 tests keeps its newest 100.
pub const DEFAULT_JOURNAL_TOTAL: usize = 100_000;

/// How many evicted tests are remembered (and answered 410), per live test allowed.
pub const EVICTED_REMEMBERED_PER_TEST: usize = 64;

/// The evicted tests, by a digest of their ids: oldest first, each with the number of its eviction (an id evicted
/// again is counted from its latest eviction).
#[derive(Debug, Default)]
struct Evicted {
    order: VecDeque<(u64, u64)>,
    latest: HashMap<u64, u64>,
    count: u64,
}

impl Evicted {
    fn digest(id: &str) -> u64 {
        crate::seeded::fnv1a64(id.bytes())
    }

    fn contains(&self, id: &str) -> bool {
        self.latest.contains_key(&Evicted::digest(id))
    }

    fn insert(&mut self, id: &str, remembered: usize) {
        let digest = Evicted::digest(id);
        self.count += 1;
        self.latest.insert(digest, self.count);
        self.order.push_back((digest, self.count));
        while self.order.len() > remembered {
            if let Some((old, number)) = self.order.pop_front() {
                if self.latest.get(&old) == Some(&number) {
                    self.latest.remove(&old);
                }
            }
        }
    }

    /// A dropped id may be used again: it is forgotten (its place in `order` is skipped when it comes up).
    fn forget(&mut self, id: &str) {
        self.latest.remove(&Evicted::digest(id));
    }
}

/// The mocks of one server: the default one and the tests'.
#[derive(Debug)]
pub struct Tests {
    default: Arc<MockModel>,
    max_tests: usize,
    live: RwLock<HashMap<Box<str>, Arc<Live>>>,
    /// Bumped at each use; a test's last use is its value then (least recently used = smallest).
    clock: AtomicU64,
    /// Journal entries each test keeps (its share of the server's total).
    journal_share: usize,
    /// Tests dropped to make room, to answer them with a 410.
    evicted: Mutex<Evicted>,
}

#[derive(Debug)]
struct Live {
    mock: Arc<MockModel>,
    last_used: AtomicU64,
}

/// The part of a path after `/t/{id}`, and the id: `/t/abc/v1/models` is `("abc", "/v1/models")`.
pub fn split_test_prefix(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("/t/")?;
    match rest.find('/') {
        Some(slash) => Some((rest.get(..slash)?, rest.get(slash..)?)),
        None => Some((rest, "/")),
    }
}

/// The path a request is answered on: without its `/t/{id}` prefix.
pub fn unprefixed(path: &str) -> &str {
    split_test_prefix(path).map_or(path, |(_, rest)| rest)
}

fn valid_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-.~".contains(&b))
}

fn error_reply(status: u16, kind: ErrorKind, message: String) -> HttpReply {
    wire::admin_error(status, &Error::new(kind, message))
}

impl Tests {
    /// The tests of a server whose default mock is `default`, at most `max_tests` live at once (0: no tests, only
    /// the default), keeping `journal_total` journal entries between them.
    pub fn new(default: Arc<MockModel>, max_tests: usize, journal_total: usize) -> Tests {
        Tests {
            default,
            max_tests,
            live: RwLock::new(HashMap::new()),
            clock: AtomicU64::new(0),
            journal_share: (journal_total / max_tests.max(1)).max(1),
            evicted: Mutex::new(Evicted::default()),
        }
    }

    /// The journal entries each test keeps: its share of the server's total, and never more than the default
    /// mock's own limit.
    pub fn journal_share(&self) -> usize {
        self.default.journal_limit().map_or(self.journal_share, |own| own.min(self.journal_share))
    }

    /// The default mock (the unprefixed surface).
    pub fn default_mock(&self) -> &Arc<MockModel> {
        &self.default
    }

    /// The ids of the live tests, sorted.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.read().keys().map(|id| id.to_string()).collect();
        ids.sort();
        ids
    }

    /// The mock that answers `request`, with its path rewritten to what that mock serves (`/t/{id}` taken off,
    /// `/_cuecard/t/{id}/journal` made `/_cuecard/journal`), or the reply itself (the test admin endpoints, a
    /// refused id). `header_id` is the request's `x-cuecard-test`.
    pub fn select(&self, request: &mut HttpRequest, header_id: Option<&str>) -> Result<Arc<MockModel>, HttpReply> {
        if let Some(rest) = request.path.strip_prefix("/_cuecard/t/") {
            let (id, after) = rest.split_once('/').unwrap_or((rest, ""));
            let (id, after) = (id.to_string(), after.trim_end_matches('/').to_string());
            if let Some(refusal) = wire::foreign_admin_request(request) {
                return Err(error_reply(403, ErrorKind::InvalidRequest, refusal));
            }
            if after.is_empty() {
                return Err(self.test_endpoint(&request.method, &id));
            }
            let mock = self.mock(&id)?;
            request.path = format!("/_cuecard/{after}");
            return Ok(mock);
        }
        if request.path.trim_end_matches('/') == "/_cuecard/tests" {
            if let Some(refusal) = wire::foreign_admin_request(request) {
                return Err(error_reply(403, ErrorKind::InvalidRequest, refusal));
            }
            let reply =
                json!({"tests": self.ids(), "max_tests": self.max_tests, "journal_per_test": self.journal_share()});
            return Err(wire::json_reply(200, Vec::new(), &reply));
        }
        if let Some((id, rest)) = split_test_prefix(&request.path) {
            if wire::is_admin_path(rest) {
                let message = format!("a test's admin paths are /_cuecard/t/{id}/..., not {}", request.path);
                return Err(error_reply(404, ErrorKind::NotFound, message));
            }
            let (id, rest) = (id.to_string(), rest.to_string());
            request.mount = format!("/t/{id}");
            request.path = rest;
            return self.answering_mock(&id, request);
        }
        match header_id {
            Some(id) => self.answering_mock(id, request),
            None => Ok(Arc::clone(&self.default)),
        }
    }

    /// The mock of test `id` for a request to the protocols' surface (`/t/{id}/...` or `x-cuecard-test`). Only a
    /// request to an endpoint makes a test: a stray path (a browser's favicon, a scanner) under an id that is not
    /// live is a 404 that makes nothing and evicts nothing (issue #59, S10); on a live test it is that test's 404.
    fn answering_mock(&self, id: &str, request: &HttpRequest) -> Result<Arc<MockModel>, HttpReply> {
        if valid_id(id) && !wire::serves(request) && !self.read().contains_key(id) {
            let message = format!("no endpoint at {} (a test is made by its first request to one)", request.path);
            return Err(error_reply(404, ErrorKind::NotFound, message));
        }
        self.mock(id)
    }

    /// `DELETE /_cuecard/t/{id}` drops a test; `GET` says whether it is live.
    fn test_endpoint(&self, method: &str, id: &str) -> HttpReply {
        match method {
            "DELETE" => {
                let dropped = self.write().remove(id).is_some();
                // A dropped id may be used again, evicted or not.
                self.evicted().forget(id);
                wire::json_reply(200, Vec::new(), &json!({"ok": true, "dropped": dropped}))
            }
            "GET" => wire::json_reply(200, Vec::new(), &json!({"ok": true, "live": self.read().contains_key(id)})),
            other => error_reply(
                405,
                ErrorKind::InvalidRequest,
                format!(
                    "{other} /_cuecard/t/{id}: a test is dropped with DELETE (or read at /_cuecard/t/{id}/journal)"
                ),
            ),
        }
    }

    /// The test's mock, made from the default mock's script on first use.
    fn mock(&self, id: &str) -> Result<Arc<MockModel>, HttpReply> {
        if !valid_id(id) {
            let message =
                format!("{id:?} is not a test id: 1 to 128 of A-Z a-z 0-9 _ - . ~ (a hash of a test's name fits)");
            return Err(error_reply(400, ErrorKind::InvalidRequest, message));
        }
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        if let Some(live) = self.read().get(id) {
            live.last_used.store(now, Ordering::Relaxed);
            return Ok(Arc::clone(&live.mock));
        }
        if self.max_tests == 0 {
            let message = "this server keeps no tests (max_tests 0): use the unprefixed base URL".to_string();
            return Err(error_reply(400, ErrorKind::InvalidRequest, message));
        }
        if self.evicted().contains(id) {
            let message = format!(
                "test {id} was dropped: more than {} tests were live and it was the least recently used; raise \
                 --max-tests, or DELETE /_cuecard/t/{{id}} as each test ends",
                self.max_tests
            );
            return Err(error_reply(410, ErrorKind::InvalidState, message));
        }
        let fresh = MockModel::from_script(&self.default.script()).map_err(|e| wire::admin_error(500, &e))?;
        fresh.set_journal_limit(Some(self.journal_share()));
        let mut live = self.write();
        if let Some(existing) = live.get(id) {
            return Ok(Arc::clone(&existing.mock)); // made by a concurrent first request
        }
        if live.len() >= self.max_tests {
            let oldest = live.iter().min_by_key(|(_, l)| l.last_used.load(Ordering::Relaxed)).map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                live.remove(&oldest);
                self.evicted().insert(&oldest, self.max_tests.saturating_mul(EVICTED_REMEMBERED_PER_TEST));
            }
        }
        let mock = Arc::new(fresh);
        live.insert(id.into(), Arc::new(Live { mock: Arc::clone(&mock), last_used: AtomicU64::new(now) }));
        Ok(mock)
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<Box<str>, Arc<Live>>> {
        self.live.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<Box<str>, Arc<Live>>> {
        self.live.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn evicted(&self) -> std::sync::MutexGuard<'_, Evicted> {
        self.evicted.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
