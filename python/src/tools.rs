//! `cuecard.MockTool`: a tool double recording every invocation, answering fixed, computed (a Python callable),
//! failing or slowly; Cogitator's fixture tools come from the core by name.

use crate::errors::{call_error, host, OrRaise};
use crate::from_python::{json_of, to_py, PyData};
use crate::mock::wrong_type;
use cuecard::tools::{MockToolOptions, ToolFunction};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;
use std::sync::Arc;

/// A tool double. `invoke` answers at once; `ainvoke` waits out a slow tool's delay with asyncio.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MockTool")]
pub struct PyMockTool {
    inner: Arc<cuecard::MockTool>,
}

/// `cuecard._aio.later`, which makes the awaitable of `ainvoke`.
static LATER: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

impl PyMockTool {
    fn timed(
        &self,
        arguments: &Bound<'_, PyAny>,
    ) -> PyResult<cuecard::Timed<Result<serde_json::Value, cuecard::CallError>>> {
        if let Ok(text) = arguments.cast::<PyString>() {
            return Ok(self.inner.invoke_json(&text.to_cow()?));
        }
        Ok(self.inner.invoke(&json_of(arguments, "arguments")?))
    }
}

#[pymethods]
impl PyMockTool {
    /// A tool answering `result` always, computed by `responder(arguments)`, or failing with `fails`; with none of
    /// them it answers `{}`. Keywords: `parameters` (a JSON schema), `delay_ms` (a slow tool).
    #[new]
    #[pyo3(signature = (name, description = "", parameters = None, *, result = None, responder = None, fails = None, delay_ms = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        name: String,
        description: &str,
        parameters: Option<&Bound<'_, PyAny>>,
        result: Option<&Bound<'_, PyAny>>,
        responder: Option<&Bound<'_, PyAny>>,
        fails: Option<String>,
        delay_ms: Option<u64>,
    ) -> PyResult<PyMockTool> {
        let function: Option<ToolFunction> = match responder {
            Some(r) if !r.is_callable() => return Err(wrong_type(r, "responder", "a callable of the arguments")),
            Some(r) => {
                let callable = r.clone().unbind();
                Some(Arc::new(move |arguments: &serde_json::Value| {
                    Python::attach(|py| {
                        let arguments = to_py(py, arguments).map_err(host)?;
                        let value = callable.bind(py).call1((arguments,)).map_err(host)?;
                        cuecard::api::to_json(&PyData(value), "tool result").map_err(|e| {
                            cuecard::CallError::Cuecard(cuecard::Error::new(
                                cuecard::ErrorKind::CallbackFailed,
                                e.message(),
                            ))
                        })
                    })
                }))
            }
            None => None,
        };
        let options = MockToolOptions {
            name,
            description: description.to_string(),
            parameters: parameters.map(|p| json_of(p, "parameters")).transpose()?,
            result: result.map(|r| json_of(r, "result")).transpose()?,
            fails,
            delay_ms,
        };
        Ok(PyMockTool { inner: Arc::new(cuecard::MockTool::from_options(options, function).or_raise(py)?) })
    }

    /// A tool that always answers `result` (Tramai's `MockTool.fixed`).
    #[staticmethod]
    fn fixed(py: Python<'_>, name: String, description: String, result: &Bound<'_, PyAny>) -> PyResult<PyMockTool> {
        let options =
            MockToolOptions { name, description, result: Some(json_of(result, "result")?), ..Default::default() };
        Ok(PyMockTool { inner: Arc::new(cuecard::MockTool::from_options(options, None).or_raise(py)?) })
    }

    /// One of Cogitator's fixture tools: `calculator`, `weather`, `failing` (with a message) or `slow` (with a delay).
    #[staticmethod]
    #[pyo3(signature = (name, message = None, delay_ms = None))]
    fn fixture(py: Python<'_>, name: &str, message: Option<&str>, delay_ms: Option<u64>) -> PyResult<PyMockTool> {
        let tool = cuecard::tools::fixtures::by_name(name, message, delay_ms).or_raise(py)?;
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

    /// Calls the tool (arguments as a dict, or as the JSON text a model produced); a failing tool raises
    /// `ToolFailedError`.
    fn invoke(&self, arguments: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = arguments.py();
        match self.timed(arguments)?.value {
            Ok(value) => to_py(py, &value),
            Err(e) => Err(call_error(py, e)),
        }
    }

    /// Calls the tool and returns an awaitable that waits out the tool's delay, then answers (or raises).
    fn ainvoke(&self, arguments: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = arguments.py();
        let timed = self.timed(arguments)?;
        let (value, error) = match timed.value {
            Ok(value) => (to_py(py, &value)?, py.None()),
            Err(e) => (py.None(), call_error(py, e).into_value(py).into_any()),
        };
        let later = LATER.get_or_try_init(py, || py.import("cuecard._aio")?.getattr("later").map(Bound::unbind))?;
        Ok(later.bind(py).call1((timed.delay_ms, value, error))?.unbind())
    }

    /// The arguments of every invocation, in order (Tramai's `calls`).
    fn calls(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.calls())
    }

    /// Every invocation: `{"index", "arguments", "result" | "error", "delay_ms"}`.
    fn invocations(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.invocations())
    }

    /// How often it was called.
    fn call_count(&self) -> usize {
        self.inner.call_count()
    }

    /// Forgets the invocations.
    fn reset(&self) {
        self.inner.reset();
    }
}
