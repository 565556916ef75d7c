//! The observer protocol (Tramai's): an engine reports each provider call it makes, and a
//! [`RecordingObserver`] keeps one [`CallRecord`] per call, in order, for assertions.
//!
//! Callback order for one provider call: `on_call_started(context)` returns an [`Observation`]; then
//! `on_provider_response` or `on_provider_failure`; possibly `on_structured_parse_failure`; engine events at
//! any time; finally `on_call_completed(parse_success)` with `Some(true)`/`Some(false)` for structured output
//! and `None` for raw text or a failed call.

use crate::journal::Outcome;
use crate::model::ChatResponse;
use crate::ProviderError;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// What an engine knows when it starts one provider call.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CallContext {
    /// The operation (method) being called.
    pub operation: Option<String>,
    /// The service (interface) it belongs to, if the engine has one.
    pub service: Option<String>,
    /// The provider the call went to.
    pub provider_id: String,
    /// The requested model.
    pub model: String,
    /// Zero-based attempt number within the engine's loop.
    pub attempt: u32,
}

/// A provider failure as observed: the kind is a provider error kind code (`rate_limited`) or, for host
/// exceptions, the host's class name, so assertions can name either.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FailureInfo {
    /// `rate_limited`, ..., or a host class name.
    pub kind: String,
    /// HTTP status, if any.
    pub status: Option<u16>,
    /// Whether it was retryable.
    pub retryable: bool,
    /// The message.
    pub message: String,
}

impl FailureInfo {
    /// From a scripted provider failure.
    pub fn from_provider_error(error: &ProviderError) -> FailureInfo {
        FailureInfo {
            kind: error.kind.code().to_string(),
            status: error.status,
            retryable: error.retryable,
            message: error.message.clone(),
        }
    }

    /// From the outcome of a journaled request, when it failed.
    pub(crate) fn from_outcome(outcome: &Outcome) -> Option<FailureInfo> {
        match outcome {
            Outcome::Failed { kind, status } | Outcome::FailedAfterTokens { kind, status } => Some(FailureInfo {
                kind: kind.code().to_string(),
                status: *status,
                retryable: kind.default_retryable(),
                message: kind.default_message().to_string(),
            }),
            Outcome::Exhausted => Some(FailureInfo::cuecard("script_exhausted")),
            Outcome::Unmatched => Some(FailureInfo::cuecard("no_route_matched")),
            Outcome::CallbackFailed { message } => Some(FailureInfo {
                kind: "callback_failed".into(),
                status: None,
                retryable: false,
                message: message.clone(),
            }),
            Outcome::Rejected { reason } => Some(FailureInfo {
                kind: "rejected".into(),
                status: Some(400),
                retryable: false,
                message: reason.clone(),
            }),
            Outcome::Pending | Outcome::Answered => None,
        }
    }

    fn cuecard(code: &str) -> FailureInfo {
        FailureInfo { kind: code.to_string(), status: None, retryable: false, message: code.replace('_', " ") }
    }
}

/// A named event an engine reports (`tramai.retry.scheduled`, ...), with attributes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EngineEvent {
    /// The event's name.
    pub name: String,
    /// Its attributes.
    pub attributes: BTreeMap<String, Value>,
}

/// Everything observed about one provider call. Fields are overwritten by later callbacks (last write wins).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallRecord {
    /// The call's context.
    pub context: CallContext,
    /// The response, if the provider answered.
    pub response: Option<ChatResponse>,
    /// The failure, if the provider failed.
    pub failure: Option<FailureInfo>,
    /// The structured-output parse failure summary, if parsing failed.
    pub parse_failure_summary: Option<String>,
    /// Whether structured parsing succeeded (`None` for raw text or unknown).
    pub parse_success: Option<bool>,
    /// Whether `on_call_completed` was called.
    pub completed: bool,
    /// Whether the call was cancelled.
    pub cancelled: bool,
    /// Engine events, in order.
    pub engine_events: Vec<EngineEvent>,
}

impl CallRecord {
    /// An empty record for a call that just started.
    pub fn new(context: CallContext) -> CallRecord {
        CallRecord {
            context,
            response: None,
            failure: None,
            parse_failure_summary: None,
            parse_success: None,
            completed: false,
            cancelled: false,
            engine_events: Vec::new(),
        }
    }
}

/// What an engine reports to for one call.
pub trait Observation: Send {
    /// The provider answered.
    fn on_provider_response(&mut self, response: &ChatResponse);
    /// The provider failed.
    fn on_provider_failure(&mut self, failure: &FailureInfo);
    /// The answer did not parse as the structured output.
    fn on_structured_parse_failure(&mut self, raw_response: &str, error_summary: &str);
    /// A named engine event.
    fn on_engine_event(&mut self, name: &str, attributes: &BTreeMap<String, Value>);
    /// The call is over; `parse_success` is `None` for raw operations.
    fn on_call_completed(&mut self, parse_success: Option<bool>);
    /// The call was cancelled.
    fn on_call_cancelled(&mut self);
}

/// What an engine reports to when it starts a call.
pub trait Observer: Send + Sync {
    /// A provider call starts; the returned observation receives the rest.
    fn on_call_started(&self, context: CallContext) -> Box<dyn Observation>;
}

/// An observer that keeps every call record, in order. Cloning shares the records.
#[derive(Clone, Debug, Default)]
pub struct RecordingObserver {
    records: Arc<Mutex<Vec<CallRecord>>>,
}

impl RecordingObserver {
    /// An empty recorder.
    pub fn new() -> RecordingObserver {
        RecordingObserver::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<CallRecord>> {
        self.records.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts a record and returns its index (for bindings that report by index rather than by object).
    pub fn start_call(&self, context: CallContext) -> usize {
        let mut records = self.lock();
        records.push(CallRecord::new(context));
        records.len() - 1
    }

    /// Updates record `index`; does nothing for an unknown index.
    pub fn update(&self, index: usize, f: impl FnOnce(&mut CallRecord)) {
        if let Some(record) = self.lock().get_mut(index) {
            f(record);
        }
    }

    /// Copies of the records, in order.
    pub fn call_records(&self) -> Vec<CallRecord> {
        self.lock().clone()
    }

    /// Forgets every record.
    pub fn clear(&self) {
        self.lock().clear();
    }
}

/// The observation a [`RecordingObserver`] hands out: writes into its record.
struct RecordingObservation {
    observer: RecordingObserver,
    index: usize,
}

impl Observation for RecordingObservation {
    fn on_provider_response(&mut self, response: &ChatResponse) {
        let response = response.clone();
        self.observer.update(self.index, |r| r.response = Some(response));
    }

    fn on_provider_failure(&mut self, failure: &FailureInfo) {
        let failure = failure.clone();
        self.observer.update(self.index, |r| r.failure = Some(failure));
    }

    fn on_structured_parse_failure(&mut self, _raw_response: &str, error_summary: &str) {
        // Like Tramai, the raw response is not stored: it may hold data the test should not keep.
        let summary = error_summary.to_string();
        self.observer.update(self.index, |r| r.parse_failure_summary = Some(summary));
    }

    fn on_engine_event(&mut self, name: &str, attributes: &BTreeMap<String, Value>) {
        let event = EngineEvent { name: name.to_string(), attributes: attributes.clone() };
        self.observer.update(self.index, |r| r.engine_events.push(event));
    }

    fn on_call_completed(&mut self, parse_success: Option<bool>) {
        self.observer.update(self.index, |r| {
            r.parse_success = parse_success;
            r.completed = true;
        });
    }

    fn on_call_cancelled(&mut self) {
        self.observer.update(self.index, |r| r.cancelled = true);
    }
}

impl Observer for RecordingObserver {
    fn on_call_started(&self, context: CallContext) -> Box<dyn Observation> {
        let index = self.start_call(context);
        Box::new(RecordingObservation { observer: self.clone(), index })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_follow_the_callbacks_of_each_call() {
        let observer = RecordingObserver::new();
        let context =
            CallContext { operation: Some("classify".into()), provider_id: "mock".into(), ..CallContext::default() };
        let mut first = observer.on_call_started(context.clone());
        first.on_provider_failure(&FailureInfo::from_provider_error(&ProviderError::rate_limited()));
        first.on_engine_event("tramai.retry.scheduled", &BTreeMap::from([("delay_millis".into(), Value::from(50))]));
        first.on_call_completed(None);
        let mut second = observer.on_call_started(CallContext { attempt: 1, ..context });
        second.on_structured_parse_failure("not json", "Structured output failed validation");
        second.on_call_completed(Some(false));
        let records = observer.call_records();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].failure.as_ref().map(|f| f.kind.as_str()), Some("rate_limited"));
        assert_eq!(records[0].engine_events[0].name, "tramai.retry.scheduled");
        assert_eq!(records[1].context.attempt, 1);
        assert_eq!(records[1].parse_success, Some(false));
        assert_eq!(records[1].parse_failure_summary.as_deref(), Some("Structured output failed validation"));
    }
}
