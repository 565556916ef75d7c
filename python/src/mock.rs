//! `cuecard.MockModel`: the scripted provider with the seed systems' verbs (LangChain4j's `that_responds` /
//! `then_...` / `and_fails` / `then_repeats`), answering, and the journal. Each method converts its arguments and
//! calls one core method; the rules are the core's. The Python subclass in `cuecard/mock.py` adds the asyncio
//! forms (`achat`, `astream`) and the waiting iterator.

use crate::errors::{call_error, cuecard_error, host, provider_error, OrRaise};
use crate::from_python::{data_of, json_of, to_py, PyData};
use cuecard::api::outcome::{paced, Collapse};
use cuecard::api::{FailSpec, JsonResponder, MatchSpec, RequestInput, StepInput, ToolCallSpec};
use cuecard::{ChatRequest, Exhaustion, MockModel, MockSettings};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use std::sync::Arc;

/// The scripted provider. Thread-safe; answering releases the GIL.
#[pyclass(frozen, subclass, module = "cuecard._cuecard", name = "MockModel")]
pub struct PyMockModel {
    pub inner: Arc<MockModel>,
}

/// A Python argument that is not of an accepted type: `invalid_argument` naming it and what was expected.
pub fn wrong_type(value: &Bound<'_, PyAny>, argument: &str, expected: &str) -> PyErr {
    let found = value.get_type().name().map_or_else(|_| "object".into(), |n| n.to_string());
    let error = cuecard::Error::new(
        cuecard::ErrorKind::InvalidArgument,
        format!("invalid {argument}: expected {expected}, found {found}"),
    )
    .with_context("argument", argument)
    .with_context("expected", expected)
    .with_context("found", found);
    cuecard_error(value.py(), &error)
}

/// A request as Python gives it: a user text, or a dict in cuecard's neutral format.
pub fn request_of(value: &Bound<'_, PyAny>) -> PyResult<ChatRequest> {
    RequestInput::from_host(&PyData(value.clone()), "request").or_raise(value.py())
}

/// The failure of `then_fails(kind, **options)`: the options are `FailSpec`'s fields (`status`, `message`,
/// `retryable`, `error_type`, `error_code`), except that Python gives the delay as `retry_after` in seconds (as
/// `time.sleep` takes it) rather than `retry_after_ms`.
fn failure(py: Python<'_>, kind: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<FailSpec> {
    let spec = PyDict::new(py);
    for (key, value) in options.into_iter().flat_map(|o| o.iter()) {
        if key.eq("retry_after")? {
            let seconds = match value.extract::<f64>() {
                Ok(s) if !value.is_instance_of::<pyo3::types::PyBool>() && s.is_finite() && s >= 0.0 => s,
                _ => return Err(wrong_type(&value, "retry_after", "a number of seconds >= 0")),
            };
            spec.set_item("retry_after_ms", (seconds * 1000.0).round() as u64)?;
        } else {
            spec.set_item(key, value)?;
        }
    }
    spec.set_item("kind", kind)?;
    data_of(spec.as_any(), "failure")
}

/// The bound object as this class (a Python subclass of it included).
fn this<'py>(value: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyMockModel>> {
    Ok(value.cast_into::<PyMockModel>()?)
}

#[pymethods]
impl PyMockModel {
    /// A mock with no steps; keyword arguments are settings (`instant`, `usage`, `seed`, `provider_id`,
    /// `capabilities`, `on_exhausted`, `step_defaults`, `journal_limit`).
    #[new]
    #[pyo3(signature = (**settings))]
    fn new(py: Python<'_>, settings: Option<&Bound<'_, PyDict>>) -> PyResult<PyMockModel> {
        let mock = MockModel::new();
        if let Some(settings) = settings {
            mock.configure(&data_of::<MockSettings>(settings.as_any(), "settings")?).or_raise(py)?;
        }
        Ok(PyMockModel { inner: Arc::new(mock) })
    }

    /// A mock scripted by a scenario: a dict, a JSON or YAML text, or the path of a JSON/YAML file; keyword
    /// arguments are settings that override the scenario's.
    #[classmethod]
    #[pyo3(signature = (scenario, **settings))]
    fn from_scenario<'py>(
        cls: &Bound<'py, PyType>,
        scenario: &Bound<'py, PyAny>,
        settings: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = cls.py();
        let parsed = if let Ok(text) = scenario.cast::<PyString>() {
            cuecard::Scenario::from_text_or_path(&text.to_cow()?)
        } else if let Ok(path) = scenario.extract::<std::path::PathBuf>() {
            cuecard::Scenario::from_path(path)
        } else {
            cuecard::Scenario::from_value(json_of(scenario, "scenario")?)
        };
        let scenario = parsed.or_raise(py)?;
        let mock = cls.call0()?;
        let model = this(mock.clone())?;
        model.get().inner.load_scenario(&scenario).or_raise(py)?;
        if let Some(settings) = settings {
            model.get().inner.configure(&data_of::<MockSettings>(settings.as_any(), "settings")?).or_raise(py)?;
        }
        Ok(mock)
    }

    /// A mock whose first step is `answer` (a text, a step dict, or a callable computing either from the request).
    #[classmethod]
    fn that_responds<'py>(cls: &Bound<'py, PyType>, answer: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        PyMockModel::then_responds(this(cls.call0()?)?, answer).map(Bound::into_any)
    }

    /// A mock whose first step streams exactly these tokens.
    #[classmethod]
    #[pyo3(signature = (*tokens))]
    fn that_streams<'py>(cls: &Bound<'py, PyType>, tokens: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, PyAny>> {
        PyMockModel::then_streams(this(cls.call0()?)?, tokens).map(Bound::into_any)
    }

    /// A mock whose first step calls one tool.
    #[classmethod]
    #[pyo3(signature = (name, arguments = None))]
    fn that_calls_tool<'py>(
        cls: &Bound<'py, PyType>,
        name: &Bound<'py, PyAny>,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        PyMockModel::then_calls_tool(this(cls.call0()?)?, name, arguments).map(Bound::into_any)
    }

    /// A mock whose first step fails before anything is streamed (see `then_fails`).
    #[classmethod]
    #[pyo3(signature = (kind = "server_error", **options))]
    fn that_fails<'py>(
        cls: &Bound<'py, PyType>,
        kind: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        PyMockModel::then_fails(this(cls.call0()?)?, kind, options).map(Bound::into_any)
    }

    // ---- scripting: each verb returns the mock, to chain -----------------------------------------------------

    /// Adds a step: a text (streamed in word-like tokens), a step dict, or a callable of the request returning
    /// either (its exceptions reach the caller unchanged).
    fn then_responds<'py>(slf: Bound<'py, Self>, answer: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let mock = &slf.get().inner;
        if answer.is_callable() {
            let callable = answer.clone().unbind();
            let responder = JsonResponder::new(move |request: &ChatRequest| {
                Python::attach(|py| {
                    let request = to_py(py, request).map_err(host)?;
                    let returned = callable.bind(py).call1((request,)).map_err(host)?;
                    // What the callable returned is host data like any other: the same limits, as a callback error.
                    cuecard::api::to_json(&crate::from_python::PyData(returned), "computed answer").map_err(|e| {
                        cuecard::CallError::Cuecard(cuecard::Error::new(
                            cuecard::ErrorKind::CallbackFailed,
                            e.message(),
                        ))
                    })
                })
            });
            mock.then_computes(Arc::new(responder)).or_raise(py)?;
        } else if answer.is_instance_of::<PyString>() || answer.cast::<pyo3::types::PyMapping>().is_ok() {
            let input = StepInput::from_value(json_of(answer, "answer")?, "answer").or_raise(py)?;
            mock.then_responds(input).or_raise(py)?;
        } else {
            return Err(wrong_type(answer, "answer", "a str, a step dict, or a callable of the request"));
        }
        Ok(slf)
    }

    /// Adds a step streaming exactly these tokens.
    #[pyo3(signature = (*tokens))]
    fn then_streams<'py>(slf: Bound<'py, Self>, tokens: &Bound<'py, PyTuple>) -> PyResult<Bound<'py, Self>> {
        let tokens: Vec<String> = data_of(tokens.as_any(), "tokens")?;
        slf.get().inner.then_streams(tokens).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Adds a step calling one tool; arguments as a mapping, as raw JSON text (possibly invalid on purpose), or
    /// None for `{}`. Another type is a `TypeError` naming the argument.
    #[pyo3(signature = (name, arguments = None))]
    fn then_calls_tool<'py>(
        slf: Bound<'py, Self>,
        name: &Bound<'py, PyAny>,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let name =
            name.cast::<PyString>().map_err(|_| wrong_type(name, "name", "a str (the tool's name)"))?.to_cow()?;
        let arguments = match arguments {
            None => serde_json::Value::Null,
            Some(a) if a.is_none() => serde_json::Value::Null,
            Some(a) if a.is_instance_of::<PyString>() || a.cast::<pyo3::types::PyMapping>().is_ok() => {
                json_of(a, "arguments")?
            }
            Some(a) => return Err(wrong_type(a, "arguments", "a mapping, a str of raw JSON text, or None")),
        };
        slf.get().inner.then_calls_tool(&name, arguments).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Adds a step calling several tools (`[{"name", "arguments" | "arguments_json", "id"?}]`).
    fn then_calls_tools<'py>(slf: Bound<'py, Self>, calls: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let calls: Vec<ToolCallSpec> = data_of(calls, "calls")?;
        slf.get().inner.then_calls_tools(calls).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Adds a step failing before anything is streamed: `kind` (`rate_limited`, `overloaded`, ...) and optional
    /// `status`, `message`, `retryable`, `retry_after` (seconds), `error_type`, `error_code`.
    #[pyo3(signature = (kind = "server_error", **options))]
    fn then_fails<'py>(
        slf: Bound<'py, Self>,
        kind: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, Self>> {
        let spec = failure(slf.py(), kind, options)?;
        slf.get().inner.then_fails(&spec).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Makes the last step fail after its thinking and text were streamed (options as for `then_fails`).
    #[pyo3(signature = (kind = "connection_reset", **options))]
    fn and_fails<'py>(
        slf: Bound<'py, Self>,
        kind: &str,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, Self>> {
        let spec = failure(slf.py(), kind, options)?;
        slf.get().inner.and_fails(&spec).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Answers every further request of the current route with its last step.
    fn then_repeats(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().inner.then_repeats().or_raise(slf.py())?;
        Ok(slf)
    }

    /// Starts a route: the steps added next answer only requests that match every given criterion (the first
    /// matching route wins; `route()` without criteria takes the rest and belongs last).
    #[pyo3(signature = (*, operation = None, model = None, endpoint = None, on_exhausted = None))]
    fn route<'py>(
        slf: Bound<'py, Self>,
        operation: Option<String>,
        model: Option<String>,
        endpoint: Option<String>,
        on_exhausted: Option<&str>,
    ) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        let policy = on_exhausted.map(str::parse::<Exhaustion>).transpose().or_raise(py)?;
        slf.get()
            .inner
            .route(&MatchSpec { operation, model, endpoint, ..MatchSpec::default() }, policy)
            .or_raise(py)?;
        Ok(slf)
    }

    /// Changes the settings given as keywords (`instant`, `usage`, `seed`, `provider_id`, `capabilities`,
    /// `on_exhausted`, `step_defaults`, `journal_limit`).
    #[pyo3(signature = (**settings))]
    fn configure<'py>(slf: Bound<'py, Self>, settings: Option<&Bound<'py, PyDict>>) -> PyResult<Bound<'py, Self>> {
        if let Some(settings) = settings {
            let settings: MockSettings = data_of(settings.as_any(), "settings")?;
            slf.get().inner.configure(&settings).or_raise(slf.py())?;
        }
        Ok(slf)
    }

    /// Every response reports this usage (LangChain4j's `withTokenUsage`), unless a step gives its own.
    fn with_token_usage(slf: Bound<'_, Self>, input_tokens: u64, output_tokens: u64) -> PyResult<Bound<'_, Self>> {
        let usage = cuecard::UsagePolicy::Given(cuecard::Usage::new(input_tokens, output_tokens));
        slf.get()
            .inner
            .configure(&MockSettings { usage: Some(usage), ..MockSettings::default() })
            .or_raise(slf.py())?;
        Ok(slf)
    }

    /// Steps without a delay of their own wait `delay_ms` before answering (Cogitator's `setDefaultDelay`).
    fn with_default_delay(slf: Bound<'_, Self>, delay_ms: u64) -> PyResult<Bound<'_, Self>> {
        let defaults = cuecard::StepTiming { delay_ms: Some(delay_ms), ..cuecard::StepTiming::default() };
        let settings = MockSettings { step_defaults: Some(defaults), ..MockSettings::default() };
        slf.get().inner.configure(&settings).or_raise(slf.py())?;
        Ok(slf)
    }

    /// Every setting in force, as a dict.
    fn settings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.settings())
    }

    /// Whether the waiting forms (`achat`, `astream`, `iter_stream`) skip the scripted delays.
    #[getter]
    fn instant(&self) -> bool {
        self.inner.is_instant()
    }

    /// The provider id in call records.
    #[getter]
    fn provider_id(&self) -> String {
        self.inner.provider_id()
    }

    // ---- answering -------------------------------------------------------------------------------------------

    /// Answers a request (a user text, or a dict in cuecard's neutral format) whole; returns the response dict.
    fn chat(&self, request: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = request.py();
        let request = request_of(request)?;
        let inner = Arc::clone(&self.inner);
        // The exchange's response is the journal's own, shared: converted from there, never copied first.
        match py.detach(move || inner.chat_timed_raw(request, None).result) {
            Ok(response) => to_py(py, &*response),
            Err(e) => Err(call_error(py, e)),
        }
    }

    /// Answers whole without raising: `(response, None, delay_ms)` or `(None, exception, delay_ms)`, so the
    /// asyncio form can wait out the scripted delay before returning or raising.
    fn chat_timed(&self, request: &Bound<'_, PyAny>) -> PyResult<(Py<PyAny>, Py<PyAny>, u64)> {
        let py = request.py();
        let request = request_of(request)?;
        let inner = Arc::clone(&self.inner);
        let exchange = py.detach(move || inner.chat_timed_raw(request, None));
        match exchange.result {
            Ok(response) => Ok((to_py(py, &*response)?, py.None(), exchange.delay_ms)),
            Err(e) => Ok((py.None(), call_error(py, e).into_value(py).into_any(), exchange.delay_ms)),
        }
    }

    /// Answers as the list of stream events (dicts with `type`, `delay_ms`, `at_ms`), at once.
    fn stream(&self, request: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = request.py();
        let request = request_of(request)?;
        let inner = Arc::clone(&self.inner);
        match py.detach(move || inner.chat_stream(request)) {
            Ok(stream) => to_py(py, stream.events()),
            Err(e) => Err(call_error(py, e)),
        }
    }

    /// Streams and collects: the text of the stream; a stream that ends with a scripted failure raises it
    /// after its text (as a client reading the stream sees it).
    fn stream_text(&self, request: &Bound<'_, PyAny>) -> PyResult<String> {
        let py = request.py();
        let request = request_of(request)?;
        let inner = Arc::clone(&self.inner);
        let stream = py.detach(move || inner.chat_stream(request)).map_err(|e| call_error(py, e))?;
        match stream.error() {
            Some(error) => Err(provider_error(py, error)),
            None => Ok(stream.text()),
        }
    }

    /// Answers one HTTP request with the wire protocols (the server's own code), for in-process transports:
    /// the reply as a dict (`kind` `full`/`stream`/`abort`, `status`, `headers`, `body` or `frames`, delays).
    /// `instant` (by default the mock's own setting) sends it without any delay.
    #[pyo3(signature = (method, target, headers, body, instant=None))]
    fn handle_http(
        &self,
        py: Python<'_>,
        method: &str,
        target: &str,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        instant: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        let collapse = Collapse::of_instant(instant).for_mock(self.inner.is_instant());
        let request = cuecard::wire::HttpRequest::new(method, target, headers, body);
        let inner = Arc::clone(&self.inner);
        let reply = py.detach(move || paced(cuecard::wire::handle(&inner, &request), collapse));
        to_py(py, &reply)
    }

    // ---- the journal -----------------------------------------------------------------------------------------

    /// The journal entries (dicts), oldest first.
    fn entries(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.entries())
    }

    /// The requests received (dicts), in arrival order.
    fn requests(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.requests())
    }

    /// The only request received; `RequestCountMismatchError` otherwise.
    fn request(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.request().or_raise(py)?)
    }

    /// The last request received; `RequestCountMismatchError` when there is none.
    fn last_request(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.last_request().or_raise(py)?)
    }

    /// The text of the only user message of the only request (LangChain4j's `userMessageText()`).
    fn user_message_text(&self, py: Python<'_>) -> PyResult<String> {
        self.inner.user_message_text().or_raise(py)
    }

    /// Whether some request satisfies `predicate` (a callable of the request dict; Cogitator's `wasCalledWith`).
    fn was_called_with(&self, predicate: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = predicate.py();
        if !predicate.is_callable() {
            return Err(wrong_type(predicate, "predicate", "a callable of the request"));
        }
        for request in self.inner.requests() {
            if predicate.call1((to_py(py, &request)?,))?.is_truthy()? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Number of requests received.
    fn request_count(&self) -> u64 {
        self.inner.request_count()
    }

    /// Counters by outcome (`total`, `answered`, `failed`, `exhausted`, `unmatched`, `callback_failed`, `rejected`).
    fn counts(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.counts())
    }

    /// Steps no request took (dicts).
    fn unused_steps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.unused_steps())
    }

    /// The realtime socket messages (dicts), both ways, in the order they crossed (`docs/concepts/realtime.md`).
    fn socket_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.socket_events())
    }

    /// The MCP journal (dicts): every message the scenario's MCP servers received, oldest first.
    fn mcp_entries(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.mcp_entries())
    }

    /// MCP tool steps no call took (dicts: `server`, `tool`, `step`).
    fn mcp_unused_steps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.mcp_unused_steps())
    }

    /// The journal entries of requests the script did not expect.
    fn unexpected_requests(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.unexpected_requests())
    }

    /// Provider-side call records, one per request (what assertions use without an observer).
    fn call_records(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.call_records())
    }

    /// Forgets every request and rewinds the script; ids restart.
    fn reset(&self) {
        self.inner.reset();
    }

    /// Keeps only the last `limit` journal entries (None keeps all); counters still count every request.
    #[pyo3(signature = (limit = None))]
    fn set_journal_limit(&self, limit: Option<usize>) {
        self.inner.set_journal_limit(limit);
    }

    /// Advances the virtual clock by `ms` (for waits outside the mock, such as a client's back-off).
    fn advance_clock(&self, ms: u64) {
        self.inner.advance_clock(ms);
    }

    /// The virtual clock, in milliseconds since the mock was created.
    fn clock_ms(&self) -> u64 {
        self.inner.clock_ms()
    }
}
