//! `cuecard.MockMemory`: Cogitator's memory adapter double; every call is recorded (method names in snake_case).
//! Results are dicts; an unknown thread in `update_thread` raises `NotFoundError` (a `LookupError`).

use crate::errors::OrRaise;
use crate::from_python::{data_of, to_py};
use pyo3::prelude::*;

/// An in-process conversation store that records every call.
#[pyclass(frozen, module = "cuecard._cuecard", name = "MockMemory")]
pub struct PyMockMemory {
    inner: cuecard::MockMemory,
}

#[pymethods]
impl PyMockMemory {
    #[new]
    fn new() -> PyMockMemory {
        PyMockMemory { inner: cuecard::MockMemory::new() }
    }

    /// `"memory"`, as Cogitator's adapter says.
    #[getter]
    fn provider(&self) -> &'static str {
        self.inner.provider()
    }

    fn connect(&self) {
        self.inner.connect();
    }

    fn disconnect(&self) {
        self.inner.disconnect();
    }

    /// Whether connected.
    fn is_connected(&self) -> bool {
        self.inner.is_connected()
    }

    /// Creates a thread (`thread_N` unless `thread_id` is given) and resets its entries.
    #[pyo3(signature = (agent_id, metadata = None, thread_id = None))]
    fn create_thread(
        &self,
        py: Python<'_>,
        agent_id: &str,
        metadata: Option<&Bound<'_, PyAny>>,
        thread_id: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let metadata = metadata.map(|m| data_of(m, "metadata")).transpose()?;
        to_py(py, &self.inner.create_thread(agent_id, metadata, thread_id))
    }

    /// The thread, or None.
    fn get_thread(&self, py: Python<'_>, thread_id: &str) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.get_thread(thread_id))
    }

    /// Shallow-merges metadata into the thread's.
    fn update_thread(&self, thread_id: &str, metadata: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = metadata.py();
        let thread = self.inner.update_thread(thread_id, data_of(metadata, "metadata")?).or_raise(py)?;
        to_py(py, &thread)
    }

    fn delete_thread(&self, thread_id: &str) {
        self.inner.delete_thread(thread_id);
    }

    /// Adds an entry (`{"thread_id", "message", "tool_calls"?, "tool_results"?, "token_count"?, "metadata"?}`).
    fn add_entry(&self, entry: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = entry.py();
        to_py(py, &self.inner.add_entry(data_of(entry, "entry")?))
    }

    /// A thread's entries (`{"thread_id", "limit"?, "before_ms"?, "after_ms"?, "include_tool_calls"?}`).
    fn get_entries(&self, query: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = query.py();
        to_py(py, &self.inner.get_entries(&data_of(query, "query")?))
    }

    /// The entry, or None.
    fn get_entry(&self, py: Python<'_>, entry_id: &str) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.get_entry(entry_id))
    }

    fn delete_entry(&self, entry_id: &str) {
        self.inner.delete_entry(entry_id);
    }

    fn clear_thread(&self, thread_id: &str) {
        self.inner.clear_thread(thread_id);
    }

    /// Every recorded call (`{"method", "args"}`), or those of one method (`"create_thread"` or `"createThread"`).
    #[pyo3(signature = (method = None))]
    fn calls(&self, py: Python<'_>, method: Option<&str>) -> PyResult<Py<PyAny>> {
        match method {
            Some(method) => to_py(py, &self.inner.calls_for(method.parse().or_raise(py)?)),
            None => to_py(py, &self.inner.calls()),
        }
    }

    /// Clears everything and disconnects.
    fn reset(&self) {
        self.inner.reset();
    }
}
