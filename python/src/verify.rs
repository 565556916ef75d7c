//! Checks as data: the fluent chain in `cuecard/verify.py` builds one check (a dict, `verify::Check` in core)
//! per method and runs it here; a failure raises `AssertionFailedError` (an `AssertionError`) with the core's
//! message (expected, actual, the history table).

use crate::errors::cuecard_error;
use crate::from_python::data_of;
use crate::mock::PyMockModel;
use crate::observe::PyRecordingObserver;
use pyo3::prelude::*;

/// Runs one check (`{"check": "was_called_times", "operation": "greet", "times": 2}`) against the mock and, if
/// given, the observer's records.
#[pyfunction]
#[pyo3(signature = (mock, check, observer = None))]
pub fn run_check(
    mock: &Bound<'_, PyMockModel>,
    check: &Bound<'_, PyAny>,
    observer: Option<&Bound<'_, PyRecordingObserver>>,
) -> PyResult<()> {
    let py = mock.py();
    let check: cuecard::verify::Check = data_of(check, "check")?;
    let observer = observer.map(|o| &o.get().inner);
    cuecard::verify::run_check(&mock.get().inner, observer, &check)
        .map_err(|failure| cuecard_error(py, &cuecard::Error::from(failure)))
}

/// The name of every check the core has (each binding's test proves its chain covers them).
#[pyfunction]
pub fn check_names() -> Vec<&'static str> {
    cuecard::verify::CHECK_NAMES.to_vec()
}
