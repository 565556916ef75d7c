//! Answering a request: the route it matches, the step it takes, and the response, stream or failure that
//! step makes, journaled exactly once.

use super::*;
use crate::answer::{Answer, Chunks};
use crate::clock::created_seconds;
use crate::error::{Error, ErrorKind, Result};
use crate::journal::{EntryTicket, IntoJournaled, JournalEntry, Outcome, RawRequest};
use crate::model::{ChatRequest, ChatResponse, FinishReason, ToolCall};
use crate::provider_error::ProviderError;
use crate::rate_limits;
use crate::script::{callback_failed, preview, CallError, Exhaustion, Step, StepBody, StepTiming, StreamBreak, Timing};
use crate::stream::{self, Envelope, EventStream, StreamPlan};
use crate::usage::{self, UsagePolicy};
use pending::{Pending, Turn};
use std::sync::Arc;

impl MockModel {
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
    pub(super) fn journal_outside_script(
        &self,
        request: ChatRequest,
        raw: Option<RawRequest>,
        outcome: Outcome,
    ) -> u64 {
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
            answer_fault: None,
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

    /// Whether a route's match names `endpoint`: the endpoints beside chat (moderations, images, audio) take steps
    /// only then, so a script of chat steps is not consumed by them.
    pub fn routes_name_endpoint(&self, endpoint: &str) -> bool {
        self.lock().routes.iter().any(|r| r.route.matcher.endpoint.as_deref() == Some(endpoint))
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
            answer_fault: None,
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
        // A fault inside the answer (the step's `fault`, or one `answer_faults` draws like chaos): the step is
        // rewritten, the entry says so.
        let faults = state.settings.answer_faults.as_ref();
        let at = (index, route_index, state.answer_faults_drawn);
        let faulted = super::faulted::fault(faults, state.settings.seed, at, &step, request);
        let step = match faulted {
            Some((kind, faulted, drawn)) => {
                entry.answer_fault = Some(kind);
                state.answer_faults_drawn += u64::from(drawn);
                Arc::new(faulted)
            }
            None => step,
        };
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
            go_away_ms: step.go_away_ms,
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
}

/// A failure to report from `resolve`, with the delays it takes and the envelope of a taken step.
pub(super) struct Failure {
    error: CallError,
    timing: Timing,
    envelope: Option<Envelope>,
}

/// The thinking and text a resolved step streams. A scripted answer's chunks are read from its step, which all
/// its calls share, rather than from copies made per call.
pub(super) fn streamed_chunks(resolved: &Resolved) -> (Option<&Chunks>, Option<&Chunks>) {
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
pub(super) fn cut_at_max_tokens(answer: &Answer, step: &Step, request: &ChatRequest) -> Option<Answer> {
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

pub(super) fn stream_plan(resolved: &Resolved, at_ms: u64) -> StreamPlan {
    let (thinking, text) = streamed_chunks(resolved);
    let fail_after = resolved.step.fail_after.as_ref();
    StreamPlan::answer(thinking, text, &resolved.response, fail_after, resolved.timing, at_ms)
}

pub(super) fn missing_tool_call_ids(step: &Step) -> u64 {
    match &step.body {
        StepBody::Answer(a) => a.tool_calls.iter().filter(|c| c.id.is_none()).count() as u64,
        StepBody::Response(r) => r.message.tool_calls.iter().filter(|c| c.id.is_empty()).count() as u64,
        StepBody::Fail(_) | StepBody::Compute(_) | StepBody::Generate(_) => 0,
    }
}

pub(super) fn answer_response(
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
pub(super) fn describe_request(index: u64, request: &ChatRequest) -> String {
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

pub(super) fn exhausted_error(
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
pub(super) fn find_route(state: &mut State, request: &ChatRequest) -> Option<usize> {
    #[cfg(not(target_arch = "wasm32"))]
    if state.routes.len() >= crate::route_index::INDEXED_FROM {
        let State { routes, route_index, .. } = state;
        let index = route_index
            .get_or_insert_with(|| crate::route_index::RouteIndex::build(routes.iter().map(|r| &r.route.matcher)));
        return index.find(request, |i| routes.get(i).map(|r| &r.route.matcher));
    }
    state.routes.iter().position(|r| r.route.matcher.matches(request))
}

pub(super) fn unmatched_error(index: u64, request: &ChatRequest, routes: &[RouteState], recording: bool) -> Error {
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
pub(super) fn nearest_request_match(request: &ChatRequest, routes: &[RouteState]) -> String {
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
