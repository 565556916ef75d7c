//! `MockModel`: the scripted provider. It answers each request with the next step of the route it matches and
//! journals every request exactly once, also when it fails.
//!
//! Concurrency: steps are taken under one lock, in arrival order; concurrent callers each get exactly one step
//! and no step is taken twice. Computed steps (host callbacks) run outside the lock, so a callback may itself
//! read the mock without deadlocking.

pub(crate) mod mcp;
pub mod pending;

use crate::answer::{Answer, Chunks};
use crate::clock::{created_seconds, DEFAULT_PROVIDER_ID};
use crate::error::{invalid_state, Error, ErrorKind, Result};
use crate::failure::ProviderError;
use crate::journal::{EntryTicket, IntoJournaled, Journal, JournalCounts, JournalEntry, Outcome, RawRequest};
use crate::model::{ChatRequest, ChatResponse, FinishReason, Message, ToolCall};
use crate::observe::{self, CallRecord};
use crate::rate_limits;
use crate::scenario::Scenario;
use crate::script::{
    callback_failed, preview, CallError, Exhaustion, MockSettings, ReasoningField, Responder, Route, RouteMatch,
    Script, Step, StepBody, StepTiming, StreamBreak, Timing,
};
use crate::stream::{self, Envelope, EventStream, StreamPlan};
use crate::usage::{self, UsagePolicy};
use pending::{Pending, Turn};
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
    clock_ms: u64,
    /// Where the `rate_limits` stand.
    rate_buckets: crate::rate_limits::Buckets,
    /// The scripted MCP servers, their used steps, sessions and journal.
    mcp: mcp::McpState,
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
            clock_ms: 0,
            rate_buckets: crate::rate_limits::Buckets::default(),
            mcp: mcp::McpState::default(),
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

    // ---- scripting -------------------------------------------------------------------------------------------

    /// Adds a route and makes it the current one (the one `add_step`, `and_fails` and `repeats` act on).
    /// A route with an empty match replaces the initial empty default route if that has no steps yet.
    pub fn add_route(&self, route: Route) -> Result<usize> {
        let mut state = self.lock();
        let effective = route.exhaustion.unwrap_or(state.settings.exhaustion);
        route.check_policy(effective)?;
        state.settings.route_contracts |= route.contracts.is_some();
        let initial_unused = state.routes.len() == 1
            && state.routes.first().is_some_and(|r| r.route.matcher.is_default() && r.route.steps.is_empty());
        let index = if initial_unused {
            if let Some(first) = state.routes.first_mut() {
                *first = RouteState { route, cursor: 0, sealed: false };
            }
            0
        } else {
            state.routes.push(RouteState { route, cursor: 0, sealed: false });
            state.routes.len() - 1
        };
        state.current_route = index;
        #[cfg(not(target_arch = "wasm32"))]
        {
            state.route_index = None;
        }
        Ok(index)
    }

    fn current_route(state: &mut State) -> Result<&mut RouteState> {
        let current = state.current_route;
        state.routes.get_mut(current).ok_or_else(|| invalid_state("no current route"))
    }

    /// Adds a step to the current route.
    pub fn add_step(&self, step: Step) -> Result<()> {
        let mut state = self.lock();
        let route = MockModel::current_route(&mut state)?;
        if route.sealed {
            return Err(invalid_state(
                "the script already ends with repeats(): it must be the last call of the script",
            ));
        }
        route.route.steps.push(Arc::new(step));
        Ok(())
    }

    /// Makes the last step of the current route fail after its thinking and text were streamed. It adds no step.
    pub fn fail_last_step_after(&self, error: ProviderError) -> Result<()> {
        let mut state = self.lock();
        let route = MockModel::current_route(&mut state)?;
        if route.sealed {
            return Err(invalid_state("the script already ends with repeats()"));
        }
        let last_index = route
            .route
            .steps
            .len()
            .checked_sub(1)
            .ok_or_else(|| invalid_state("there is no step to fail: add a step first"))?;
        if route.cursor > last_index {
            return Err(invalid_state("the mock already answered the last step"));
        }
        let last = route.route.steps.get_mut(last_index).ok_or_else(|| invalid_state("there is no step to fail"))?;
        let step = (**last).clone().failing_after(error)?;
        *last = Arc::new(step);
        Ok(())
    }

    /// Answers every further request of the current route with its last step. It must be the last call of the
    /// route's script; a last step that calls a tool cannot repeat.
    pub fn repeat_last_step(&self) -> Result<()> {
        let mut state = self.lock();
        let route = MockModel::current_route(&mut state)?;
        if route.sealed {
            return Err(invalid_state("the script already ends with repeats()"));
        }
        if route.route.steps.is_empty() {
            return Err(invalid_state("there is no step to repeat: add a step first"));
        }
        route.route.check_policy(Exhaustion::RepeatLast)?;
        route.route.exhaustion = Some(Exhaustion::RepeatLast);
        route.sealed = true;
        Ok(())
    }

    /// Empties route `index` (its steps, cursor, exhaustion policy and `repeats()` seal) and makes it the current
    /// route, so it can be scripted afresh; the journal and the other routes stay. Cogitator's `setResponses`
    /// replaces the queued answers but keeps the calls already recorded.
    pub fn restart_route(&self, index: usize) -> Result<()> {
        let mut state = self.lock();
        let count = state.routes.len();
        let route = state
            .routes
            .get_mut(index)
            .ok_or_else(|| invalid_state(format!("there is no route {index}: the mock has {count}")))?;
        route.route.steps.clear();
        route.route.exhaustion = None;
        route.cursor = 0;
        route.sealed = false;
        state.current_route = index;
        Ok(())
    }

    /// Sets the exhaustion policy of the current route.
    pub fn set_route_exhaustion(&self, exhaustion: Exhaustion) -> Result<()> {
        let mut state = self.lock();
        let route = MockModel::current_route(&mut state)?;
        route.route.check_policy(exhaustion)?;
        route.route.exhaustion = Some(exhaustion);
        Ok(())
    }

    /// Changes the settings that `settings` gives; the others stay. A default policy that would make a route
    /// repeat a tool call is refused, and then nothing changes.
    pub fn configure(&self, settings: &MockSettings) -> Result<()> {
        if let Some(speed) = settings.replay_speed.filter(|s| !(s.is_finite() && *s > 0.0)) {
            return Err(crate::error::invalid_argument(format!(
                "invalid replay_speed: {speed} (a positive number: 2 replays twice as fast)"
            )));
        }
        if let Some((field, problem)) = settings.delivery.as_ref().and_then(crate::delivery::Delivery::problem) {
            return Err(crate::error::invalid_argument(format!("invalid delivery.{field}: {problem}")));
        }
        if let Some((field, problem)) = settings.chaos.as_ref().and_then(|c| c.problem(None)) {
            return Err(crate::error::invalid_argument(format!("invalid chaos.{field}: {problem}")));
        }
        if let Some((field, problem)) = settings.latency.as_ref().and_then(crate::latency::Latency::problem) {
            return Err(crate::error::invalid_argument(format!("invalid latency.{field}: {problem}")));
        }
        if let Some((field, problem)) = settings.contracts.as_ref().and_then(crate::contracts::Contracts::problem) {
            return Err(crate::error::invalid_argument(format!("invalid contracts.{field}: {problem}")));
        }
        if let Some((field, problem)) = settings.rate_limits.as_ref().and_then(crate::rate_limits::RateLimits::problem)
        {
            return Err(crate::error::invalid_argument(format!("invalid rate_limits.{field}: {problem}")));
        }
        if let Some((field, problem)) = settings.mcp.as_ref().and_then(crate::script::mcp::Mcp::problem) {
            return Err(crate::error::invalid_argument(format!("invalid mcp.{field}: {problem}")));
        }
        let mut state = self.lock();
        if let Some(exhaustion) = settings.on_exhausted {
            for route in &state.routes {
                route.route.check_policy(route.route.exhaustion.unwrap_or(exhaustion))?;
            }
            state.settings.exhaustion = exhaustion;
        }
        let current = &mut state.settings;
        if let Some(usage) = settings.usage {
            current.usage = usage;
        }
        if let Some(seed) = settings.seed {
            current.seed = seed;
        }
        if let Some(id) = &settings.provider_id {
            current.provider_id.clone_from(id);
        }
        if let Some(capabilities) = &settings.capabilities {
            current.capabilities.clone_from(capabilities);
        }
        if let Some(defaults) = settings.step_defaults {
            defaults.check().map_err(|(field, problem)| {
                crate::error::Error::new(
                    ErrorKind::InvalidArgument,
                    format!("invalid step_defaults.{field}: {problem}"),
                )
            })?;
            current.step_defaults = defaults;
        }
        if let Some(instant) = settings.instant {
            current.instant = instant;
        }
        if let Some(field) = settings.reasoning_field {
            current.reasoning_field = field;
        }
        if let Some(speed) = settings.replay_speed {
            current.replay_speed = speed;
        }
        if let Some(recording) = settings.recording {
            current.recording = recording;
        }
        if let Some(delivery) = &settings.delivery {
            current.delivery = Some(delivery.clone());
        }
        if let Some(chaos) = &settings.chaos {
            // No rates turns chaos off.
            current.chaos = Some(chaos.clone()).filter(|c| !c.rates.is_empty());
        }
        if let Some(contracts) = &settings.contracts {
            current.contracts = contracts.clone();
        }
        if let Some(limits) = settings.rate_limits {
            current.rate_limits = limits;
        }

        if let Some(latency) = settings.latency {
            // Neither distribution turns the profile off.
            current.latency = Some(latency).filter(|l| l.ttft_ms.is_some() || l.itl_ms.is_some());
        }
        if let Some(mcp) = &settings.mcp {
            state.mcp = mcp::McpState::new(std::sync::Arc::new(mcp.clone()));
        }
        if let Some(limit) = settings.journal_limit {
            state.settings.journal_limit = Some(limit);
            state.journal = Journal::bounded(limit);
        }
        Ok(())
    }

    /// Every setting in force.
    pub fn settings(&self) -> MockSettings {
        let state = self.lock();
        let settings = state.settings.clone();
        MockSettings {
            on_exhausted: Some(settings.exhaustion),
            usage: Some(settings.usage),
            seed: Some(settings.seed),
            provider_id: Some(settings.provider_id),
            capabilities: Some(settings.capabilities),
            step_defaults: Some(settings.step_defaults),
            instant: Some(settings.instant),
            journal_limit: settings.journal_limit,
            reasoning_field: Some(settings.reasoning_field),
            replay_speed: Some(settings.replay_speed),
            recording: Some(settings.recording),
            delivery: settings.delivery,
            chaos: settings.chaos,
            latency: settings.latency,
            contracts: Some(settings.contracts),
            rate_limits: Some(settings.rate_limits),
            mcp: Some((*state.mcp.mcp).clone()).filter(|m| !m.servers.is_empty()),
        }
    }

    /// Sets the default exhaustion policy of routes that do not set their own.
    pub fn set_exhaustion(&self, exhaustion: Exhaustion) -> Result<()> {
        self.configure(&MockSettings { on_exhausted: Some(exhaustion), ..MockSettings::default() })
    }

    /// Sets the usage policy.
    pub fn set_usage(&self, usage: UsagePolicy) {
        self.lock().settings.usage = usage;
    }

    /// Sets the provider id reported in call records (default `"mock"`).
    pub fn set_provider_id(&self, provider_id: impl Into<String>) {
        self.lock().settings.provider_id = provider_id.into();
    }

    /// The provider id.
    pub fn provider_id(&self) -> String {
        self.lock().settings.provider_id.clone()
    }

    /// Keeps only the last `limit` journal entries (counters keep counting everything); `None` keeps all.
    /// Clears the journal.
    pub fn set_journal_limit(&self, limit: Option<usize>) {
        let mut state = self.lock();
        state.settings.journal_limit = limit;
        state.journal = state.journal.renewed(limit);
    }

    /// The seed for anything random (chaos, jitter, generated data); outputs depend on nothing else.
    pub fn seed(&self) -> u64 {
        self.lock().settings.seed
    }

    /// The declared capabilities.
    pub fn capabilities(&self) -> Vec<String> {
        self.lock().settings.capabilities.clone()
    }

    /// Where Chat Completions replies carry scripted thinking (the `reasoning_field` setting).
    pub fn reasoning_field(&self) -> ReasoningField {
        self.lock().settings.reasoning_field
    }

    /// How a wire request is checked against the real APIs' rules: its route's `contracts`, or the mock's.
    pub fn contracts_for(&self, request: &ChatRequest) -> crate::contracts::Contracts {
        let mut guard = self.lock();
        let state = &mut *guard;
        if state.settings.route_contracts {
            let route = find_route(state, request).and_then(|r| state.routes.get(r));
            if let Some(own) = route.and_then(|r| r.route.contracts.as_ref()) {
                return own.clone();
            }
        }
        state.settings.contracts.clone()
    }

    /// The journal entry of the answer whose response id is `id`, the newest first.
    pub fn answer_entry(&self, id: &str) -> Option<JournalEntry> {
        let state = self.lock();
        let entry =
            state.journal.entries().filter(|e| e.response.as_ref().and_then(|r| r.id.as_deref()) == Some(id)).last();
        entry.cloned()
    }

    /// Journals a request refused under `contracts: strict` and returns its journal index.
    pub fn refuse_by_contract(
        &self,
        request: ChatRequest,
        raw: Option<RawRequest>,
        violation: &crate::contracts::Violation,
    ) -> u64 {
        let outcome = Outcome::ContractViolation {
            rule: violation.rule.as_str().into(),
            message: violation.message.as_str().into(),
        };
        self.journal_outside_script(request, raw, outcome)
    }

    /// The rules of the real APIs that journaled requests broke: refused under `contracts: strict`, or answered
    /// under `warn`. `(journal index, rule, message)`, oldest first.
    pub fn contract_violations(&self) -> Vec<(u64, String, String)> {
        let state = self.lock();
        state
            .journal
            .entries()
            .filter_map(|entry| {
                match (&entry.outcome, entry.raw.as_ref().and_then(|r| r.contract_violation.as_ref())) {
                    (Outcome::ContractViolation { rule, message }, _) => {
                        Some((entry.index, rule.to_string(), message.to_string()))
                    }
                    (_, Some(v)) => Some((entry.index, v.rule.clone(), v.message.clone())),
                    _ => None,
                }
            })
            .collect()
    }

    /// How streamed wire replies are delivered (the `delivery` setting), when set.
    pub fn delivery(&self) -> Option<crate::delivery::Delivery> {
        self.lock().settings.delivery.clone()
    }

    /// How fast recorded replies are replayed (the `replay_speed` setting).
    pub fn replay_speed(&self) -> f64 {
        self.lock().settings.replay_speed
    }

    /// Whether hosts skip the scripted delays.
    pub fn is_instant(&self) -> bool {
        self.lock().settings.instant
    }

    /// Advances the virtual clock (for hosts that wait outside the mock, such as a client's retry back-off).
    pub fn advance_clock(&self, ms: u64) {
        let mut state = self.lock();
        state.clock_ms = state.clock_ms.saturating_add(ms);
    }

    /// The virtual clock, in milliseconds since the mock was created.
    pub fn clock_ms(&self) -> u64 {
        self.lock().clock_ms
    }

    /// Forgets every request and rewinds every route to its first step; keeps the script, ids restart.
    pub fn reset(&self) {
        let mut state = self.lock();
        state.journal.clear();
        for route in &mut state.routes {
            route.cursor = 0;
        }
        state.next_response_number = 1;
        state.next_tool_call_id = 1;
        state.clock_ms = 0;
        state.rate_buckets = crate::rate_limits::Buckets::default();
        state.mcp.reset();
    }

    /// Replaces the whole script (routes and settings) and forgets every request; the journal limit stays.
    pub fn replace_script(&self, script: &Script) -> Result<()> {
        let fresh = MockModel::from_script(script)?;
        let mut fresh_state = fresh.state.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut state = self.lock();
        let limit = state.settings.journal_limit;
        fresh_state.settings.journal_limit = limit;
        fresh_state.journal = state.journal.renewed(limit);
        *state = fresh_state;
        Ok(())
    }

    /// The script in force: the routes (with every step, used or not) and the settings. `MockModel::from_script` of
    /// it is a fresh mock that answers as this one did before its first request.
    pub fn script(&self) -> Script {
        let routes = self.lock().routes.iter().map(|r| r.route.clone()).collect();
        Script { routes, settings: self.settings() }
    }

    /// Replaces the whole script with a scenario's (see [`MockModel::replace_script`]).
    pub fn load_scenario(&self, scenario: &Scenario) -> Result<()> {
        self.replace_script(scenario.script())
    }

    // ---- answering -------------------------------------------------------------------------------------------

    /// Answers `request` whole. A scripted failure (before or after the tokens) is `Err(CallError::Provider)`.
    pub fn chat(&self, request: impl IntoJournaled) -> Result<ChatResponse, CallError> {
        self.chat_timed(request).value
    }

    /// Answers `request` whole, with the virtual time the answer took (for hosts that wait it out).
    pub fn chat_timed(&self, request: impl IntoJournaled) -> Timed<Result<ChatResponse, CallError>> {
        let exchange = self.chat_timed_raw(request, None);
        Timed { value: exchange.result.map(Arc::unwrap_or_clone), delay_ms: exchange.delay_ms }
    }

    /// Like [`MockModel::chat_timed`], also journaling the raw wire request and telling its journal index.
    pub fn chat_timed_raw(&self, request: impl IntoJournaled, raw: Option<RawRequest>) -> Exchange {
        self.chat_timed_turn(request, raw).finish(self)
    }

    /// Like [`MockModel::chat_timed_raw`], stopping at a computed step so the host can answer it later
    /// ([`Turn`]).
    pub fn chat_timed_turn(&self, request: impl IntoJournaled, raw: Option<RawRequest>) -> Turn<Exchange> {
        self.whole_turn(request.into_journaled(), raw)
    }

    fn whole_turn(&self, request: Arc<ChatRequest>, raw: Option<RawRequest>) -> Turn<Exchange> {
        let taken = match self.take(&request, raw) {
            Ok(taken) => taken,
            Err((index, e)) => {
                return Turn::Done(Exchange { index, result: Err(e), delay_ms: 0, stall_ms: 0, envelope: None });
            }
        };
        match computed_responder(&taken) {
            Some(responder) => Turn::Pending(Pending::new(
                request,
                responder,
                Box::new(move |mock, request, answer| mock.exchange(request, taken, Some(answer))),
            )),
            None => Turn::Done(self.exchange(&request, taken, None)),
        }
    }

    /// The whole answer of a taken step (`computed`: the answer of a computed step, when the host gave it).
    fn exchange(&self, request: &ChatRequest, taken: Taken, computed: Option<Result<Step, CallError>>) -> Exchange {
        let ticket = taken.entry;
        let index = ticket.index;
        let at_ms = taken.at_ms;
        match self.resolve(request, taken, computed).map_err(|failure| *failure) {
            Ok(resolved) => {
                let (thinking, text) = streamed_chunks(&resolved);
                let (fail_after, timing) = (resolved.step.fail_after.as_ref(), resolved.timing);
                let delay_ms = stream::planned_delay(thinking, text, &resolved.response, fail_after, timing);
                let result = match resolved.step.fail_after.as_ref() {
                    Some(error) => {
                        let outcome = Outcome::FailedAfterTokens { kind: error.kind, status: error.status };
                        self.finish_with(ticket, outcome, None, Some(error.clone()), at_ms, delay_ms);
                        Err(CallError::Provider(error.clone()))
                    }
                    None => {
                        let response = Arc::new(resolved.response);
                        self.finish(ticket, Outcome::Answered, Some(Arc::clone(&response)), at_ms, delay_ms);
                        Ok(response)
                    }
                };
                let stall_ms = resolved.timing.stall_ms;
                Exchange { index, result, delay_ms, stall_ms, envelope: Some(resolved.envelope) }
            }
            Err(Failure { error, timing, envelope }) => {
                Exchange { index, result: Err(error), delay_ms: timing.delay_ms, stall_ms: timing.stall_ms, envelope }
            }
        }
    }

    /// Answers `request` as a stream of events. A scripted failure is the stream's last event; `Err` is for
    /// cuecard's own errors (script exhausted, no route) and host callback errors.
    pub fn chat_stream(&self, request: impl IntoJournaled) -> Result<EventStream, CallError> {
        self.chat_stream_raw(request, None).map_err(|(_, e)| e)
    }

    /// Like [`MockModel::chat_stream`], also journaling the raw wire request; an error comes with the journal
    /// index of the request.
    pub fn chat_stream_raw(&self, request: impl IntoJournaled, raw: Option<RawRequest>) -> StreamResult {
        self.chat_stream_turn(request, raw).finish(self)
    }

    /// Like [`MockModel::chat_stream_raw`], stopping at a computed step so the host can answer it later
    /// ([`Turn`]).
    pub fn chat_stream_turn(&self, request: impl IntoJournaled, raw: Option<RawRequest>) -> Turn<StreamResult> {
        self.stream_turn(request.into_journaled(), raw)
    }

    fn stream_turn(&self, request: Arc<ChatRequest>, raw: Option<RawRequest>) -> Turn<StreamResult> {
        let taken = match self.take(&request, raw) {
            Ok(taken) => taken,
            Err(error) => return Turn::Done(Err(error)),
        };
        match computed_responder(&taken) {
            Some(responder) => Turn::Pending(Pending::new(
                request,
                responder,
                Box::new(move |mock, request, answer| mock.event_stream(request, taken, Some(answer))),
            )),
            None => Turn::Done(self.event_stream(&request, taken, None)),
        }
    }

    /// The events of a taken step (`computed` as for [`MockModel::exchange`]).
    fn event_stream(
        &self,
        request: &ChatRequest,
        taken: Taken,
        computed: Option<Result<Step, CallError>>,
    ) -> StreamResult {
        let ticket = taken.entry;
        let at_ms = taken.at_ms;
        match self.resolve(request, taken, computed).map_err(|failure| *failure) {
            Ok(resolved) => {
                let plan = stream_plan(&resolved, at_ms);
                let delay_ms = plan.total_delay_ms();
                let (outcome, response, error) = match resolved.step.fail_after.as_ref() {
                    Some(e) => (Outcome::FailedAfterTokens { kind: e.kind, status: e.status }, None, Some(e.clone())),
                    None => (Outcome::Answered, Some(Arc::new(resolved.response)), None),
                };
                self.finish_with(ticket, outcome, response, error, at_ms, delay_ms);
                let step = &resolved.step;
                Ok(EventStream::new(plan, step.stream_break(), resolved.timing.stall_ms, ticket, resolved.envelope))
            }
            Err(Failure { error: CallError::Provider(error), timing, envelope: Some(envelope) }) => {
                let plan = StreamPlan::failure_before_stream(&error, timing, at_ms);
                Ok(EventStream::new(plan, StreamBreak::ErrorEvent, timing.stall_ms, ticket, envelope))
            }
            Err(Failure { error, .. }) => Err((ticket.index, error)),
        }
    }

    /// Journals a request that was refused before reaching the script (a malformed request on the wire) and
    /// returns its journal index.
    pub fn reject(&self, request: ChatRequest, raw: Option<RawRequest>, reason: impl Into<String>) -> u64 {
        self.journal_outside_script(request, raw, Outcome::Rejected { reason: reason.into() })
    }

    /// Journals a request served outside the script (models, embeddings), as answered, and returns its index.
    pub fn record_served(&self, request: ChatRequest, raw: Option<RawRequest>) -> u64 {
        self.journal_outside_script(request, raw, Outcome::Answered)
    }

    /// Journals a request that no route or step answers, with its final outcome.
    fn journal_outside_script(&self, request: ChatRequest, raw: Option<RawRequest>, outcome: Outcome) -> u64 {
        let (request, raw) = (Arc::new(request), raw.map(Box::new));
        let mut state = self.lock();
        let index = state.journal.len();
        let entry = JournalEntry {
            index,
            request,
            raw,
            route: None,
            step: None,
            outcome,
            at_ms: state.clock_ms,
            response: None,
            error: None,
            left_mid_stream: false,
            chaos: false,
            delivery_seed: None,
        };
        let evicted = state.journal.push(entry);
        drop(state);
        drop(evicted); // freed outside the lock
        index
    }

    /// The models routes match on, in route order (for `GET /v1/models`).
    pub fn route_models(&self) -> Vec<String> {
        self.lock().routes.iter().filter_map(|r| r.route.matcher.model.clone()).collect()
    }

    /// Takes the next step for `request` under the lock and journals the request (as pending).
    fn take(&self, request: &Arc<ChatRequest>, raw: Option<RawRequest>) -> Result<Taken, (u64, CallError)> {
        let journaled = Arc::clone(request);
        let entry_raw_is_wire = raw.is_some();
        let raw = raw.map(Box::new);
        // Declared before the guard, so an entry a bounded journal lets go of is freed after the lock is released.
        let mut _evicted = None;
        let mut guard = self.lock();
        let state = &mut *guard;
        let ticket = state.journal.next_ticket();
        let index = ticket.index;
        let at_ms = state.clock_ms;
        let mut entry = JournalEntry {
            index,
            request: journaled,
            raw,
            route: None,
            step: None,
            outcome: Outcome::Pending,
            at_ms,
            response: None,
            error: None,
            left_mid_stream: false,
            chaos: false,
            delivery_seed: match &state.settings.delivery {
                // Only a streamed wire request is delivered in writes (an in-process stream is events).
                Some(delivery) if request.stream && entry_raw_is_wire => {
                    Some(delivery.request_seed(state.settings.seed, index))
                }
                _ => None,
            },
        };
        let Some(route_index) = find_route(state, request) else {
            entry.outcome = Outcome::Unmatched;
            _evicted = state.journal.push(entry);
            let error = unmatched_error(index, request, &state.routes, state.settings.recording);
            return Err((index, CallError::Cuecard(error)));
        };
        entry.route = u32::try_from(route_index).ok();
        let limits = state.settings.rate_limits;
        let (rate_limit, throttled) =
            match state.rate_buckets.take(&limits, at_ms, rate_limits::reserved_tokens(request)) {
                Ok(reading) => (reading, None),
                Err(throttled) => (throttled.reading, Some(*throttled.error)),
            };
        let rate_limit = limits.headers.then_some(rate_limit);
        if let Some(wait_ms) = throttled.as_ref().and_then(|e| e.retry_after_ms) {
            // The client is taken to wait as told: its retry finds the unit freed. (The clock is virtual; a
            // server's client really sleeps the retry-after.)
            state.clock_ms = state.clock_ms.max(at_ms.saturating_add(wait_ms));
        }
        let chaos =
            || state.settings.chaos.as_ref().and_then(|c| c.failure_for(state.settings.seed, index, route_index));
        if let Some((error, by_chaos)) = throttled.map(|e| (e, false)).or_else(|| chaos().map(|e| (e, true))) {
            // The provider failed before the script was reached (a limit, or chaos): the route's step stays for
            // the next request.
            entry.chaos = by_chaos;
            let number = state.next_response_number;
            state.next_response_number += 1;
            _evicted = state.journal.push(entry);
            return Ok(Taken {
                entry: ticket,
                step: Arc::new(Step::fail(error)),
                number,
                tool_call_ids: Vec::new(),
                at_ms,
                usage: state.settings.usage,
                step_defaults: state.settings.step_defaults,
                latency: None,
                rate_limit,
            });
        }
        let default_exhaustion = state.settings.exhaustion;
        let Some(route) = state.routes.get_mut(route_index) else {
            return Err((index, CallError::Cuecard(Error::new(ErrorKind::Internal, "route index out of range"))));
        };
        let len = route.route.steps.len();
        let policy = route.route.exhaustion.unwrap_or(default_exhaustion);
        let step_index = if route.cursor < len {
            route.cursor += 1;
            Some(route.cursor - 1)
        } else if len == 0 {
            None
        } else {
            match policy {
                Exhaustion::Fail => None,
                Exhaustion::RepeatLast => Some(len - 1),
                Exhaustion::Cycle => {
                    route.cursor += 1;
                    Some((route.cursor - 1) % len)
                }
            }
        };
        let Some(step_index) = step_index else {
            let error = exhausted_error(index, request, route_index, route, policy);
            entry.outcome = Outcome::Exhausted;
            _evicted = state.journal.push(entry);
            return Err((index, CallError::Cuecard(error)));
        };
        let Some(step) = route.route.steps.get(step_index).cloned() else {
            return Err((index, CallError::Cuecard(Error::new(ErrorKind::Internal, "step index out of range"))));
        };
        entry.step = u32::try_from(step_index).ok();
        let number = state.next_response_number;
        state.next_response_number += 1;
        let missing_ids = missing_tool_call_ids(&step);
        let tool_call_ids = (0..missing_ids).map(|k| state.next_tool_call_id + k).collect();
        state.next_tool_call_id += missing_ids;
        _evicted = state.journal.push(entry);
        Ok(Taken {
            entry: ticket,
            step,
            number,
            tool_call_ids,
            at_ms,
            usage: state.settings.usage,
            step_defaults: state.settings.step_defaults,
            latency: state.settings.latency.map(|l| l.for_request(state.settings.seed, index)),
            rate_limit,
        })
    }

    /// Builds the answer of a taken step; runs a computed step's callback. `Err` carries the failure to report
    /// (the journal entry is already settled then).
    fn resolve(
        &self,
        request: &ChatRequest,
        taken: Taken,
        computed: Option<Result<Step, CallError>>,
    ) -> Result<Resolved, Box<Failure>> {
        let Taken { entry, step, number, tool_call_ids, at_ms, usage, step_defaults, latency, rate_limit } = taken;
        // A step's own waits win; then the latency profile's draws; then the step defaults.
        let step_defaults = match latency {
            Some(latency) => StepTiming {
                ttft_ms: latency.ttft_ms.or(step_defaults.ttft_ms),
                token_delay_ms: latency.itl.map(|_| 0).or(step_defaults.token_delay_ms),
                ..step_defaults
            },
            None => step_defaults,
        };
        let with_itl = |own: StepTiming, mut timing: Timing| {
            if own.token_delay_ms.is_none() {
                timing.itl = latency.and_then(|l| l.itl);
            }
            timing
        };
        let (step, timing, ids): (Arc<Step>, Timing, Vec<u64>) = match &step.body {
            StepBody::Compute(responder) => {
                let answer = computed.unwrap_or_else(|| responder.respond(request));
                let computed = match answer {
                    Ok(computed) if computed.is_computed() => Err(CallError::Cuecard(callback_failed(
                        "a computed step returned another computed step; return an answer, a response or a failure",
                    ))),
                    other => other,
                };
                match computed {
                    Ok(computed) => {
                        // A computed answer has its own delays where it sets them, else the computed step's.
                        let own = computed.timing.or(step.timing);
                        let timing = with_itl(own, own.or(step_defaults).resolve());
                        let count = missing_tool_call_ids(&computed);
                        let first = self.allocate_tool_call_ids(count);
                        (Arc::new(computed), timing, (first..first + count).collect())
                    }
                    Err(error) => {
                        let message = error.to_string();
                        self.finish(entry, Outcome::CallbackFailed { message }, None, at_ms, 0);
                        return Err(Box::new(Failure { error, timing: Timing::default(), envelope: None }));
                    }
                }
            }
            StepBody::Generate(spec) => {
                // Drawn from the scenario's seed and the request's index: the same run answers the same.
                let seed = crate::seeded::request_seed(self.seed(), GENERATE_PURPOSE, entry.index);
                match spec.answer(request, seed) {
                    Ok(answer) => {
                        let mut generated = (*step).clone();
                        generated.body = StepBody::Answer(answer);
                        let timing = with_itl(step.timing, step.timing.or(step_defaults).resolve());
                        let count = missing_tool_call_ids(&generated);
                        let first = self.allocate_tool_call_ids(count);
                        (Arc::new(generated), timing, (first..first + count).collect())
                    }
                    Err(message) => {
                        let error = CallError::Cuecard(callback_failed(message));
                        self.finish(entry, Outcome::CallbackFailed { message: error.to_string() }, None, at_ms, 0);
                        return Err(Box::new(Failure { error, timing: Timing::default(), envelope: None }));
                    }
                }
            }
            _ => {
                let timing = with_itl(step.timing, step.timing.or(step_defaults).resolve());
                (step, timing, tool_call_ids)
            }
        };
        let mut ids = ids.into_iter();
        let mut envelope = Envelope {
            number,
            scripted_id: None,
            model: request.model.clone(),
            created: created_seconds(at_ms),
            recorded: step.recorded.clone(),
            headers: step.reply_headers.clone(),
            rate_limit,
            answered_by: stream::AnsweredBy::default(),
        };
        let mut next_call_id = || stream::numbered_id("call_", ids.next().unwrap_or(0));
        let resolved = match &step.body {
            StepBody::Fail(error) => {
                let outcome = Outcome::Failed { kind: error.kind, status: error.status };
                self.finish_with(entry, outcome, None, Some(error.clone()), at_ms, timing.delay_ms);
                return Err(Box::new(Failure {
                    error: CallError::Provider(error.clone()),
                    timing,
                    envelope: Some(envelope),
                }));
            }
            StepBody::Compute(_) | StepBody::Generate(_) => {
                // Resolved above; kept as an error rather than a panic.
                let error = CallError::Cuecard(Error::new(ErrorKind::Internal, "a computed step was left unresolved"));
                self.finish(entry, Outcome::CallbackFailed { message: error.to_string() }, None, at_ms, 0);
                return Err(Box::new(Failure { error, timing: Timing::default(), envelope: None }));
            }
            StepBody::Answer(answer) => {
                let id = envelope.id("chatcmpl-");
                match cut_at_max_tokens(answer, &step, request) {
                    Some(cut) => {
                        let mut response =
                            answer_response(&cut, &step, request, id, envelope.created, usage, &mut next_call_id);
                        // Text or thinking cut to nothing is none (its empty chunk list still overrides the step's).
                        let message = &mut response.message;
                        for part in [&mut message.text, &mut message.thinking] {
                            if part.as_deref() == Some("") {
                                *part = None;
                            }
                        }
                        let (thinking, text) = (cut.thinking, cut.text);
                        Resolved { response, thinking, text, step: step.clone(), timing, envelope }
                    }
                    None => {
                        let response =
                            answer_response(answer, &step, request, id, envelope.created, usage, &mut next_call_id);
                        envelope.answered_by = stream::AnsweredBy(Some(step.clone()));
                        // Planned from the step itself (`plan`).
                        Resolved { response, thinking: None, text: None, step: step.clone(), timing, envelope }
                    }
                }
            }
            StepBody::Response(given) => {
                let mut response = given.clone();
                for call in &mut response.message.tool_calls {
                    if call.id.is_empty() {
                        call.id = next_call_id();
                    }
                }
                if let Some(usage) = step.usage {
                    response.usage = Some(usage);
                }
                envelope.scripted_id.clone_from(&response.id);
                if let Some(model) = &response.model {
                    envelope.model.clone_from(model);
                }
                envelope.created = response.created.unwrap_or(envelope.created);
                let thinking = response.message.thinking.clone().map(Chunks::Words);
                let text = response.message.text.clone().filter(|t| !t.is_empty()).map(Chunks::Words);
                Resolved { response, thinking, text, step: step.clone(), timing, envelope }
            }
        };
        Ok(resolved)
    }

    fn allocate_tool_call_ids(&self, count: u64) -> u64 {
        let mut state = self.lock();
        let first = state.next_tool_call_id;
        state.next_tool_call_id += count;
        first
    }

    /// Settles the journal entry and advances the virtual clock past the answer.
    fn finish(
        &self,
        entry: EntryTicket,
        outcome: Outcome,
        response: Option<Arc<ChatResponse>>,
        at_ms: u64,
        delay_ms: u64,
    ) {
        let error = None;
        self.finish_with(entry, outcome, response, error, at_ms, delay_ms);
    }

    /// Like `finish`, keeping the scripted failure in the journal.
    fn finish_with(
        &self,
        entry: EntryTicket,
        outcome: Outcome,
        response: Option<Arc<ChatResponse>>,
        error: Option<ProviderError>,
        at_ms: u64,
        delay_ms: u64,
    ) {
        let error = error.map(Box::new);
        let mut state = self.lock();
        // A request of an earlier script (a reset or a new script came while it was answered) leaves the new
        // journal and the rewound clock alone.
        if state.journal.settle(entry, outcome, response, error) {
            state.clock_ms = state.clock_ms.max(at_ms.saturating_add(delay_ms));
        }
    }

    // ---- the journal -----------------------------------------------------------------------------------------

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
        self.lock().mcp.journal.clone()
    }

    /// Whether the mock has MCP servers.
    pub fn has_mcp_servers(&self) -> bool {
        !self.lock().mcp.mcp.servers.is_empty()
    }

    /// MCP tool steps no call took.
    pub fn mcp_unused_steps(&self) -> Vec<crate::journal::UnusedMcpStep> {
        self.lock().mcp.unused_steps()
    }

    /// Runs `f` on the MCP state under the lock, with the model journal's length and the clock.
    pub(crate) fn with_mcp<R>(&self, f: impl FnOnce(&mut mcp::McpState, mcp::Now<'_>) -> R) -> R {
        let mut guard = self.lock();
        let state = &mut *guard;
        let requests = state.journal.len();
        f(&mut state.mcp, mcp::Now { requests, clock_ms: &mut state.clock_ms })
    }

    /// Provider-side call records: one per journaled request, as an engine's observer would have recorded them,
    /// so assertions work when no engine reports to an observer (see [`observe::records_from_journal`]).
    pub fn call_records(&self) -> Vec<CallRecord> {
        let state = self.lock();
        observe::records_from_journal(state.journal.entries(), &state.settings.provider_id)
    }
}

/// A failure to report from `resolve`, with the delays it takes and the envelope of a taken step.
struct Failure {
    error: CallError,
    timing: Timing,
    envelope: Option<Envelope>,
}

/// The thinking and text a resolved step streams. A scripted answer's chunks are read from its step, which all
/// its calls share, rather than from copies made per call.
fn streamed_chunks(resolved: &Resolved) -> (Option<&Chunks>, Option<&Chunks>) {
    match &resolved.step.body {
        // An answer cut at `max_tokens` streams its own cut chunks.
        StepBody::Answer(answer) if resolved.thinking.is_none() && resolved.text.is_none() => {
            (answer.thinking.as_ref(), answer.text.as_ref())
        }
        _ => (resolved.thinking.as_ref(), resolved.text.as_ref()),
    }
}

/// A step that finishes with `length` says the model ran out of output tokens: its thinking and then its text are
/// cut at the request's `max_tokens` word-like tokens (as the real APIs count thinking against the limit), and
/// tool calls that come after a cut are dropped. `None` when there is nothing to cut: no `length`, no
/// `max_tokens`, or an answer that fits (it keeps its scripted `length` all the same).
fn cut_at_max_tokens(answer: &Answer, step: &Step, request: &ChatRequest) -> Option<Answer> {
    if step.finish_reason != Some(FinishReason::Length) {
        return None;
    }
    let limit = usize::try_from(request.max_tokens?).unwrap_or(usize::MAX);
    let tokens = |chunks: Option<&Chunks>| -> Vec<String> {
        match chunks {
            Some(Chunks::Words(text)) => crate::tokenize::tokenize(text).map(str::to_string).collect(),
            Some(Chunks::Exact(tokens)) => tokens.clone(),
            None => Vec::new(),
        }
    };
    let (thinking, text) = (tokens(answer.thinking.as_ref()), tokens(answer.text.as_ref()));
    if thinking.len() + text.len() <= limit {
        return None;
    }
    let kept_text = limit.saturating_sub(thinking.len());
    let mut thinking_kept = thinking;
    thinking_kept.truncate(limit);
    Some(Answer {
        thinking: answer.thinking.as_ref().map(|_| Chunks::Exact(thinking_kept)),
        // Present even when cut to nothing (an empty list streams nothing), so the cut overrides the step's text.
        text: Some(Chunks::Exact(text.into_iter().take(kept_text).collect())),
        tool_calls: Vec::new(),
    })
}

fn stream_plan(resolved: &Resolved, at_ms: u64) -> StreamPlan {
    let (thinking, text) = streamed_chunks(resolved);
    let fail_after = resolved.step.fail_after.as_ref();
    StreamPlan::answer(thinking, text, &resolved.response, fail_after, resolved.timing, at_ms)
}

fn missing_tool_call_ids(step: &Step) -> u64 {
    match &step.body {
        StepBody::Answer(a) => a.tool_calls.iter().filter(|c| c.id.is_none()).count() as u64,
        StepBody::Response(r) => r.message.tool_calls.iter().filter(|c| c.id.is_empty()).count() as u64,
        StepBody::Fail(_) | StepBody::Compute(_) | StepBody::Generate(_) => 0,
    }
}

fn answer_response(
    answer: &Answer,
    step: &Step,
    request: &ChatRequest,
    id: String,
    created: u64,
    usage: UsagePolicy,
    next_call_id: &mut dyn FnMut() -> String,
) -> ChatResponse {
    let tool_calls: Vec<ToolCall> = answer
        .tool_calls
        .iter()
        .map(|c| ToolCall {
            id: c.id.clone().unwrap_or_else(&mut *next_call_id),
            name: c.name.clone(),
            arguments: c.arguments.clone(),
        })
        .collect();
    let text = answer.text.as_ref().map(Chunks::text);
    let thinking = answer.thinking.as_ref().map(Chunks::text);
    let finish_reason =
        step.finish_reason.unwrap_or(if tool_calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls });
    let usage = step.usage.or(match usage {
        UsagePolicy::None => None,
        UsagePolicy::Given(u) => Some(u),
        UsagePolicy::Estimate => Some(usage::estimate(request, text.as_deref(), thinking.as_deref(), &tool_calls)),
    });
    ChatResponse {
        id: Some(id),
        model: Some(request.model.clone()),
        created: Some(created),
        message: crate::model::AssistantMessage { text, thinking, tool_calls },
        finish_reason: Some(finish_reason),
        usage,
    }
}

/// `request #3 (operation "classify", model "gpt-4o")`: numbered from 1, as request ids are (`req_3`), for the
/// journal entry at index 2.
fn describe_request(index: u64, request: &ChatRequest) -> String {
    let mut facts = Vec::new();
    if let Some(op) = request.operation() {
        facts.push(format!("operation {op:?}"));
    }
    facts.push(format!("model {:?}", request.model));
    let mut out = format!("request #{} ({})", index + 1, facts.join(", "));
    if let Some(user) = request.last_user_message() {
        out.push_str(&format!("\n  last user message: {}", preview(&user.text())));
    }
    let json = serde_json::to_string(request).unwrap_or_default();
    let json: String = if json.chars().count() > 400 { json.chars().take(399).chain(['…']).collect() } else { json };
    out.push_str(&format!("\n  request: {json}"));
    out
}

fn exhausted_error(
    index: u64,
    request: &ChatRequest,
    route_index: usize,
    route: &RouteState,
    policy: Exhaustion,
) -> Error {
    let steps = route.route.steps.len();
    let position = if steps == 0 {
        "which has no steps".to_string()
    } else {
        format!("which has {steps} step{} and all were used", if steps == 1 { "" } else { "s" })
    };
    let hint = match policy {
        Exhaustion::Fail if steps > 0 => {
            "\n  to answer every further request with the last step, end the script with repeats() \
             (scenario: \"on_exhausted\": \"repeat_last\")"
        }
        _ => "",
    };
    Error::new(
        ErrorKind::ScriptExhausted,
        format!(
            "script exhausted: {} arrived after the last step of route {route_index} ({}), {position}{hint}",
            describe_request(index, request),
            route.route.matcher.describe(),
        ),
    )
}

/// The first route that takes `request`: through the route index when there are many routes, else by a scan in
/// route order (the same answer either way).
fn find_route(state: &mut State, request: &ChatRequest) -> Option<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    if state.routes.len() >= crate::route_index::INDEXED_FROM {
        let State { routes, route_index, .. } = state;
        let index = route_index
            .get_or_insert_with(|| crate::route_index::RouteIndex::build(routes.iter().map(|r| &r.route.matcher)));
        return index.find(request, |i| routes.get(i).map(|r| &r.route.matcher));
    }
    state.routes.iter().position(|r| r.route.matcher.matches(request))
}

fn unmatched_error(index: u64, request: &ChatRequest, routes: &[RouteState], recording: bool) -> Error {
    if recording {
        // A recording's routes are its recorded requests: the nearest one and what differs is what helps.
        return Error::new(
            ErrorKind::NoRecording,
            format!(
                "no recording matches {}\n  recorded requests: {}{}\n  record it again, or edit the recording's request",
                describe_request(index, request),
                routes.len(),
                nearest_request_match(request, routes),
            ),
        );
    }
    let listed: Vec<String> =
        routes.iter().enumerate().map(|(i, r)| format!("{i}: {}", r.route.matcher.describe())).collect();
    Error::new(
        ErrorKind::NoRouteMatched,
        format!(
            "no route matches {}\n  routes: {}{}\n  add a route without a match to answer every other request",
            describe_request(index, request),
            listed.join("; "),
            nearest_request_match(request, routes),
        ),
    )
}

/// The route whose request matcher differs from `request` in the fewest fields, and those fields by path (empty
/// when no route matches by request).
fn nearest_request_match(request: &ChatRequest, routes: &[RouteState]) -> String {
    let nearest = routes
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.route.matcher.request.as_ref().map(|m| (i, m.differences(request))))
        .min_by_key(|(_, differences)| differences.len());
    match nearest {
        Some((i, differences)) if !differences.is_empty() => format!(
            "\n  nearest: route {i}, whose request differs in {} field{}:\n{}",
            differences.len(),
            if differences.len() == 1 { "" } else { "s" },
            crate::request_match::describe_differences(&differences)
        ),
        // Its request is the same: another of its criteria (model, operation, endpoint) is what differs.
        Some((i, _)) => format!("\n  nearest: route {i}, whose request is the same; its other criteria differ"),
        None => String::new(),
    }
}

/// Fluent Rust builder over [`MockModel`]'s scripting calls; the first misuse is reported by [`MockBuilder::build`].
#[must_use]
pub struct MockBuilder {
    mock: MockModel,
    error: Option<Error>,
}

impl MockBuilder {
    fn apply(mut self, f: impl FnOnce(&MockModel) -> Result<()>) -> MockBuilder {
        if self.error.is_none() {
            if let Err(e) = f(&self.mock) {
                self.error = Some(e);
            }
        }
        self
    }

    fn apply_step(self, step: Result<Step>) -> MockBuilder {
        self.apply(|mock| mock.add_step(step?))
    }

    /// Adds a step.
    pub fn step(self, step: Step) -> MockBuilder {
        self.apply_step(Ok(step))
    }

    /// Adds a step that streams `text` in word-like tokens.
    pub fn responds(self, text: impl Into<String>) -> MockBuilder {
        self.apply_step(Step::text(text))
    }

    /// Adds a step that streams exactly these tokens.
    pub fn streams<I, S>(self, tokens: I) -> MockBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.apply_step(Step::tokens(tokens))
    }

    /// Adds a step that calls a tool.
    pub fn calls_tool(self, name: impl Into<String>, arguments: serde_json::Value) -> MockBuilder {
        self.apply_step(Ok(Step::tool_call(name, &arguments)))
    }

    /// Adds a step that fails before streaming.
    pub fn fails(self, error: ProviderError) -> MockBuilder {
        self.apply_step(Ok(Step::fail(error)))
    }

    /// Adds a step computed from the request.
    pub fn computes(self, responder: impl Responder + 'static) -> MockBuilder {
        self.apply_step(Ok(Step::compute(responder)))
    }

    /// Makes the last step fail after its tokens.
    pub fn and_fails(self, error: ProviderError) -> MockBuilder {
        self.apply(|mock| mock.fail_last_step_after(error))
    }

    /// Repeats the last step for every further request.
    pub fn repeats(self) -> MockBuilder {
        self.apply(MockModel::repeat_last_step)
    }

    /// Adds a route; the steps added after it (until the next route) belong to it.
    pub fn route(self, matcher: RouteMatch) -> MockBuilder {
        self.apply(|mock| mock.add_route(Route::new(matcher)).map(|_| ()))
    }

    /// Sets the route-level exhaustion policy of the current route.
    pub fn route_on_exhausted(self, exhaustion: Exhaustion) -> MockBuilder {
        self.apply(|mock| mock.set_route_exhaustion(exhaustion))
    }

    /// Changes the settings that `settings` gives.
    pub fn settings(self, settings: MockSettings) -> MockBuilder {
        self.apply(|mock| mock.configure(&settings))
    }

    /// Sets the default exhaustion policy.
    pub fn on_exhausted(self, exhaustion: Exhaustion) -> MockBuilder {
        self.apply(|mock| mock.set_exhaustion(exhaustion))
    }

    /// Sets the usage policy.
    pub fn usage(self, usage: UsagePolicy) -> MockBuilder {
        self.apply(|mock| {
            mock.set_usage(usage);
            Ok(())
        })
    }

    /// Sets the provider id.
    pub fn provider_id(self, id: impl Into<String>) -> MockBuilder {
        let id = id.into();
        self.apply(|mock| {
            mock.set_provider_id(id);
            Ok(())
        })
    }

    /// The mock, or the first scripting error.
    pub fn build(self) -> Result<MockModel> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.mock),
        }
    }
}

#[allow(dead_code)]
fn assert_send_sync<T: Send + Sync>() {}
const _: fn() = || assert_send_sync::<MockModel>();
