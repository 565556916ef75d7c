//! Scripting a mock: routes and steps added from code, the seed verbs' building blocks, settings, and a whole
//! script or scenario put in place.

use super::answering::find_route;
use super::*;
use crate::error::{invalid_state, ErrorKind, Result};
use crate::journal::{Journal, JournalEntry, Outcome, RawRequest};
use crate::model::ChatRequest;
use crate::provider_error::ProviderError;
use crate::scenario::Scenario;
use crate::script::{Exhaustion, MockSettings, ReasoningField, Route, Script, Step};
use crate::usage::UsagePolicy;
use std::sync::Arc;

impl MockModel {
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
        if let Some((field, problem)) = settings.answer_faults.as_ref().and_then(|f| f.problem(None)) {
            return Err(crate::error::invalid_argument(format!("invalid answer_faults.{field}: {problem}")));
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
        if let Some((field, problem)) = settings.a2a.as_ref().and_then(crate::script::a2a_problem) {
            return Err(crate::error::invalid_argument(format!("invalid a2a.{field}: {problem}")));
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
        if let Some(faults) = &settings.answer_faults {
            // No rates turns the faults off.
            current.answer_faults = Some(faults.clone()).filter(|f| !f.rates.is_empty());
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
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(a2a) = &settings.a2a {
            state.a2a = super::a2a::AgentsState::new(std::sync::Arc::new(a2a.clone()));
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
            answer_faults: settings.answer_faults,
            latency: settings.latency,
            contracts: Some(settings.contracts),
            rate_limits: Some(settings.rate_limits),
            mcp: Some((*state.mcp.mcp).clone()).filter(|m| !m.servers.is_empty()),
            #[cfg(not(target_arch = "wasm32"))]
            a2a: Some((*state.a2a.a2a).clone()).filter(|a| !a.agents.is_empty()),
            #[cfg(target_arch = "wasm32")]
            a2a: None,
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

    /// How many journal entries it keeps (`None`: all).
    pub fn journal_limit(&self) -> Option<usize> {
        self.lock().settings.journal_limit
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
        state.answer_faults_drawn = 0;
        state.clock_ms = 0;
        state.rate_buckets = crate::rate_limits::Buckets::default();
        state.mcp.reset();
        state.a2a.reset();
        state.files = super::files::Store::default();
        state.sockets = super::sockets::Store::default();
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
}
