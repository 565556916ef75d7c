//! `cuecard.Server`: the loopback server over a mock, on its own thread; never keeps Python alive at exit.

use crate::errors::OrRaise;
use crate::from_python::data_of;
use crate::mock::PyMockModel;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

/// The loopback server. A context manager; `stop()` is idempotent and safe from any thread.
#[pyclass(frozen, module = "cuecard._cuecard", name = "Server")]
pub struct PyServer {
    server: cuecard::Server,
    mock: Py<PyMockModel>,
}

#[pymethods]
impl PyServer {
    /// Serves `mock` on 127.0.0.1 (keywords: `port` (0 picks a free one), `host`, `instant`).
    #[new]
    #[pyo3(signature = (mock, **options))]
    fn new(mock: &Bound<'_, PyMockModel>, options: Option<&Bound<'_, PyDict>>) -> PyResult<PyServer> {
        let py = mock.py();
        let options: cuecard::ServerOptions = match options {
            Some(o) => data_of(o.as_any(), "options")?,
            None => cuecard::ServerOptions::default(),
        };
        let inner = Arc::clone(&mock.get().inner);
        let server = py.detach(move || cuecard::Server::start_with(inner, options)).or_raise(py)?;
        Ok(PyServer { server, mock: mock.clone().unbind() })
    }

    /// The mock it serves.
    #[getter]
    fn mock(&self, py: Python<'_>) -> Py<PyMockModel> {
        self.mock.clone_ref(py)
    }

    /// `http://127.0.0.1:PORT`.
    #[getter]
    fn base_url(&self) -> String {
        self.server.base_url()
    }

    /// For `openai.OpenAI(base_url=...)` (ends in `/v1`).
    #[getter]
    fn openai_base_url(&self) -> String {
        self.server.openai_base_url()
    }

    /// For `anthropic.Anthropic(base_url=...)`.
    #[getter]
    fn anthropic_base_url(&self) -> String {
        self.server.anthropic_base_url()
    }

    /// The port.
    #[getter]
    fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// Stops the server (idempotent); requests in flight finish, with the GIL released.
    fn stop(&self, py: Python<'_>) {
        py.detach(|| self.server.stop());
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc_info))]
    fn __exit__(&self, py: Python<'_>, _exc_info: &Bound<'_, pyo3::types::PyTuple>) {
        self.stop(py);
    }
}
