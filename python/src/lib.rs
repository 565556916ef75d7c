//! The Python module `cuecard._cuecard`: a thin pyo3 layer over the core. It converts types (Python objects
//! <-> serde data via pythonize), maps errors to the classes of `cuecard.errors`, and manages the GIL; the
//! Python package `cuecard` (pysrc/) adds the idioms (the seed-style `that_responds` / `then_...` API).

use cuecard::{CallError, ChatRequest, HostError, MockModel, ProviderError, Responder, Scenario, Step};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::sync::Arc;

/// Python object from serde data.
fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    pythonize::pythonize(py, value)
        .map(Bound::unbind)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("cannot convert to Python: {e}")))
}

/// A neutral request from a Python dict, with the path of the first offending field in the error.
fn request_from_py(value: &Bound<'_, PyAny>) -> PyResult<ChatRequest> {
    let py = value.py();
    let data: serde_json::Value = from_py(value, "invalid_request", "a request must be a dict of JSON-like data")?;
    ChatRequest::from_value(data).map_err(|e| cuecard_error(py, &e))
}

/// Serde data from a Python object; a wrong shape is cuecard's `invalid_request` (or `what`) error.
fn from_py<T: DeserializeOwned>(value: &Bound<'_, PyAny>, code: &str, what: &str) -> PyResult<T> {
    pythonize::depythonize(value).map_err(|e| raise(value.py(), code, &format!("{what}: {e}"), &[]))
}

/// The exception of `cuecard.errors` for a cuecard error code, with `.code` and `.issues`.
fn raise(py: Python<'_>, code: &str, message: &str, issues: &[cuecard::Issue]) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let errors = py.import("cuecard.errors")?;
        let class = errors.getattr("error_class_for")?.call1((code,))?;
        let issues = to_py(py, issues)?;
        Ok(PyErr::from_value(class.call1((message, code, issues))?))
    };
    build().unwrap_or_else(|e| e)
}

fn cuecard_error(py: Python<'_>, error: &cuecard::Error) -> PyErr {
    raise(py, error.code(), error.message(), error.issues())
}

fn provider_error(py: Python<'_>, error: &ProviderError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let class = py.import("cuecard.errors")?.getattr("ProviderError")?;
        let data = to_py(py, error)?;
        Ok(PyErr::from_value(class.call_method1("_from_core", (data,))?))
    };
    build().unwrap_or_else(|e| e)
}

fn call_error(py: Python<'_>, error: CallError) -> PyErr {
    match error {
        CallError::Provider(e) => provider_error(py, &e),
        CallError::Cuecard(e) => cuecard_error(py, &e),
        // A Python exception raised by a callback: re-raise the very same object.
        CallError::Host(host) => match host.payload().downcast_ref::<PyErr>() {
            Some(original) => original.clone_ref(py),
            None => raise(py, "callback_failed", host.message(), &[]),
        },
    }
}

/// A computed answer: a Python callable taking the request (a dict) and returning a text or a step dict in the
/// scenario format. It runs under the GIL; its exceptions pass through unchanged.
struct PyResponder {
    callable: Py<PyAny>,
}

impl Responder for PyResponder {
    fn respond(&self, request: &ChatRequest) -> Result<Step, CallError> {
        Python::attach(|py| {
            let host = |e: PyErr| CallError::Host(HostError::new(e.to_string(), Arc::new(e)));
            let request = to_py(py, request).map_err(host)?;
            let answer = self.callable.bind(py).call1((request,)).map_err(host)?;
            if let Ok(text) = answer.cast::<PyString>() {
                return Step::text(text.to_string()).map_err(CallError::Cuecard);
            }
            let value: serde_json::Value = pythonize::depythonize(&answer).map_err(|e| {
                CallError::Cuecard(cuecard::Error::new(
                    cuecard::ErrorKind::CallbackFailed,
                    format!("a computed answer must be a str or a step dict: {e}"),
                ))
            })?;
            cuecard::scenario::step_from_value(value).map_err(CallError::Cuecard)
        })
    }
}

/// The scripted provider. Thread-safe; `chat` releases the GIL while the core answers.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MockModel")]
struct PyMockModel {
    inner: Arc<MockModel>,
}

fn from_scenario(py: Python<'_>, scenario: cuecard::Result<Scenario>) -> PyResult<PyMockModel> {
    let mock = scenario.and_then(|s| s.to_mock()).map_err(|e| cuecard_error(py, &e))?;
    Ok(PyMockModel { inner: Arc::new(mock) })
}

#[pymethods]
impl PyMockModel {
    #[new]
    fn new() -> PyMockModel {
        PyMockModel { inner: Arc::new(MockModel::new()) }
    }

    /// A mock scripted by a scenario given as a dict.
    #[staticmethod]
    fn from_scenario_dict(scenario: &Bound<'_, PyAny>) -> PyResult<PyMockModel> {
        let value: serde_json::Value = from_py(scenario, "invalid_scenario", "the scenario is not JSON-like data")?;
        from_scenario(scenario.py(), Scenario::from_value(value))
    }

    /// A mock scripted by a JSON scenario text.
    #[staticmethod]
    fn from_scenario_json(py: Python<'_>, text: &str) -> PyResult<PyMockModel> {
        from_scenario(py, Scenario::from_json(text))
    }

    /// A mock scripted by a YAML scenario text.
    #[staticmethod]
    fn from_scenario_yaml(py: Python<'_>, text: &str) -> PyResult<PyMockModel> {
        from_scenario(py, Scenario::from_yaml(text))
    }

    /// A mock scripted by a scenario file (YAML for .yaml/.yml, JSON otherwise).
    #[staticmethod]
    fn from_scenario_file(py: Python<'_>, path: std::path::PathBuf) -> PyResult<PyMockModel> {
        from_scenario(py, Scenario::from_path(path))
    }

    /// Adds a step given in the scenario format (`{"text": ...}`, `{"fail": {...}}`, ...).
    fn add_step(&self, step: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = step.py();
        let value: serde_json::Value = from_py(step, "invalid_argument", "a step must be JSON-like data")?;
        let step = cuecard::scenario::step_from_value(value).map_err(|e| cuecard_error(py, &e))?;
        self.inner.add_step(step).map_err(|e| cuecard_error(py, &e))
    }

    /// Adds a route (operation, model, endpoint; all given must match) and makes it the one steps are added to.
    #[pyo3(signature = (operation = None, model = None, endpoint = None, on_exhausted = None))]
    fn add_route(
        &self,
        py: Python<'_>,
        operation: Option<String>,
        model: Option<String>,
        endpoint: Option<String>,
        on_exhausted: Option<&str>,
    ) -> PyResult<usize> {
        let mut route = cuecard::Route::new(cuecard::RouteMatch { operation, model, endpoint, predicate: None });
        if let Some(policy) = on_exhausted {
            let policy: cuecard::Exhaustion =
                serde_json::from_value(serde_json::Value::from(policy)).map_err(|_| {
                    raise(
                        py,
                        "invalid_argument",
                        &format!("on_exhausted {policy:?} is not fail, repeat_last or cycle"),
                        &[],
                    )
                })?;
            route = route.on_exhausted(policy);
        }
        self.inner.add_route(route).map_err(|e| cuecard_error(py, &e))
    }

    /// Adds a step whose answer a Python callable computes from the request.
    fn add_computed(&self, py: Python<'_>, callable: Py<PyAny>) -> PyResult<()> {
        if !callable.bind(py).is_callable() {
            return Err(raise(py, "invalid_argument", "the computed answer must be a callable", &[]));
        }
        self.inner.add_step(Step::compute(PyResponder { callable })).map_err(|e| cuecard_error(py, &e))
    }

    /// Makes the last step fail after its thinking and text (a `fail` dict in the scenario format).
    fn and_fails(&self, failure: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = failure.py();
        let value: serde_json::Value = from_py(failure, "invalid_argument", "a failure must be JSON-like data")?;
        let error: ProviderError = cuecard::scenario::step_from_value(serde_json::json!({ "fail": value }))
            .map_err(|e| cuecard_error(py, &e))
            .and_then(|step| match step.body() {
                cuecard::StepBody::Fail(error) => Ok(error.clone()),
                _ => Err(raise(py, "internal", "a fail step without a failure", &[])),
            })?;
        self.inner.and_fails(error).map_err(|e| cuecard_error(py, &e))
    }

    /// Repeats the last step for every further request.
    fn repeats(&self, py: Python<'_>) -> PyResult<()> {
        self.inner.repeats().map_err(|e| cuecard_error(py, &e))
    }

    /// Answers a request (a dict in cuecard's neutral format) whole; returns the response dict.
    fn chat(&self, request: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = request.py();
        let request = request_from_py(request)?;
        let inner = Arc::clone(&self.inner);
        let result = py.detach(move || inner.chat(&request));
        match result {
            Ok(response) => to_py(py, &response),
            Err(e) => Err(call_error(py, e)),
        }
    }

    /// Answers a request whole, without raising: `(response, None, delay_ms)` or `(None, exception, delay_ms)`, so
    /// the Python side can wait out the scripted delay (asyncio or time.sleep) before returning or raising.
    fn chat_timed(&self, request: &Bound<'_, PyAny>) -> PyResult<(Py<PyAny>, Py<PyAny>, u64)> {
        let py = request.py();
        let request = request_from_py(request)?;
        let inner = Arc::clone(&self.inner);
        let timed = py.detach(move || inner.chat_timed(&request));
        match timed.value {
            Ok(response) => Ok((to_py(py, &response)?, py.None(), timed.delay_ms)),
            Err(e) => Ok((py.None(), call_error(py, e).into_value(py).into_any(), timed.delay_ms)),
        }
    }

    /// Answers a request as a list of stream events (dicts with `type`, `delay_ms`, `at_ms`).
    fn chat_stream(&self, request: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = request.py();
        let request = request_from_py(request)?;
        let inner = Arc::clone(&self.inner);
        let result = py.detach(move || inner.chat_stream(&request));
        match result {
            Ok(stream) => to_py(py, stream.events()),
            Err(e) => Err(call_error(py, e)),
        }
    }

    /// Answers one HTTP request with the wire protocols (the same code as the server), for in-process transports.
    /// Returns `(kind, status, headers, body, frames, delay_ms, cut)`: kind is "full", "stream" or "abort";
    /// frames are `(delay_ms, bytes)`; for a stream `delay_ms` is its stall and `cut` says the body breaks off.
    #[allow(clippy::type_complexity)]
    fn handle_http(
        &self,
        py: Python<'_>,
        method: String,
        path: String,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    ) -> (&'static str, u16, Vec<(String, String)>, Py<PyAny>, Vec<(u64, Py<PyAny>)>, u64, bool) {
        let (path, query) = match path.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (path, String::new()),
        };
        let headers = headers.into_iter().map(|(n, v)| (n.to_ascii_lowercase(), v)).collect();
        let request = cuecard::wire::HttpRequest { method, path, query, headers, body };
        let inner = Arc::clone(&self.inner);
        let reply = py.detach(move || cuecard::wire::handle(&inner, &request));
        let bytes = |b: &[u8]| pyo3::types::PyBytes::new(py, b).into_any().unbind();
        match reply {
            cuecard::wire::HttpReply::Full { delay_ms, status, headers, body } => {
                ("full", status, headers, bytes(&body), Vec::new(), delay_ms, false)
            }
            cuecard::wire::HttpReply::Stream { stall_ms, status, headers, frames, end } => {
                let frames = frames.iter().map(|f| (f.delay_ms, bytes(&f.bytes))).collect();
                ("stream", status, headers, bytes(b""), frames, stall_ms, end == cuecard::wire::StreamEnd::Cut)
            }
            cuecard::wire::HttpReply::Abort { delay_ms } => {
                ("abort", 0, Vec::new(), bytes(b""), Vec::new(), delay_ms, true)
            }
        }
    }

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
        let request = self.inner.request().map_err(|e| cuecard_error(py, &e))?;
        to_py(py, &request)
    }

    /// The last request received.
    fn last_request(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let request = self.inner.last_request().map_err(|e| cuecard_error(py, &e))?;
        to_py(py, &request)
    }

    /// Number of requests received.
    #[getter]
    fn request_count(&self) -> u64 {
        self.inner.request_count()
    }

    /// Steps no request took (dicts).
    fn unused_steps(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.unused_steps())
    }

    /// Number of requests the script did not expect.
    #[getter]
    fn unexpected_count(&self) -> u64 {
        self.inner.unexpected_count()
    }

    /// Forgets every request and rewinds the script.
    fn reset(&self) {
        self.inner.reset();
    }

    /// Keeps only the last `limit` journal entries (None keeps all); counters still count every request.
    #[pyo3(signature = (limit = None))]
    fn set_journal_limit(&self, limit: Option<usize>) {
        self.inner.set_journal_capacity(limit);
    }
}

/// The loopback server over a mock (`cuecard.Server`); it runs on its own thread and never keeps Python alive.
#[pyclass(frozen, module = "cuecard._cuecard", name = "Server")]
struct PyServer {
    server: std::sync::Mutex<Option<cuecard::Server>>,
    addr: std::net::SocketAddr,
}

#[pymethods]
impl PyServer {
    #[new]
    #[pyo3(signature = (mock, instant = false, port = 0))]
    fn new(py: Python<'_>, mock: &PyMockModel, instant: bool, port: u16) -> PyResult<PyServer> {
        let options = cuecard::ServerOptions { port, instant, ..cuecard::ServerOptions::default() };
        let inner = Arc::clone(&mock.inner);
        let server =
            py.detach(move || cuecard::Server::start_with(inner, options)).map_err(|e| cuecard_error(py, &e))?;
        let addr = server.addr();
        Ok(PyServer { server: std::sync::Mutex::new(Some(server)), addr })
    }

    /// `http://127.0.0.1:PORT`.
    #[getter]
    fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL for OpenAI clients (`…/v1`).
    #[getter]
    fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The base URL for Anthropic clients.
    #[getter]
    fn anthropic_base_url(&self) -> String {
        self.base_url()
    }

    /// The port.
    #[getter]
    fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Stops the server (idempotent); the GIL is released while requests in flight finish.
    fn stop(&self, py: Python<'_>) {
        let taken = self.server.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(mut server) = taken {
            py.detach(move || server.stop());
        }
    }
}

/// Fluent checks over a mock's journal (`assert_that(mock).when_called(op)`), raising `AssertionFailedError`
/// (an `AssertionError`) with the core's message: expected, actual and the history table.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MethodCheck")]
struct PyMethodCheck {
    inner: cuecard::verify::MethodCheck,
}

fn check<T>(py: Python<'_>, result: Result<T, cuecard::verify::AssertionFailure>) -> PyResult<()> {
    result.map(|_| ()).map_err(|failure| raise(py, "assertion_failed", &failure.to_string(), &[]))
}

#[pymethods]
impl PyMethodCheck {
    #[new]
    #[pyo3(signature = (mock, operation, observer = None))]
    fn new(mock: &PyMockModel, operation: &str, observer: Option<&PyRecordingObserver>) -> PyMethodCheck {
        let verification = cuecard::verify::assert_that(&mock.inner);
        let inner = match observer {
            Some(observer) => verification.with_observer(&observer.inner).when_called(operation),
            None => verification.when_called(operation),
        };
        PyMethodCheck { inner }
    }

    fn and_parsed_successfully<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_parsed_successfully())?;
        Ok(slf)
    }

    fn and_observed_parse_failure<'py>(slf: PyRef<'py, Self>) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_observed_parse_failure())?;
        Ok(slf)
    }

    fn was_called_times<'py>(slf: PyRef<'py, Self>, n: usize) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.was_called_times(n))?;
        Ok(slf)
    }

    fn and_retried<'py>(slf: PyRef<'py, Self>, n: usize) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_retried(n))?;
        Ok(slf)
    }

    fn and_observed_failure<'py>(slf: PyRef<'py, Self>, kind: &str) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_observed_failure(kind))?;
        Ok(slf)
    }

    fn and_failed_with<'py>(slf: PyRef<'py, Self>, kind: &str) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_failed_with(kind))?;
        Ok(slf)
    }

    fn emitted_provider<'py>(slf: PyRef<'py, Self>, id: &str) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.emitted_provider(id))?;
        Ok(slf)
    }

    fn and_called_tool<'py>(slf: PyRef<'py, Self>, name: &str) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_called_tool(name))?;
        Ok(slf)
    }

    fn and_called_tool_times<'py>(slf: PyRef<'py, Self>, name: &str, n: usize) -> PyResult<PyRef<'py, Self>> {
        check(slf.py(), slf.inner.and_called_tool_times(name, n))?;
        Ok(slf)
    }
}

/// Raises `AssertionFailedError` unless every step was used and no request was unexpected.
#[pyfunction]
fn check_script_fully_used(py: Python<'_>, mock: &PyMockModel) -> PyResult<()> {
    check(py, cuecard::verify::assert_that(&mock.inner).script_fully_used())
}

/// A tool double that records every invocation (`cuecard.MockTool`); the fixtures come from the core.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MockTool")]
struct PyMockTool {
    inner: Arc<cuecard::MockTool>,
}

fn tool_result(
    py: Python<'_>,
    timed: cuecard::Timed<Result<serde_json::Value, CallError>>,
) -> PyResult<(Py<PyAny>, u64)> {
    match timed.value {
        Ok(value) => Ok((to_py(py, &value)?, timed.delay_ms)),
        Err(e) => Err(call_error(py, e)),
    }
}

#[pymethods]
impl PyMockTool {
    /// A tool answering `result` always, or computed by `responder(arguments)`, or failing with `fails`.
    #[new]
    #[pyo3(signature = (name, description = "", parameters = None, result = None, responder = None, fails = None))]
    fn new(
        py: Python<'_>,
        name: String,
        description: &str,
        parameters: Option<&Bound<'_, PyAny>>,
        result: Option<&Bound<'_, PyAny>>,
        responder: Option<Py<PyAny>>,
        fails: Option<String>,
    ) -> PyResult<PyMockTool> {
        let parameters: serde_json::Value = match parameters {
            Some(p) => from_py(p, "invalid_argument", "parameters must be a JSON schema dict")?,
            None => serde_json::json!({"type": "object", "properties": {}}),
        };
        let answer = match (result, responder, fails) {
            (Some(value), None, None) => cuecard::tools::ToolResponder::Fixed(from_py(
                value,
                "invalid_argument",
                "result must be JSON-like data",
            )?),
            (None, Some(callable), None) => cuecard::tools::ToolResponder::Computed(Arc::new(move |arguments| {
                Python::attach(|py| {
                    let host = |e: PyErr| CallError::Host(HostError::new(e.to_string(), Arc::new(e)));
                    let arguments = to_py(py, arguments).map_err(host)?;
                    let value = callable.bind(py).call1((arguments,)).map_err(host)?;
                    pythonize::depythonize(&value).map_err(|e| {
                        CallError::Cuecard(cuecard::Error::new(
                            cuecard::ErrorKind::CallbackFailed,
                            format!("a tool responder must return JSON-like data: {e}"),
                        ))
                    })
                })
            })),
            (None, None, Some(message)) => cuecard::tools::ToolResponder::Failing(message),
            _ => return Err(raise(py, "invalid_argument", "give exactly one of result, responder or fails", &[])),
        };
        Ok(PyMockTool { inner: Arc::new(cuecard::MockTool::new(name, description, parameters, answer)) })
    }

    /// One of Cogitator's fixture tools: `calculator`, `weather`, `failing` or `slow`.
    #[staticmethod]
    #[pyo3(signature = (name, message = None, delay_ms = None))]
    fn fixture(py: Python<'_>, name: &str, message: Option<&str>, delay_ms: Option<u64>) -> PyResult<PyMockTool> {
        let tool = match name {
            "calculator" => cuecard::tools::fixtures::calculator(),
            "weather" => cuecard::tools::fixtures::weather(),
            "failing" => cuecard::tools::fixtures::failing(message),
            "slow" => cuecard::tools::fixtures::slow(delay_ms),
            other => {
                return Err(raise(
                    py,
                    "invalid_argument",
                    &format!("no fixture tool {other:?} (calculator, weather, failing, slow)"),
                    &[],
                ))
            }
        };
        Ok(PyMockTool { inner: Arc::new(tool) })
    }

    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    #[getter]
    fn description(&self) -> String {
        self.inner.description().to_string()
    }

    /// The definition to offer in a request (`{"name", "description", "parameters"}`).
    fn definition(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.definition())
    }

    /// Calls the tool: `(result, delay_ms)`; a failing tool raises `ToolFailedError`.
    fn invoke_timed(&self, arguments: &Bound<'_, PyAny>) -> PyResult<(Py<PyAny>, u64)> {
        let py = arguments.py();
        if let Ok(text) = arguments.cast::<PyString>() {
            return tool_result(py, self.inner.invoke_json(&text.to_string()));
        }
        let arguments: serde_json::Value =
            from_py(arguments, "invalid_argument", "tool arguments must be JSON-like data")?;
        tool_result(py, self.inner.invoke(&arguments))
    }

    /// The arguments of every invocation, in order.
    fn calls(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.calls())
    }

    /// Every invocation with its result (`{"index", "arguments", "result": {"Ok": ...} | {"Err": message}, "delay_ms"}`).
    fn invocations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.invocations())
    }

    #[getter]
    fn call_count(&self) -> usize {
        self.inner.call_count()
    }

    fn reset(&self) {
        self.inner.reset();
    }
}

/// Tramai's observer: an engine reports each provider call; the records feed `assert_that(...).with_observer`.
#[pyclass(frozen, module = "cuecard._cuecard", name = "RecordingObserver")]
struct PyRecordingObserver {
    inner: cuecard::RecordingObserver,
}

#[pymethods]
impl PyRecordingObserver {
    #[new]
    fn new() -> PyRecordingObserver {
        PyRecordingObserver { inner: cuecard::RecordingObserver::new() }
    }

    /// Starts a call record; returns its index for the other callbacks.
    #[pyo3(signature = (operation = None, provider_id = "mock".to_string(), model = String::new(), attempt = 0, service = None))]
    fn on_call_started(
        &self,
        operation: Option<String>,
        provider_id: String,
        model: String,
        attempt: u32,
        service: Option<String>,
    ) -> usize {
        self.inner.start_call(cuecard::CallContext { operation, service, provider_id, model, attempt })
    }

    /// The provider answered (a response dict in cuecard's neutral format).
    fn on_provider_response(&self, index: usize, response: &Bound<'_, PyAny>) -> PyResult<()> {
        let response: cuecard::ChatResponse = from_py(response, "invalid_argument", "a response must be a dict")?;
        self.inner.update(index, |r| r.response = Some(response));
        Ok(())
    }

    /// The provider failed: `kind` is a provider error kind (`rate_limited`) or an exception class name.
    #[pyo3(signature = (index, kind, message = String::new(), status = None, retryable = false))]
    fn on_provider_failure(&self, index: usize, kind: String, message: String, status: Option<u16>, retryable: bool) {
        let failure = cuecard::FailureInfo { kind, status, retryable, message };
        self.inner.update(index, |r| r.failure = Some(failure));
    }

    /// Structured-output parsing failed.
    fn on_structured_parse_failure(&self, index: usize, summary: String) {
        self.inner.update(index, |r| r.parse_failure_summary = Some(summary));
    }

    /// A named engine event with attributes.
    #[pyo3(signature = (index, name, attributes = None))]
    fn on_engine_event(&self, index: usize, name: String, attributes: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let attributes: std::collections::BTreeMap<String, serde_json::Value> = match attributes {
            Some(a) => from_py(a, "invalid_argument", "attributes must be a dict of JSON-like data")?,
            None => std::collections::BTreeMap::new(),
        };
        self.inner.update(index, |r| r.engine_events.push(cuecard::observe::EngineEvent { name, attributes }));
        Ok(())
    }

    /// The call is over; `parse_success` is None for raw operations.
    #[pyo3(signature = (index, parse_success = None))]
    fn on_call_completed(&self, index: usize, parse_success: Option<bool>) {
        self.inner.update(index, |r| {
            r.parse_success = parse_success;
            r.completed = true;
        });
    }

    /// Every call record, as dicts.
    fn call_records(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.call_records())
    }
}

/// Cogitator's memory adapter double (`cuecard.MockMemory`); every call is recorded. Results are dicts.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MockMemory")]
struct PyMockMemory {
    inner: cuecard::MockMemory,
}

#[pymethods]
impl PyMockMemory {
    #[new]
    fn new() -> PyMockMemory {
        PyMockMemory { inner: cuecard::MockMemory::new() }
    }

    fn connect(&self) {
        self.inner.connect();
    }

    fn disconnect(&self) {
        self.inner.disconnect();
    }

    #[getter]
    fn connected(&self) -> bool {
        self.inner.is_connected()
    }

    #[pyo3(signature = (agent_id, metadata = None, thread_id = None))]
    fn create_thread(
        &self,
        py: Python<'_>,
        agent_id: &str,
        metadata: Option<&Bound<'_, PyAny>>,
        thread_id: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let metadata = match metadata {
            Some(m) => Some(from_py(m, "invalid_argument", "metadata must be a dict of JSON-like data")?),
            None => None,
        };
        to_py(py, &self.inner.create_thread(agent_id, metadata, thread_id))
    }

    fn get_thread(&self, py: Python<'_>, thread_id: &str) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.get_thread(thread_id))
    }

    /// Shallow-merges metadata; raises `LookupError` ("Thread <id> not found") for an unknown thread.
    fn update_thread(&self, thread_id: &str, metadata: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = metadata.py();
        let metadata = from_py(metadata, "invalid_argument", "metadata must be a dict of JSON-like data")?;
        match self.inner.update_thread(thread_id, metadata) {
            Ok(thread) => to_py(py, &thread),
            Err(message) => Err(pyo3::exceptions::PyLookupError::new_err(message)),
        }
    }

    fn delete_thread(&self, thread_id: &str) {
        self.inner.delete_thread(thread_id);
    }

    /// Adds an entry (`{"thread_id", "message", "tool_calls"?, "tool_results"?, "token_count"?, "metadata"?}`).
    fn add_entry(&self, entry: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = entry.py();
        let entry: cuecard::memory::NewEntry = from_py(entry, "invalid_argument", "invalid entry")?;
        to_py(py, &self.inner.add_entry(entry))
    }

    /// Entries of a thread (`{"thread_id", "limit"?, "before_ms"?, "after_ms"?, "include_tool_calls"?}`).
    fn get_entries(&self, query: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = query.py();
        let query: cuecard::memory::EntryQuery = from_py(query, "invalid_argument", "invalid query")?;
        to_py(py, &self.inner.get_entries(&query))
    }

    fn get_entry(&self, py: Python<'_>, entry_id: &str) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.get_entry(entry_id))
    }

    fn delete_entry(&self, entry_id: &str) {
        self.inner.delete_entry(entry_id);
    }

    fn clear_thread(&self, thread_id: &str) {
        self.inner.clear_thread(thread_id);
    }

    /// Every recorded call (`{"method", "args"}`), optionally of one method (`createThread`, `addEntry`, ...).
    #[pyo3(signature = (method = None))]
    fn calls(&self, py: Python<'_>, method: Option<&str>) -> PyResult<Py<PyAny>> {
        match method {
            Some(method) => to_py(py, &self.inner.calls_for(method)),
            None => to_py(py, &self.inner.calls()),
        }
    }

    fn reset(&self) {
        self.inner.reset();
    }
}

/// Splits text into word-like tokens.
#[pyfunction]
fn tokenize(text: &str) -> Vec<&str> {
    cuecard::tokenize(text).collect()
}

/// Counts the word-like tokens of a text.
#[pyfunction]
fn count_tokens(text: &str) -> usize {
    cuecard::count_tokens(text)
}

/// Every cuecard error kind as (code, number, description), so the Python package can prove it maps them all.
#[pyfunction]
fn error_catalogue() -> Vec<(&'static str, u32, &'static str)> {
    cuecard::ErrorKind::ALL.iter().map(|k| (k.code(), k.number(), k.description())).collect()
}

/// Raises the exception for an error code (for the binding's own tests of the error mapping).
#[pyfunction]
fn _raise_error(py: Python<'_>, code: &str) -> PyErr {
    raise(py, code, &format!("a {code} error raised on purpose"), &[])
}

#[pymodule]
fn _cuecard(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyMockModel>()?;
    module.add_class::<PyServer>()?;
    module.add_class::<PyMockTool>()?;
    module.add_class::<PyRecordingObserver>()?;
    module.add_class::<PyMockMemory>()?;
    module.add_class::<PyMethodCheck>()?;
    module.add_function(wrap_pyfunction!(check_script_fully_used, module)?)?;
    module.add_function(wrap_pyfunction!(tokenize, module)?)?;
    module.add_function(wrap_pyfunction!(count_tokens, module)?)?;
    module.add_function(wrap_pyfunction!(error_catalogue, module)?)?;
    module.add_function(wrap_pyfunction!(_raise_error, module)?)?;
    module.add("VERSION", cuecard::VERSION)?;
    Ok(())
}
