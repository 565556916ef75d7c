//! Python values <-> cuecard's data. Python data becomes JSON through the core's one walker
//! (`cuecard::api::to_json`), which enforces the depth, cycle and NaN limits, or straight into a core type with the
//! same result (`cuecard::api::from_host`); this file only says how to read one Python object
//! (`HostValue`). Core data becomes Python objects through `to_python.rs` (serde's data model, with interned names);
//! [`to_py`], the checked way back that every result takes, is kept here rather than there because its failure is
//! a cuecard error (`errors.rs`), and `errors.rs` itself converts with the bare serializer: so the three files
//! import one way (`to_python` < `errors` < `from_python`).

use crate::errors::cuecard_error;
use crate::to_python::to_python;
use cuecard::api::{HostNode, HostReadError, HostValue};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde::Serialize;

/// A Python object read as JSON-like data.
pub struct PyData<'py>(pub Bound<'py, PyAny>);

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| "object".to_string(), |n| n.to_string())
}

impl HostValue for PyData<'_> {
    fn read(&self) -> Result<HostNode<Self>, HostReadError> {
        let value = &self.0;
        if value.is_none() {
            return Ok(HostNode::Null);
        }
        // bool before int: a Python bool is an int.
        if let Ok(b) = value.cast::<PyBool>() {
            return Ok(HostNode::Bool(b.is_true()));
        }
        if let Ok(i) = value.cast::<PyInt>() {
            if let Ok(small) = i.extract::<i64>() {
                return Ok(HostNode::Int(small));
            }
            return i.extract::<u64>().map(HostNode::UInt).map_err(|_| HostReadError::IntegerTooLarge(i.to_string()));
        }
        if let Ok(f) = value.cast::<PyFloat>() {
            return Ok(HostNode::Float(f.value()));
        }
        if let Ok(s) = value.cast::<PyString>() {
            // A lone surrogate cannot be encoded as UTF-8.
            return s
                .to_cow()
                .map(|t| HostNode::Str(t.into_owned()))
                .map_err(|e| HostReadError::InvalidText(e.to_string()));
        }
        if let Ok(list) = value.cast::<PyList>() {
            return Ok(HostNode::List(list.iter().map(PyData).collect()));
        }
        if let Ok(tuple) = value.cast::<PyTuple>() {
            return Ok(HostNode::List(tuple.iter().map(PyData).collect()));
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            return map_entries(dict.iter());
        }
        if let Ok(mapping) = value.cast::<PyMapping>() {
            let items = mapping.items().map_err(|e| HostReadError::Host(e.to_string()))?;
            let pairs: Vec<(Bound<'_, PyAny>, Bound<'_, PyAny>)> =
                items.iter().filter_map(|item| item.extract().ok()).collect();
            return map_entries(pairs.into_iter());
        }
        Err(HostReadError::NotJson(type_name(value)))
    }

    fn identity(&self) -> Option<usize> {
        Some(self.0.as_ptr() as usize)
    }
}

fn map_entries<'py>(
    entries: impl Iterator<Item = (Bound<'py, PyAny>, Bound<'py, PyAny>)>,
) -> Result<HostNode<PyData<'py>>, HostReadError> {
    let mut out = Vec::new();
    for (key, value) in entries {
        let key = match key.cast::<PyString>() {
            Ok(k) => k.to_cow().map_err(|e| HostReadError::InvalidText(e.to_string()))?.into_owned(),
            Err(_) => return Err(HostReadError::KeyNotText(type_name(&key))),
        };
        out.push((key, PyData(value)));
    }
    Ok(HostNode::Map(out))
}

/// JSON data from the Python argument `argument`; data that is not JSON-like is a typed error naming it.
pub fn json_of(value: &Bound<'_, PyAny>, argument: &str) -> PyResult<serde_json::Value> {
    cuecard::api::to_json(&PyData(value.clone()), argument).map_err(|e| cuecard_error(value.py(), &e))
}

/// Serde data from the Python argument `argument` (JSON-like data checked first, then the type's own rules).
pub fn data_of<T: serde::de::DeserializeOwned>(value: &Bound<'_, PyAny>, argument: &str) -> PyResult<T> {
    cuecard::api::from_host(&PyData(value.clone()), argument).map_err(|e| cuecard_error(value.py(), &e))
}

/// A Python object from serde data.
pub fn to_py<T: Serialize + ?Sized>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let cannot = |e: PyErr| {
        let error = cuecard::Error::new(cuecard::ErrorKind::Internal, format!("cannot convert to Python: {e}"));
        cuecard_error(py, &error)
    };
    let object = to_python(py, value).map_err(cannot)?;
    #[cfg(feature = "testing")]
    same_as_pythonize(py, value, &object)?;
    Ok(object.unbind())
}

/// The test wheel checks every conversion against pythonize, the library `to_python` replaced: the same objects of
/// the same types in the same order (their `repr`s are equal), or an `AssertionError` naming both.
#[cfg(feature = "testing")]
fn same_as_pythonize<T: Serialize + ?Sized>(py: Python<'_>, value: &T, ours: &Bound<'_, PyAny>) -> PyResult<()> {
    let reference = pythonize::pythonize(py, value)
        .map_err(|e| pyo3::exceptions::PyAssertionError::new_err(format!("pythonize failed: {e}")))?;
    let (ours, theirs) = (ours.repr()?.to_string(), reference.repr()?.to_string());
    if ours != theirs {
        return Err(pyo3::exceptions::PyAssertionError::new_err(format!(
            "to_python made {ours}, pythonize makes {theirs}"
        )));
    }
    Ok(())
}
