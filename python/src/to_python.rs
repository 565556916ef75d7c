//! Core data -> Python objects, through serde: structs and maps become dicts, sequences lists, tuples tuples, unit
//! variants their names, newtype/tuple/struct variants one-key dicts, `None` and unit `None`: pythonize's mapping,
//! which this replaced. The test wheel checks every conversion of the whole Python suite against pythonize
//! (`from_python::same_as_pythonize`).
//!
//! Why not pythonize: it makes a new Python string for every struct field name and Python then hashes it on
//! insertion, about a sixth of `MockModel.chat`'s instructions for a plain answer. Here each field and variant name
//! becomes one interned Python string, made once per process and reused (`name`); so do short map keys, up to a
//! bound (`map_key`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{LazyLock, Mutex, PoisonError};

/// A Python object from serde data.
pub fn to_python<'py, T: Serialize + ?Sized>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPython { py, map_key: false }).map_err(|e| e.0)
}

/// The failure of a conversion: Python's own error, or a type's `Serialize` refusing (serde's `custom`).
#[derive(Debug)]
pub struct ToPythonError(PyErr);

impl fmt::Display for ToPythonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for ToPythonError {}

impl ser::Error for ToPythonError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        ToPythonError(PyValueError::new_err(message.to_string()))
    }
}

impl From<PyErr> for ToPythonError {
    fn from(error: PyErr) -> Self {
        ToPythonError(error)
    }
}

type Result<T> = std::result::Result<T, ToPythonError>;

/// FNV-style hashing of a short name, cheaper than the default SipHash (the names are ours, not an attacker's: the
/// cache stops growing at `KEPT_KEYS`).
#[derive(Default)]
struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        // Multiplying spreads the low bits into the high ones, which the hash table reads first.
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01B3);
        }
    }
}

/// Map keys longer than this are made each time: the names worth keeping are short.
const KEPT_KEY_BYTES: usize = 32;
/// At most this many map keys are kept, so keys from user data (metadata, tool schemas) cannot grow it forever.
const KEPT_KEYS: usize = 1024;

/// The interned Python string of each name seen: every struct field and variant name (a bounded set, fixed at
/// compile time), and the first `KEPT_KEYS` short map keys (flattened structs such as a stream event's timing are
/// written as maps). Never dropped (a static), so the strings outlive every interpreter call; the lock is held only
/// to look up or insert, never across Python code.
static NAMES: LazyLock<Mutex<Names>> = LazyLock::new(Default::default);

type Names = HashMap<Box<str>, Py<PyString>, BuildHasherDefault<NameHasher>>;

/// The Python string of a field or variant name, made once.
fn name<'py>(py: Python<'py>, text: &str) -> Bound<'py, PyString> {
    kept_name(py, text, true)
}

/// The Python string of a map key: made once if short and there is room, else made anew.
fn map_key<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    if key.len() > KEPT_KEY_BYTES {
        return PyString::new(py, key);
    }
    kept_name(py, key, false)
}

fn kept_name<'py>(py: Python<'py>, text: &str, always: bool) -> Bound<'py, PyString> {
    if let Some(known) = NAMES.lock().unwrap_or_else(PoisonError::into_inner).get(text) {
        return known.bind(py).clone();
    }
    // Made outside the lock: making a string can run the garbage collector, and so any Python code.
    let made = PyString::intern(py, text);
    let mut names = NAMES.lock().unwrap_or_else(PoisonError::into_inner);
    if always || names.len() < KEPT_KEYS {
        names.entry(text.into()).or_insert_with(|| made.clone().unbind());
    }
    made
}

/// A dict with one entry, `{variant: value}`: how a variant with data is written.
fn variant_dict<'py>(py: Python<'py>, variant: &'static str, value: Bound<'py, PyAny>) -> Result<Bound<'py, PyAny>> {
    let dict = PyDict::new(py);
    dict.set_item(name(py, variant), value)?;
    Ok(dict.into_any())
}

#[derive(Clone, Copy)]
struct ToPython<'py> {
    py: Python<'py>,
    /// Writing a map's key (a string key is then kept, `map_key`).
    map_key: bool,
}

impl<'py> ToPython<'py> {
    fn object<T: IntoPyObject<'py>>(self, value: T) -> Result<Bound<'py, PyAny>> {
        Ok(value.into_bound_py_any(self.py)?)
    }
}

impl<'py> ser::Serializer for ToPython<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    type SerializeSeq = Items<'py>;
    type SerializeTuple = Items<'py>;
    type SerializeTupleStruct = Items<'py>;
    type SerializeTupleVariant = Items<'py>;
    type SerializeMap = Entries<'py>;
    type SerializeStruct = Entries<'py>;
    type SerializeStructVariant = Entries<'py>;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_i128(self, v: i128) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_u128(self, v: u128) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok> {
        self.object(v)
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok> {
        if self.map_key {
            return Ok(map_key(self.py, v).into_any());
        }
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok> {
        Ok(PyBytes::new(self.py, v).into_any())
    }
    fn serialize_none(self) -> Result<Self::Ok> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result<Self::Ok> {
        Ok(name(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _name: &'static str, value: &T) -> Result<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok> {
        variant_dict(self.py, variant, value.serialize(self)?)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<'py>> {
        Ok(Items { py: self.py, items: Vec::with_capacity(len.unwrap_or(0)), variant: None })
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<'py>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Items<'py>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<'py>> {
        Ok(Items { py: self.py, items: Vec::with_capacity(len), variant: Some(variant) })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Entries<'py>> {
        Ok(Entries { py: self.py, dict: PyDict::new(self.py), key: None, variant: None })
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Entries<'py>> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Entries<'py>> {
        Ok(Entries { py: self.py, dict: PyDict::new(self.py), key: None, variant: Some(variant) })
    }
}

/// A sequence's items: a list, or a tuple for tuples and tuple structs, or `{variant: tuple}`.
pub struct Items<'py> {
    py: Python<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Items<'py> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.items.push(value.serialize(ToPython { py: self.py, map_key: false })?);
        Ok(())
    }

    fn tuple(self) -> Result<Bound<'py, PyAny>> {
        let tuple = PyTuple::new(self.py, self.items)?.into_any();
        match self.variant {
            Some(variant) => variant_dict(self.py, variant, tuple),
            None => Ok(tuple),
        }
    }
}

impl<'py> ser::SerializeSeq for Items<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok> {
        Ok(PyList::new(self.py, self.items)?.into_any())
    }
}

impl<'py> ser::SerializeTuple for Items<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.tuple()
    }
}

impl<'py> ser::SerializeTupleStruct for Items<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.tuple()
    }
}

impl<'py> ser::SerializeTupleVariant for Items<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.tuple()
    }
}

/// A map's or struct's entries, in one dict (or `{variant: dict}` for a struct variant).
pub struct Entries<'py> {
    py: Python<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Entries<'py> {
    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        let value = value.serialize(ToPython { py: self.py, map_key: false })?;
        self.dict.set_item(name(self.py, key), value)?;
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>> {
        match self.variant {
            Some(variant) => variant_dict(self.py, variant, self.dict.into_any()),
            None => Ok(self.dict.into_any()),
        }
    }
}

impl<'py> ser::SerializeMap for Entries<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(ToPython { py: self.py, map_key: true })?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key =
            self.key.take().ok_or_else(|| <ToPythonError as ser::Error>::custom("a map value came before its key"))?;
        self.dict.set_item(key, value.serialize(ToPython { py: self.py, map_key: false })?)?;
        Ok(())
    }
    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'py> ser::SerializeStruct for Entries<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}

impl<'py> ser::SerializeStructVariant for Entries<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = ToPythonError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        self.field(key, value)
    }
    fn end(self) -> Result<Self::Ok> {
        self.finish()
    }
}
