//! `cuecard.RecordingObserver`: Tramai's observer protocol. An engine under test reports each provider call; the
//! records feed `assert_that(mock).with_observer(observer)`. Reading a Python exception (its kind, status and
//! class names) is this file's job; recording is the core's.

use crate::errors::OrRaise;
use crate::from_python::{data_of, to_py};
use cuecard::{CallContext, FailureInfo, ObservationEvent};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

/// Records every provider call an engine reports, in order.
#[pyclass(frozen, module = "cuecard._cuecard", name = "RecordingObserver")]
pub struct PyRecordingObserver {
    pub inner: cuecard::RecordingObserver,
}

#[pymethods]
impl PyRecordingObserver {
    #[new]
    fn new() -> PyRecordingObserver {
        PyRecordingObserver { inner: cuecard::RecordingObserver::new() }
    }

    /// A provider call starts; report the rest of it to the returned observation.
    #[pyo3(signature = (operation = None, *, provider_id = None, model = None, attempt = 0, service = None))]
    fn on_call_started(
        slf: Bound<'_, Self>,
        operation: Option<String>,
        provider_id: Option<String>,
        model: Option<String>,
        attempt: u32,
        service: Option<String>,
    ) -> CallObservation {
        let defaults = CallContext::default();
        let context = CallContext {
            operation,
            service,
            provider_id: provider_id.unwrap_or(defaults.provider_id),
            model: model.unwrap_or_default(),
            attempt,
        };
        let index = slf.get().inner.start_call(context);
        CallObservation { observer: slf.unbind(), index }
    }

    /// Every call record, as dicts.
    fn call_records(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.call_records())
    }

    /// Forgets every record.
    fn clear(&self) {
        self.inner.clear();
    }
}

/// What an engine reports to for one provider call.
#[pyclass(frozen, module = "cuecard._cuecard", name = "CallObservation")]
pub struct CallObservation {
    observer: Py<PyRecordingObserver>,
    #[pyo3(get)]
    index: usize,
}

impl CallObservation {
    fn report(&self, py: Python<'_>, event: ObservationEvent) -> PyResult<()> {
        self.observer.get().inner.report(self.index, event).or_raise(py)
    }
}

/// The class names of an exception, most derived first, without `object`, `BaseException` and `Exception`.
fn class_names(failure: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let mut names = Vec::new();
    for class in failure.get_type().mro().iter() {
        let name = class.cast::<PyType>()?.name()?.to_string();
        if !matches!(name.as_str(), "object" | "BaseException" | "Exception") {
            names.push(name);
        }
    }
    Ok(names)
}

#[pymethods]
impl CallObservation {
    /// The provider answered (a response dict in cuecard's neutral format).
    fn on_provider_response(&self, response: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = response.py();
        let response: cuecard::ChatResponse = data_of(response, "response")?;
        self.report(py, ObservationEvent::ProviderResponse { response })
    }

    /// The provider failed: an exception (a `cuecard.ProviderError` records its kind; another exception its class
    /// name, and every class it is an instance of), or a kind given as text.
    #[pyo3(signature = (failure, *, status = None, retryable = None))]
    fn on_provider_failure(
        &self,
        failure: &Bound<'_, PyAny>,
        status: Option<u16>,
        retryable: Option<bool>,
    ) -> PyResult<()> {
        let py = failure.py();
        let info = if let Ok(kind) = failure.cast::<PyString>() {
            FailureInfo {
                kind: kind.to_cow()?.into_owned(),
                status,
                retryable: retryable.unwrap_or(false),
                message: String::new(),
                type_names: Vec::new(),
            }
        } else {
            let attribute = |name: &str| failure.getattr(name).ok().filter(|v| !v.is_none());
            let type_names = class_names(failure)?;
            let kind = match attribute("kind").and_then(|k| k.extract::<String>().ok()) {
                Some(kind) => kind,
                None => type_names.first().cloned().unwrap_or_default(),
            };
            // The SDKs' exceptions say `status_code`; cuecard's `status`.
            let found_status =
                attribute("status").or_else(|| attribute("status_code")).and_then(|s| s.extract::<u16>().ok());
            FailureInfo {
                kind,
                status: status.or(found_status),
                retryable: retryable.or_else(|| attribute("retryable").and_then(|r| r.extract().ok())).unwrap_or(false),
                message: failure.str()?.to_string(),
                type_names,
            }
        };
        self.report(py, ObservationEvent::ProviderFailure { failure: info })
    }

    /// Structured parsing failed; like Tramai, the raw response is not kept.
    fn on_structured_parse_failure(&self, py: Python<'_>, raw_response: &str, error_summary: String) -> PyResult<()> {
        let _ = raw_response;
        self.report(py, ObservationEvent::StructuredParseFailure { summary: error_summary })
    }

    /// A named engine event with attributes.
    #[pyo3(signature = (name, attributes = None))]
    fn on_engine_event(&self, py: Python<'_>, name: String, attributes: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let attributes = match attributes {
            Some(a) => data_of(a, "attributes")?,
            None => Default::default(),
        };
        self.report(py, ObservationEvent::EngineEvent { name, attributes })
    }

    /// The call is over; `parse_success` is None for raw operations.
    #[pyo3(signature = (parse_success = None))]
    fn on_call_completed(&self, py: Python<'_>, parse_success: Option<bool>) -> PyResult<()> {
        self.report(py, ObservationEvent::CallCompleted { parse_success })
    }

    /// The call was cancelled.
    fn on_call_cancelled(&self, py: Python<'_>) -> PyResult<()> {
        self.report(py, ObservationEvent::CallCancelled)
    }
}
