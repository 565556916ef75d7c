//! The observer protocol (Tramai's): an engine reports each provider call it makes, and a
//! [`RecordingObserver`] keeps one [`CallRecord`] per call, in order, for assertions.
//!
//! Callback order for one provider call: `on_call_started(context)` returns an [`Observation`]; then
//! `on_provider_response` or `on_provider_failure`; possibly `on_structured_parse_failure`; engine events at
//! any time; finally `on_call_completed(parse_success)` with `Some(true)`/`Some(false)` for structured output
//! and `None` for raw text or a failed call.

use crate::journal::{JournalEntry, Outcome};
use crate::model::ChatResponse;
use crate::provider_error::ProviderError;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// What an engine knows when it starts one provider call. As data every field may be left out (the provider id
/// is then `"mock"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
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

impl Default for CallContext {
    fn default() -> CallContext {
        CallContext {
            operation: None,
            service: None,
            provider_id: crate::clock::DEFAULT_PROVIDER_ID.to_string(),
            model: String::new(),
            attempt: 0,
        }
    }
}

/// A provider failure as observed: the kind is a provider error kind code (`rate_limited`) or, for host
/// exceptions, the host's class name; `type_names` lists the exception's classes (its own and its bases), so an
/// assertion may name the kind or any class the failure is an instance of (Tramai's `andObservedFailure(KClass)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FailureInfo {
    /// `rate_limited`, ..., or a host class name.
    pub kind: String,
    /// HTTP status, if any.
    #[serde(default)]
    pub status: Option<u16>,
    /// Whether it was retryable.
    #[serde(default)]
    pub retryable: bool,
    /// The message.
    #[serde(default)]
    pub message: String,
    /// The host classes of the failure, most derived first (`["RateLimitError", "APIStatusError", ...]`);
    /// `["ProviderError"]` for a scripted failure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub type_names: Vec<String>,
}

/// The class name every language gives a scripted provider failure.
pub const PROVIDER_ERROR_TYPE: &str = "ProviderError";

impl FailureInfo {
    /// From a scripted provider failure.
    pub fn from_provider_error(error: &ProviderError) -> FailureInfo {
        FailureInfo {
            kind: error.kind.code().to_string(),
            status: error.status,
            retryable: error.retryable,
            message: error.message.clone(),
            type_names: vec![PROVIDER_ERROR_TYPE.to_string()],
        }
    }

    /// Whether an assertion naming `kind_or_type` matches: the kind, or one of the failure's classes.
    pub fn is(&self, kind_or_type: &str) -> bool {
        self.kind == kind_or_type || self.type_names.iter().any(|t| t == kind_or_type)
    }

    /// From the outcome of a journaled request, when it failed.
    pub(crate) fn from_outcome(outcome: &Outcome) -> Option<FailureInfo> {
        match outcome {
            Outcome::Failed { kind, status } | Outcome::FailedAfterTokens { kind, status } => Some(FailureInfo {
                kind: kind.code().to_string(),
                status: *status,
                retryable: kind.default_retryable(),
                message: kind.default_message().to_string(),
                type_names: vec![PROVIDER_ERROR_TYPE.to_string()],
            }),
            Outcome::Exhausted => Some(FailureInfo::cuecard("script_exhausted")),
            Outcome::Unmatched => Some(FailureInfo::cuecard("no_route_matched")),
            Outcome::CallbackFailed { message } => Some(FailureInfo {
                kind: "callback_failed".into(),
                status: None,
                retryable: false,
                message: message.clone(),
                type_names: Vec::new(),
            }),
            Outcome::Rejected { reason } => Some(FailureInfo {
                kind: "rejected".into(),
                status: Some(400),
                retryable: false,
                message: reason.clone(),
                type_names: Vec::new(),
            }),
            Outcome::ContractViolation { rule, message } => Some(FailureInfo {
                kind: "contract_violation".into(),
                status: Some(400),
                retryable: false,
                message: format!("{rule}: {message}"),
                type_names: Vec::new(),
            }),
            Outcome::Pending | Outcome::Answered => None,
        }
    }

    fn cuecard(code: &str) -> FailureInfo {
        FailureInfo {
            kind: code.to_string(),
            status: None,
            retryable: false,
            message: code.replace('_', " "),
            type_names: Vec::new(),
        }
    }
}

/// Provider-side call records made from a journal, one per request, as an engine's observer would have recorded
/// them: `attempt` counts earlier requests of the same operation; a scripted failure (kept in the entry) is the
/// record's failure; `parse_success` is unknown (`None`).
pub fn records_from_journal<'a>(entries: impl Iterator<Item = &'a JournalEntry>, provider_id: &str) -> Vec<CallRecord> {
    let mut attempts: std::collections::HashMap<Option<String>, u32> = std::collections::HashMap::new();
    entries
        .map(|entry| {
            let operation = entry.request.metadata.operation.clone();
            let attempt = attempts.entry(operation.clone()).or_insert(0);
            let context = CallContext {
                operation,
                service: None,
                provider_id: provider_id.to_string(),
                model: entry.request.model.clone(),
                attempt: *attempt,
            };
            *attempt += 1;
            let mut record = CallRecord::new(context);
            record.response = entry.response.as_deref().cloned();
            record.failure = match &entry.error {
                Some(error) => Some(FailureInfo::from_provider_error(error)),
                None => FailureInfo::from_outcome(&entry.outcome),
            };
            record.completed = !matches!(entry.outcome, Outcome::Pending);
            record
        })
        .collect()
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

impl RecordingObservation {
    fn report(&self, event: ObservationEvent) {
        // The index came from this observer, and records are never removed while an observation is live
        // (`clear` forgets them; a late callback to a cleared record is dropped).
        let _ = self.observer.report(self.index, event);
    }
}

impl Observation for RecordingObservation {
    fn on_provider_response(&mut self, response: &ChatResponse) {
        self.report(ObservationEvent::ProviderResponse { response: response.clone() });
    }

    fn on_provider_failure(&mut self, failure: &FailureInfo) {
        self.report(ObservationEvent::ProviderFailure { failure: failure.clone() });
    }

    fn on_structured_parse_failure(&mut self, _raw_response: &str, error_summary: &str) {
        // Like Tramai, the raw response is not stored: it may hold data the test should not keep.
        self.report(ObservationEvent::StructuredParseFailure { summary: error_summary.to_string() });
    }

    fn on_engine_event(&mut self, name: &str, attributes: &BTreeMap<String, Value>) {
        self.report(ObservationEvent::EngineEvent { name: name.to_string(), attributes: attributes.clone() });
    }

    fn on_call_completed(&mut self, parse_success: Option<bool>) {
        self.report(ObservationEvent::CallCompleted { parse_success });
    }

    fn on_call_cancelled(&mut self) {
        self.report(ObservationEvent::CallCancelled);
    }
}

/// One callback of an observation as data, for bindings that report by record index
/// (`{"event": "provider_failure", "failure": {"kind": "rate_limited", "status": 429}}`).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum ObservationEvent {
    /// The provider answered.
    ProviderResponse {
        /// The response.
        response: ChatResponse,
    },
    /// The provider failed.
    ProviderFailure {
        /// The failure.
        failure: FailureInfo,
    },
    /// Structured parsing failed (the raw response is not kept, as in Tramai).
    StructuredParseFailure {
        /// The summary.
        summary: String,
    },
    /// A named engine event.
    EngineEvent {
        /// The name.
        name: String,
        /// The attributes.
        #[serde(default)]
        attributes: BTreeMap<String, Value>,
    },
    /// The call is over.
    CallCompleted {
        /// `None` for raw operations.
        #[serde(default)]
        parse_success: Option<bool>,
    },
    /// The call was cancelled.
    CallCancelled,
}

impl RecordingObserver {
    /// Applies one callback to record `index`; an unknown index is `invalid_argument`.
    pub fn report(&self, index: usize, event: ObservationEvent) -> crate::error::Result<()> {
        let mut records = self.lock();
        let count = records.len();
        let record = records.get_mut(index).ok_or_else(|| {
            crate::error::invalid_argument(format!("no call record {index}: the observer has {count}"))
        })?;
        match event {
            ObservationEvent::ProviderResponse { response } => record.response = Some(response),
            ObservationEvent::ProviderFailure { failure } => record.failure = Some(failure),
            ObservationEvent::StructuredParseFailure { summary } => record.parse_failure_summary = Some(summary),
            ObservationEvent::EngineEvent { name, attributes } => {
                record.engine_events.push(EngineEvent { name, attributes })
            }
            ObservationEvent::CallCompleted { parse_success } => {
                record.parse_success = parse_success;
                record.completed = true;
            }
            ObservationEvent::CallCancelled => record.cancelled = true,
        }
        Ok(())
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
