//! The Python module `cuecard._cuecard`: a thin pyo3 layer over the core's host-neutral face. One file per core
//! module; each method converts Python values (through the core's limits on host data), calls one core function,
//! and maps errors to the classes of `cuecard.errors`. The Python package (`pysrc/cuecard`) adds only what needs
//! Python itself: asyncio waits, the pytest plugin, the SDK transports, the LangChain adapter.

// Every call allocates (the request as data, the journal's copies, the response dict's keys): with the system
// allocator, malloc and free were about a fifth of a `MockModel.chat` (issue #31). The module's Rust allocations
// only; Python objects keep Python's own allocator.
// Not on macOS (Cargo.toml says why).
#[cfg(not(target_os = "macos"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod errors;
mod from_python;
mod memory;
mod mock;
mod observe;
mod record;
mod server;
mod to_python;
mod tools;
mod verify;

#[cfg(feature = "testing")]
use crate::errors::OrRaise;
use crate::from_python::data_of;
use pyo3::prelude::*;

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

/// The text of a message dict (its text parts joined), as journaled requests hold content as a parts list.
#[pyfunction]
fn message_text(message: &Bound<'_, PyAny>) -> PyResult<String> {
    let message: cuecard::Message = data_of(message, "message")?;
    Ok(message.text())
}

/// Every cuecard error kind as (code, number, description), so the Python package can prove it maps them all.
#[pyfunction]
fn error_catalogue() -> Vec<(&'static str, u32, &'static str)> {
    cuecard::ErrorKind::ALL.iter().map(|k| (k.code(), k.number(), k.description())).collect()
}

/// The drift report of the recording at `path` as JSON text (`cuecard drift --json`).
#[pyfunction]
fn drift_report(py: Python<'_>, path: std::path::PathBuf) -> PyResult<String> {
    let report = py.detach(|| cuecard::record::drift_file(&path));
    report.map(|r| r.to_json().to_string()).map_err(|e| errors::cuecard_error(py, &e))
}

/// Runs the `cuecard` command line (`argv[0]` is the program name) and returns its exit code; the GIL is released
/// while it runs (`serve` runs until Ctrl-C or SIGTERM).
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(move || cuecard_cli::run(argv.into_iter().map(std::ffi::OsString::from)))
}

/// Raises the exception for an error code, to prove every code maps to its class (the `testing` feature only).
#[cfg(feature = "testing")]
#[pyfunction]
fn _raise_error(py: Python<'_>, code: &str) -> PyResult<()> {
    let kind = cuecard::ErrorKind::from_code(code)
        .ok_or_else(|| cuecard::Error::new(cuecard::ErrorKind::InvalidArgument, format!("no error code {code:?}")))
        .or_raise(py)?;
    Err(errors::cuecard_error(py, &cuecard::Error::new(kind, format!("a {code} error raised on purpose"))))
}

// Free-threaded Python may run this module without the GIL: every class is frozen over `Send + Sync` core
// objects that lock internally, and callbacks attach to Python before touching Python objects.
#[pymodule(gil_used = false)]
fn _cuecard(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<mock::PyMockModel>()?;
    module.add_class::<server::PyServer>()?;
    module.add_class::<tools::PyMockTool>()?;
    module.add_class::<observe::PyRecordingObserver>()?;
    module.add_class::<observe::CallObservation>()?;
    module.add_class::<memory::PyMockMemory>()?;
    module.add_class::<record::PyRecordingFile>()?;
    module.add_function(wrap_pyfunction!(verify::run_check, module)?)?;
    module.add_function(wrap_pyfunction!(verify::check_names, module)?)?;
    module.add_function(wrap_pyfunction!(tokenize, module)?)?;
    module.add_function(wrap_pyfunction!(count_tokens, module)?)?;
    module.add_function(wrap_pyfunction!(message_text, module)?)?;
    module.add_function(wrap_pyfunction!(error_catalogue, module)?)?;
    module.add_function(wrap_pyfunction!(cli_main, module)?)?;
    module.add_function(wrap_pyfunction!(drift_report, module)?)?;
    module.add_function(wrap_pyfunction!(record::recording_path_for_test, module)?)?;
    #[cfg(feature = "testing")]
    module.add_function(wrap_pyfunction!(_raise_error, module)?)?;
    module.add("VERSION", cuecard::VERSION)?;
    Ok(())
}
