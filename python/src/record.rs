//! `cuecard._cuecard.RecordingFile`: core's recording file (its mode, where a request it lacks is forwarded,
//! recording an exchange). The transports in `cuecard.recording` do the network I/O.

use crate::errors::OrRaise;
use crate::from_python::data_of;
use cuecard::record::{RecordingFile, RecordingSettings, UpstreamReply};
use cuecard::wire::HttpRequest;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Mutex;

/// A recording file opened in a record mode (`none`, `once`, `new`, `all`).
#[pyclass(frozen, module = "cuecard._cuecard", name = "RecordingFile")]
pub struct PyRecordingFile {
    file: Mutex<RecordingFile>,
}

impl PyRecordingFile {
    /// Runs `f` on the file (locked), raising its error.
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&mut RecordingFile) -> cuecard::Result<T>) -> PyResult<T> {
        self.with_detached(f).or_raise(py)
    }
}

#[pymethods]
impl PyRecordingFile {
    /// Opens `path` (keywords: `mode`, `upstream` (a list of `URL` or `PROTOCOL=URL`), `redact`, `redact_fields`,
    /// `allow_in_ci`, `description`).
    #[new]
    #[pyo3(signature = (path, **settings))]
    fn new(py: Python<'_>, path: std::path::PathBuf, settings: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let settings: RecordingSettings = match settings {
            Some(s) => data_of(s.as_any(), "settings")?,
            None => RecordingSettings::default(),
        };
        let file = py.detach(|| RecordingFile::open_with(&path, &settings)).or_raise(py)?;
        Ok(PyRecordingFile { file: Mutex::new(file) })
    }

    /// The file's path.
    #[getter]
    fn path(&self, py: Python<'_>) -> PyResult<std::path::PathBuf> {
        self.with(py, |f| Ok(f.path().to_path_buf()))
    }

    /// The record mode's name.
    #[getter]
    fn mode(&self, py: Python<'_>) -> PyResult<&'static str> {
        self.with(py, |f| Ok(f.mode().name()))
    }

    /// Whether requests are answered from the file first.
    #[getter]
    fn replays(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |f| Ok(f.replays()))
    }

    /// A warning naming the file when it is replayed past its `max_age_days`.
    #[getter]
    fn age_warning(&self, py: Python<'_>) -> PyResult<Option<String>> {
        self.with(py, |f| Ok(f.age_warning()))
    }

    /// Whether requests the file lacks are forwarded and recorded.
    #[getter]
    fn records(&self, py: Python<'_>) -> PyResult<bool> {
        self.with(py, |f| Ok(f.records()))
    }

    /// How many exchanges were recorded since the file was opened.
    #[getter]
    fn recorded(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |f| Ok(f.recorded()))
    }

    /// Whether a replayed reply's headers say it is a miss the file forwards (`no_recording`, `script_exhausted`).
    #[staticmethod]
    fn is_miss(headers: Vec<(String, String)>) -> bool {
        RecordingFile::is_miss(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    }

    /// Where and how a request is forwarded: `(url, headers)` (core's rule: the connection's own headers and
    /// `accept-encoding` are left out).
    fn forwarding(
        &self,
        py: Python<'_>,
        method: &str,
        target: &str,
        headers: Vec<(String, String)>,
    ) -> PyResult<(String, Vec<(String, String)>)> {
        let request = HttpRequest::new(method, target, headers, Vec::new());
        self.with(py, |f| f.forwarding(&request))
    }

    /// Records one forwarded exchange (the request, and the reply as it arrived: each chunk with the milliseconds
    /// since the request was sent) and writes the file.
    #[pyo3(signature = (method, target, headers, body, status, reply_headers, headers_ms, chunks, cut = false))]
    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        py: Python<'_>,
        method: &str,
        target: &str,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        status: u16,
        reply_headers: Vec<(String, String)>,
        headers_ms: u64,
        chunks: Vec<(u64, Vec<u8>)>,
        cut: bool,
    ) -> PyResult<()> {
        let request = HttpRequest::new(method, target, headers, body);
        let reply = UpstreamReply { status, headers: reply_headers, headers_ms, chunks, cut };
        py.detach(|| self.with_detached(|f| f.record(&request, &reply))).or_raise(py)
    }
}

impl PyRecordingFile {
    /// Runs `f` on the file without the GIL (writing the file is I/O).
    fn with_detached<T>(&self, f: impl FnOnce(&mut RecordingFile) -> cuecard::Result<T>) -> cuecard::Result<T> {
        let mut file = self
            .file
            .lock()
            .map_err(|_| cuecard::Error::new(cuecard::ErrorKind::Internal, "a recording failed while being written"))?;
        f(&mut file)
    }
}

/// The file a test's recording is kept in, relative to the test file's directory (core's one rule):
/// `recordings/<module>/<names joined with .>.yaml`.
#[pyfunction]
pub fn recording_path_for_test(module: &str, names: Vec<String>) -> String {
    cuecard::record::recording_path_for_test(module, &names.iter().map(String::as_str).collect::<Vec<_>>())
}
