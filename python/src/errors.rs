//! cuecard's errors as Python exceptions: one class per code (defined in `cuecard/errors.py`, each also the
//! natural builtin), with `.code`, `.issues` and `.context`; a scripted failure is `cuecard.ProviderError`; a
//! Python exception raised by a callback passes through as the very same object. The classes are looked up once.

use crate::to_python::to_python;
use cuecard::{CallError, ProviderError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// `cuecard.errors._error_for` and `cuecard.errors.ProviderError`, imported once.
struct Classes {
    error_for: Py<PyAny>,
    provider_error: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let module = py.import("cuecard.errors")?;
        Ok(Classes {
            error_for: module.getattr("_error_for")?.unbind(),
            provider_error: module.getattr("ProviderError")?.unbind(),
        })
    })
}

/// The exception for one of cuecard's own errors (`cuecard.errors._error_for` picks the class: by code, or by what
/// the context says, such as a file error's `io_error`).
pub fn cuecard_error(py: Python<'_>, error: &cuecard::Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let issues = to_python(py, error.issues())?;
        let context = to_python(py, error.context())?;
        let raised = classes(py)?.error_for.bind(py).call1((error.message(), error.code(), issues, context))?;
        Ok(PyErr::from_value(raised))
    };
    build().unwrap_or_else(|e| e)
}

/// The exception for a scripted provider failure.
pub fn provider_error(py: Python<'_>, error: &ProviderError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let data = to_python(py, error)?;
        Ok(PyErr::from_value(classes(py)?.provider_error.bind(py).call_method1("_from_core", (data,))?))
    };
    build().unwrap_or_else(|e| e)
}

/// The exception for a failed call: provider failure, cuecard error, or the callback's own exception unchanged.
pub fn call_error(py: Python<'_>, error: CallError) -> PyErr {
    match error {
        CallError::Provider(e) => provider_error(py, &e),
        CallError::Cuecard(e) => cuecard_error(py, &e),
        CallError::Host(host) => match host.payload().downcast_ref::<PyErr>() {
            Some(original) => original.clone_ref(py),
            None => cuecard_error(py, &host.to_error()),
        },
    }
}

/// A Python exception as a host error the core carries through unchanged.
pub fn host(error: PyErr) -> CallError {
    CallError::Host(cuecard::HostError::new(error.to_string(), std::sync::Arc::new(error)))
}

/// `Result<T, cuecard::Error>` to `PyResult<T>`.
pub trait OrRaise<T> {
    /// Raises the error as its Python exception.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for cuecard::Result<T> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| cuecard_error(py, &e))
    }
}
