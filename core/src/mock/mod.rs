//! `MockModel`: the scripted provider. It answers each request with the next step of the route it matches and
//! journals every request exactly once, also when it fails.
//!
//! Concurrency: steps are taken under one lock, in arrival order; concurrent callers each get exactly one step
//! and no step is taken twice. Computed steps (host callbacks) run outside the lock, so a callback may itself
//! read the mock without deadlocking.

pub(crate) mod a2a;
mod answering;
mod builder;
mod faulted;
pub(crate) mod files;
pub(crate) mod mcp;
pub mod pending;
mod reading;
mod scripting;
pub(crate) mod sockets;

pub use builder::MockBuilder;
pub use files::{StoredBatch, StoredFile};

use crate::answer::Chunks;
use crate::clock::DEFAULT_PROVIDER_ID;
use crate::error::Result;
use crate::journal::{EntryTicket, Journal};
use crate::model::ChatResponse;
use crate::scenario::Scenario;
use crate::script::{
    CallError, Exhaustion, ReasoningField, Responder, Route, RouteMatch, Script, Step, StepBody, StepTiming, Timing,
};
use crate::stream::{Envelope, EventStream};
use crate::usage::UsagePolicy;
use std::sync::{Arc, Mutex, MutexGuard};

/// A value with the virtual time it took.
#[derive(Clone, Debug)]
pub struct Timed<T> {
    /// The value.
    pub value: T,
    /// Virtual milliseconds the provider took to produce it (delays of the step).
    pub delay_ms: u64,
}

/// The outcome of one whole-answer call: its journal index, the response or error, and the virtual time taken.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The journal index of the request.
    pub index: u64,
    /// The response, or why there is none. Shared with the journal's entry, which keeps the same response: a
    /// host that only reads it (to encode it, or to convert it) copies nothing.
    pub result: Result<Arc<ChatResponse>, CallError>,
    /// Virtual milliseconds the answer (or failure) took.
    pub delay_ms: u64,
    /// On the wire: how long to hold the response without sending anything (the step's `stall_ms`).
    pub stall_ms: u64,
    /// The ids, model and time of the answer, when a step was taken.
    pub envelope: Option<Envelope>,
}

/// The events of a streamed call, or cuecard's own error (or a host callback's) with the request's journal index.
pub type StreamResult = std::result::Result<EventStream, (u64, CallError)>;

/// The responder of a taken step that is computed.
fn computed_responder(taken: &Taken) -> Option<Arc<dyn Responder>> {
    match &taken.step.body {
        StepBody::Compute(responder) => Some(responder.clone()),
        _ => None,
    }
}

/// A step of the script that no request took, for "all steps used" checks.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UnusedStep {
    /// Route index.
    pub route: usize,
    /// The route's match, described.
    pub route_match: String,
    /// Step index within the route.
    pub step: usize,
    /// The step, described.
    pub step_description: String,
}

#[derive(Debug)]
struct RouteState {
    route: Route,
    /// Next step to take (grows past the end under `cycle`).
    cursor: usize,
    /// The script ends with `repeats()`: no further steps may be added.
    sealed: bool,
}

/// The settings in force, every one resolved.
#[derive(Clone, Debug)]
struct Settings {
    exhaustion: Exhaustion,
    usage: UsagePolicy,
    seed: u64,
    provider_id: String,
    capabilities: Vec<String>,
    step_defaults: StepTiming,
    instant: bool,
    journal_limit: Option<usize>,
    reasoning_field: ReasoningField,
    replay_speed: f64,
    recording: bool,
    delivery: Option<crate::delivery::Delivery>,
    chaos: Option<crate::chaos::Chaos>,
    answer_faults: Option<crate::faults::AnswerFaults>,
    latency: Option<crate::latency::Latency>,
    contracts: crate::contracts::Contracts,
    /// Some route has a `contracts` of its own (the wire then finds the request's route before it checks).
    route_contracts: bool,
    rate_limits: crate::rate_limits::RateLimits,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            exhaustion: Exhaustion::Fail,
            usage: UsagePolicy::None,
            seed: 0,
            provider_id: DEFAULT_PROVIDER_ID.to_string(),
            capabilities: Vec::new(),
            step_defaults: StepTiming::default(),
            instant: false,
            journal_limit: None,
            reasoning_field: ReasoningField::None,
            replay_speed: 1.0,
            recording: false,
            delivery: None,
            chaos: None,
            answer_faults: None,
            latency: None,
            contracts: crate::contracts::Contracts::default(),
            route_contracts: false,
            rate_limits: crate::rate_limits::RateLimits::default(),
        }
    }
}

#[derive(Debug)]
struct State {
    routes: Vec<RouteState>,
    /// The routes indexed by request, made on the first request after a route was added (many routes only).
    #[cfg(not(target_arch = "wasm32"))]
    route_index: Option<crate::route_index::RouteIndex>,
    current_route: usize,
    settings: Settings,
    journal: Journal,
    next_response_number: u64,
    next_tool_call_id: u64,
    /// How many faults `answer_faults` drew (its `times` caps them).
    answer_faults_drawn: u64,
    clock_ms: u64,
    /// Where the `rate_limits` stand.
    rate_buckets: crate::rate_limits::Buckets,
    /// The scripted MCP servers, their used steps, sessions and journal.
    mcp: mcp::McpState,
    a2a: a2a::AgentsState,
    /// Uploaded files and batches (the Files and Batch APIs).
    files: files::Store,
    /// Realtime sessions (WebSockets) and their messages.
    sockets: sockets::Store,
}

impl State {
    fn new() -> State {
        State {
            routes: vec![RouteState { route: Route::new(RouteMatch::any()), cursor: 0, sealed: false }],
            #[cfg(not(target_arch = "wasm32"))]
            route_index: None,
            current_route: 0,
            settings: Settings::default(),
            journal: Journal::unbounded(),
            next_response_number: 1,
            next_tool_call_id: 1,
            answer_faults_drawn: 0,
            clock_ms: 0,
            rate_buckets: crate::rate_limits::Buckets::default(),
            mcp: mcp::McpState::default(),
            a2a: a2a::AgentsState::default(),
            files: files::Store::default(),
            sockets: sockets::Store::default(),
        }
    }
}

/// A scripted provider. `Send + Sync`: share it by reference or `Arc` across threads.
#[derive(Debug)]
pub struct MockModel {
    state: Mutex<State>,
}

impl Default for MockModel {
    fn default() -> MockModel {
        MockModel::new()
    }
}

/// `seeded::request_seed`'s purpose for generated steps ("genstep" in ASCII).
const GENERATE_PURPOSE: u64 = 0x0067_656e_7374_6570;

/// What the first lock hands to the answering code.
struct Taken {
    entry: EntryTicket,
    step: Arc<Step>,
    number: u64,
    tool_call_ids: Vec<u64>,
    at_ms: u64,
    usage: UsagePolicy,
    step_defaults: StepTiming,
    /// The request's draws from the `latency` profile, if one is set.
    latency: Option<crate::latency::RequestLatency>,
    /// Where the rate limits stand after it, for its reply's headers (none when they are off).
    rate_limit: Option<crate::rate_limits::RateLimitReading>,
}

/// A resolved answer: the response, what to stream before it, and its delays.
struct Resolved {
    response: ChatResponse,
    /// The thinking and text to stream when the step is not an [`Answer`] (whose own chunks `plan` reads).
    thinking: Option<Chunks>,
    text: Option<Chunks>,
    step: Arc<Step>,
    timing: Timing,
    envelope: Envelope,
}

impl MockModel {
    /// A mock with one default route and no steps: every request fails as unexpected until steps are added.
    pub fn new() -> MockModel {
        MockModel { state: Mutex::new(State::new()) }
    }

    /// A builder for a mock (Rust's fluent way to script).
    pub fn builder() -> MockBuilder {
        MockBuilder { mock: MockModel::new(), error: None }
    }

    /// A mock scripted by `script`.
    pub fn from_script(script: &Script) -> Result<MockModel> {
        let mock = MockModel::new();
        mock.configure(&script.settings)?;
        for route in &script.routes {
            mock.add_route(route.clone())?;
        }
        Ok(mock)
    }

    /// A mock scripted by a scenario.
    pub fn from_scenario(scenario: &Scenario) -> Result<MockModel> {
        MockModel::from_script(scenario.script())
    }

    /// Locks the state. A poisoned lock (a panic elsewhere while holding it) is recovered: the state is plain
    /// data that is consistent between statements.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[allow(dead_code)]
fn assert_send_sync<T: Send + Sync>() {}
const _: fn() = || assert_send_sync::<MockModel>();
