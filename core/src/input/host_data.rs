//! Host data into JSON, with the limits every binding inherits: nesting deeper than [`MAX_DEPTH`] levels, a
//! container that contains itself, NaN or an infinity, a non-text key, and text that is not valid Unicode are
//! refused with a typed error that names the argument and the path inside it.
//!
//! A binding implements [`HostValue`] for its own values (a Python object, a JS value) and calls [`to_json`], or
//! [`super::host_read::from_host`] for a core type (the same result, without the JSON between); it never walks host
//! data itself. Without these limits, 20,000 nested dicts or a list that contains itself
//! crashed the Python interpreter, and NaN silently became `null`.

use crate::error::{Error, ErrorKind, Result};
use serde_json::{Map, Number, Value};

/// The deepest nesting accepted, in every binding and on the wire.
pub const MAX_DEPTH: usize = 128;

/// One host value, read one level deep: a leaf, or a container with its children still as host values.
#[derive(Debug, PartialEq)]
pub enum HostNode<H> {
    /// `None` / `null` / `undefined`.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer that fits in i64.
    Int(i64),
    /// A non-negative integer above i64::MAX that fits in u64.
    UInt(u64),
    /// A float (NaN and infinities are refused by [`to_json`]).
    Float(f64),
    /// Text.
    Str(String),
    /// A list, tuple or array.
    List(Vec<H>),
    /// A dict or object whose keys are text.
    Map(Vec<(String, H)>),
}

impl<H> HostNode<H> {
    /// A JavaScript number (JS has one number type): integral values within the exact range (±2^53) are integers,
    /// as `JSON.stringify` writes them; others are floats. Every JS binding (napi, wasm) reads numbers this way.
    pub fn from_js_number(value: f64) -> HostNode<H> {
        const EXACT: f64 = 9_007_199_254_740_992.0;
        if value.fract() == 0.0 && value.abs() <= EXACT {
            HostNode::Int(value as i64)
        } else {
            HostNode::Float(value)
        }
    }
}

/// JavaScript's built-in classes whose instances are objects but not JSON-like data: a `Map` has no enumerable
/// properties and must not read as `{}`. A JS binding refuses an object whose constructor has one of these names.
pub const JS_NOT_DATA_CLASSES: &[&str] = &[
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "WeakRef",
    "RegExp",
    "Date",
    "Promise",
    "Error",
    "ArrayBuffer",
    "SharedArrayBuffer",
    "DataView",
    "Buffer",
    "Uint8Array",
    "Int8Array",
    "Uint16Array",
    "Int16Array",
    "Uint32Array",
    "Int32Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
];

/// Text read as UTF-16 code units, strictly: a lone surrogate is an error (the hosts' own UTF-8 conversions turn
/// it into U+FFFD silently).
pub fn text_from_utf16(units: &[u16]) -> std::result::Result<String, HostReadError> {
    String::from_utf16(units).map_err(|_| HostReadError::lone_surrogate())
}

impl HostReadError {
    /// Text holding a lone UTF-16 surrogate (not valid Unicode).
    pub fn lone_surrogate() -> HostReadError {
        HostReadError::InvalidText("it holds a lone UTF-16 surrogate".into())
    }
}

/// Why a host value could not be read as JSON-like data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostReadError {
    /// Not JSON-like: the host's name of its type (`set`, `function`, `MyClass`).
    NotJson(String),
    /// Text that is not valid Unicode (a lone surrogate), with the host's explanation.
    InvalidText(String),
    /// An integer outside the range of i64 and u64.
    IntegerTooLarge(String),
    /// A map key that is not text: the key's host type.
    KeyNotText(String),
    /// The host failed while reading the value (an exception from a custom mapping).
    Host(String),
}

/// A value of the host language that can be read as JSON-like data.
pub trait HostValue: Sized {
    /// The value, one level deep.
    fn read(&self) -> std::result::Result<HostNode<Self>, HostReadError>;

    /// A stable identity of a container (its address), to detect a container that contains itself. Hosts that
    /// cannot tell return `None`; the depth limit still stops such data, with a less precise message.
    fn identity(&self) -> Option<usize> {
        None
    }

    /// Whether `self` and `other` are the same container, for hosts whose values have no stable address (a JS
    /// handle): asked only when [`HostValue::identity`] is `None`, of each container on the current path.
    fn same_container(&self, _other: &Self) -> bool {
        false
    }
}

/// The containers on the path to the value being converted, innermost first.
struct Ancestor<'a, H> {
    value: &'a H,
    parent: Option<&'a Ancestor<'a, H>>,
}

/// A core type (settings, a failure, a route...) from host data already made JSON: a field that does not fit is
/// `invalid_argument` naming the argument and the path of the field, the same message in every binding.
pub fn data_from_json<T: serde::de::DeserializeOwned>(json: Value, argument: &str) -> Result<T> {
    super::strict::deserialize_data(&json).map_err(|e| {
        let at = e.location();
        crate::error::Error::new(ErrorKind::InvalidArgument, format!("invalid {argument}{at}: {}", e.message))
            .with_context("argument", argument)
            .with_context("path", e.path)
    })
}

/// Converts the host value given as the parameter `argument` into JSON, enforcing the limits.
pub fn to_json<H: HostValue>(value: &H, argument: &str) -> Result<Value> {
    let mut walker = Walker { argument, path: Vec::new(), open: Vec::new() };
    walker.convert(value, None)
}

enum Segment {
    Index(usize),
    Key(String),
}

struct Walker<'a> {
    argument: &'a str,
    path: Vec<Segment>,
    /// Identities of the containers on the current path.
    open: Vec<usize>,
}

impl Walker<'_> {
    fn path(&self) -> String {
        let mut out = String::new();
        for segment in &self.path {
            match segment {
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
                Segment::Key(k) if out.is_empty() => out.push_str(k),
                Segment::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
            }
        }
        out
    }

    fn error(&self, kind: ErrorKind, problem: &str) -> Error {
        let path = self.path();
        let at = if path.is_empty() { String::new() } else { format!(" at {path}") };
        Error::new(kind, format!("invalid {}{at}: {problem}", self.argument))
            .with_context("argument", self.argument)
            .with_context("path", path)
    }

    fn convert<H: HostValue>(&mut self, value: &H, ancestors: Option<&Ancestor<'_, H>>) -> Result<Value> {
        let node = value.read().map_err(|e| match e {
            HostReadError::NotJson(type_name) => self.error(
                ErrorKind::InvalidArgument,
                &format!(
                    "expected JSON-like data (a dict/object, list, text, number, boolean or null), found {type_name}"
                ),
            ),
            HostReadError::InvalidText(why) => {
                self.error(ErrorKind::InvalidUtf8, &format!("the text is not valid Unicode: {why}"))
            }
            HostReadError::IntegerTooLarge(shown) => {
                self.error(ErrorKind::InvalidArgument, &format!("the integer {shown} does not fit in 64 bits"))
            }
            HostReadError::KeyNotText(type_name) => {
                self.error(ErrorKind::InvalidArgument, &format!("keys must be text, found a key of type {type_name}"))
            }
            HostReadError::Host(message) => self.error(ErrorKind::InvalidArgument, &message),
        })?;
        Ok(match node {
            HostNode::Null => Value::Null,
            HostNode::Bool(b) => Value::Bool(b),
            HostNode::Int(i) => Value::from(i),
            HostNode::UInt(u) => Value::from(u),
            HostNode::Float(f) => match Number::from_f64(f) {
                Some(n) => Value::Number(n),
                None => return Err(self.error(ErrorKind::InvalidArgument, &format!("{f} is not a JSON number"))),
            },
            HostNode::Str(s) => Value::String(s),
            HostNode::List(items) => {
                self.enter(value, ancestors)?;
                let here = Ancestor { value, parent: ancestors };
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    self.path.push(Segment::Index(i));
                    out.push(self.convert(item, Some(&here))?);
                    self.path.pop();
                }
                self.leave(value);
                Value::Array(out)
            }
            HostNode::Map(entries) => {
                self.enter(value, ancestors)?;
                let here = Ancestor { value, parent: ancestors };
                let mut out = Map::new();
                for (key, item) in entries {
                    // The key goes onto the path (for an error's message) and comes back off it into the object:
                    // moved both ways, never copied (two allocations per key were a tenth of a call's walk).
                    self.path.push(Segment::Key(key));
                    let converted = self.convert(&item, Some(&here))?;
                    let Some(Segment::Key(key)) = self.path.pop() else {
                        return Err(self.error(ErrorKind::Internal, "the path lost its key"));
                    };
                    out.insert(key, converted);
                }
                self.leave(value);
                Value::Object(out)
            }
        })
    }

    fn enter<H: HostValue>(&mut self, container: &H, ancestors: Option<&Ancestor<'_, H>>) -> Result<()> {
        let cycle = || self.error(ErrorKind::InvalidArgument, "the data contains itself (a cycle)");
        if let Some(id) = container.identity() {
            if self.open.contains(&id) {
                return Err(cycle());
            }
            self.open.push(id);
        } else {
            let mut next = ancestors;
            while let Some(ancestor) = next {
                if ancestor.value.same_container(container) {
                    return Err(cycle());
                }
                next = ancestor.parent;
            }
            self.open.push(usize::MAX);
        }
        if self.open.len() > MAX_DEPTH {
            return Err(self.error(ErrorKind::InvalidArgument, &format!("nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn leave<H: HostValue>(&mut self, _container: &H) {
        self.open.pop();
    }
}

/// The bytes `check_text_depth` must look at, by what it is inside: outside strings, one that opens a string or a
/// flow collection, closes one, or ends a line; in a double-quoted string its quote, an escape or a line end; in a
/// single-quoted one its quote or a line end.
const PLAIN_STOPS: [bool; 256] = stops(b"\"'[]{}\n");
const DOUBLE_QUOTED_STOPS: [bool; 256] = stops(b"\"\\\n");
const SINGLE_QUOTED_STOPS: [bool; 256] = stops(b"'\n");

#[allow(clippy::indexing_slicing)] // `i` is below the length, and a byte below 256
const fn stops(bytes: &[u8]) -> [bool; 256] {
    let mut table = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
}

/// Refuses a JSON or YAML text nested deeper than `max` levels, before a parser sees it (parsers recurse, and
/// YAML's cost grows with the square of the depth). Counts brackets outside quoted strings, and for YAML block
/// style each indentation level and each `- ` that opens a sequence item. It errs towards counting too deep only
/// for texts far deeper than any scenario.
pub fn check_text_depth(text: &str, max: usize) -> std::result::Result<(), String> {
    scan_depth(text, max, true)
}

/// [`check_text_depth`]'s scan. `skip_runs` false steps through every byte: the reference its tests hold the
/// skipping scan to (the tables must stop at every byte the steps below look at).
fn scan_depth(text: &str, max: usize, skip_runs: bool) -> std::result::Result<(), String> {
    let too_deep = || format!("the document is nested deeper than {max} levels");
    // Flow depth: brackets outside strings.
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    // Block depth: a stack of indentation widths of the open block lines.
    let mut indents: Vec<usize> = Vec::new();
    let mut at_line_start = true;
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        // Runs of bytes that change nothing (most of a recording: long strings and answers) are skipped with a
        // table, not stepped through branch by branch: the check was a tenth of a 15 MB recording's load.
        if skip_runs && !escaped && !at_line_start {
            let stops = match quote {
                None => &PLAIN_STOPS,
                Some(b'"') => &DOUBLE_QUOTED_STOPS,
                Some(_) => &SINGLE_QUOTED_STOPS,
            };
            let stop = |c: &u8| stops.get(usize::from(*c)).copied().unwrap_or(true);
            let run = bytes.get(i..).unwrap_or_default().iter().take_while(|c| !stop(c)).count();
            if run > 0 {
                i += run;
                continue;
            }
        }
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if b == b'\\' && q == b'"' {
                escaped = true;
            } else if b == q {
                quote = None;
            }
            if b == b'\n' && q == b'\'' {
                quote = None;
            }
            at_line_start = b == b'\n';
            i += 1;
            continue;
        }
        if at_line_start && depth == 0 {
            let mut leading = 0;
            while bytes.get(i + leading) == Some(&b' ') {
                leading += 1;
            }
            // Each "- " at the start of a line opens one more level ("- - - x" is three).
            let (mut dashes, mut at) = (0, i + leading);
            while bytes.get(at) == Some(&b'-') && matches!(bytes.get(at + 1), Some(b' ' | b'\n')) {
                dashes += 1;
                at += 1;
                while bytes.get(at) == Some(&b' ') {
                    at += 1;
                }
            }
            if !matches!(bytes.get(at), None | Some(b'\n' | b'\r' | b'#')) {
                while indents.last().is_some_and(|&top| top >= leading) {
                    indents.pop();
                }
                indents.push(leading);
                // The first level is the document itself.
                if indents.len() - 1 + dashes > max {
                    return Err(too_deep());
                }
            }
        }
        at_line_start = b == b'\n';
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'[' | b'{' => {
                depth += 1;
                if depth + indents.len().saturating_sub(1) > max {
                    return Err(too_deep());
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::rc::Rc;

    proptest::proptest! {
        #[test]
        fn skipping_runs_decides_as_stepping_through_every_byte(
            text in "[-a \n\"'\\\\\\[\\]{}#:]{0,160}",
            max in 0usize..6,
        ) {
            // The byte-by-byte scan is the reference: skipping runs must decide as it does.
            proptest::prop_assert_eq!(check_text_depth(&text, max), scan_depth(&text, max, false));
        }
    }

    #[test]
    fn js_numbers_strict_utf16_and_the_classes_that_are_not_data() {
        assert_eq!(HostNode::<()>::from_js_number(3.0), HostNode::Int(3));
        assert_eq!(HostNode::<()>::from_js_number(-0.0), HostNode::Int(0));
        assert_eq!(HostNode::<()>::from_js_number(9_007_199_254_740_992.0), HostNode::Int(9_007_199_254_740_992));
        assert_eq!(HostNode::<()>::from_js_number(1e300), HostNode::Float(1e300));
        assert_eq!(HostNode::<()>::from_js_number(0.5), HostNode::Float(0.5));
        assert_eq!(text_from_utf16(&[0x48, 0x69]).unwrap(), "Hi");
        assert_eq!(text_from_utf16(&[0xD800]), Err(HostReadError::lone_surrogate()));
        assert!(JS_NOT_DATA_CLASSES.contains(&"Map") && JS_NOT_DATA_CLASSES.contains(&"Date"));
    }

    /// A test host: JSON values, plus shared nodes to build cycles and a type the host cannot convert.
    #[derive(Clone)]
    enum Fake {
        Json(Value),
        Float(f64),
        Set,
        Shared(Rc<std::cell::RefCell<Vec<Fake>>>),
        Nested(usize),
    }

    impl HostValue for Fake {
        fn read(&self) -> std::result::Result<HostNode<Fake>, HostReadError> {
            Ok(match self {
                Fake::Json(Value::Null) => HostNode::Null,
                Fake::Json(Value::Bool(b)) => HostNode::Bool(*b),
                Fake::Json(Value::Number(n)) => HostNode::Int(n.as_i64().unwrap_or(0)),
                Fake::Json(Value::String(s)) => HostNode::Str(s.clone()),
                Fake::Json(Value::Array(a)) => HostNode::List(a.iter().cloned().map(Fake::Json).collect()),
                Fake::Json(Value::Object(o)) => {
                    HostNode::Map(o.iter().map(|(k, v)| (k.clone(), Fake::Json(v.clone()))).collect())
                }
                Fake::Float(f) => HostNode::Float(*f),
                Fake::Set => return Err(HostReadError::NotJson("set".into())),
                Fake::Shared(items) => HostNode::List(items.borrow().clone()),
                Fake::Nested(0) => HostNode::Null,
                Fake::Nested(n) => HostNode::Map(vec![("a".into(), Fake::Nested(n - 1))]),
            })
        }

        fn identity(&self) -> Option<usize> {
            match self {
                Fake::Shared(items) => Some(Rc::as_ptr(items) as usize),
                _ => None,
            }
        }
    }

    #[test]
    fn json_like_data_converts_and_the_rest_is_refused_with_its_path() {
        let value = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        assert_eq!(to_json(&Fake::Json(value.clone()), "request").unwrap(), value);
        let err = to_json(&Fake::Float(f64::NAN), "request").unwrap_err();
        assert_eq!((err.code(), err.message()), ("invalid_argument", "invalid request: NaN is not a JSON number"));
        let err = to_json(&Fake::Set, "result").unwrap_err();
        assert!(err.message().contains("found set"), "{err}");
    }

    #[test]
    fn depth_and_cycles_are_refused() {
        assert!(to_json(&Fake::Nested(MAX_DEPTH), "request").is_ok());
        let err = to_json(&Fake::Nested(20_000), "request").unwrap_err();
        assert!(err.message().contains("nested deeper than 128 levels"), "{err}");
        assert!(err.context()["path"].as_str().unwrap().starts_with("a.a.a"));
        let shared = Rc::new(std::cell::RefCell::new(Vec::new()));
        shared.borrow_mut().push(Fake::Json(json!(1)));
        shared.borrow_mut().push(Fake::Shared(shared.clone()));
        let err = to_json(&Fake::Shared(shared.clone()), "request").unwrap_err();
        assert_eq!(err.message(), "invalid request at [1]: the data contains itself (a cycle)");
        shared.borrow_mut().clear(); // break the Rc cycle
    }

    /// A host without addresses (like JS handles): a shared list compared by `same_container` only.
    struct Handle(Rc<std::cell::RefCell<Vec<Handle>>>);

    impl HostValue for Handle {
        fn read(&self) -> std::result::Result<HostNode<Handle>, HostReadError> {
            Ok(HostNode::List(self.0.borrow().iter().map(|h| Handle(h.0.clone())).collect()))
        }

        fn same_container(&self, other: &Handle) -> bool {
            Rc::ptr_eq(&self.0, &other.0)
        }
    }

    #[test]
    fn a_host_without_addresses_still_has_its_cycles_named() {
        let inner = Rc::new(std::cell::RefCell::new(Vec::new()));
        let outer = Rc::new(std::cell::RefCell::new(vec![Handle(inner.clone())]));
        // The same list twice side by side is not a cycle.
        inner.borrow_mut().push(Handle(Rc::new(std::cell::RefCell::new(Vec::new()))));
        outer.borrow_mut().push(Handle(inner.clone()));
        assert_eq!(to_json(&Handle(outer.clone()), "data").unwrap(), json!([[[]], [[]]]));
        inner.borrow_mut().push(Handle(outer.clone()));
        let err = to_json(&Handle(outer.clone()), "data").unwrap_err();
        assert_eq!(err.message(), "invalid data at [0][1]: the data contains itself (a cycle)");
        inner.borrow_mut().clear(); // break the Rc cycle
    }

    #[test]
    fn text_depth_counts_brackets_and_yaml_blocks() {
        assert!(check_text_depth(r#"{"a": [1, {"b": "[[[[["}]}"#, 3).is_ok());
        assert!(check_text_depth(&"[".repeat(129), 128).is_err());
        let yaml: String = (0..140).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        assert!(check_text_depth(&yaml, 128).is_err());
        assert!(check_text_depth(&format!("{}x", "- ".repeat(140)), 128).is_err());
        let shallow = "cuecard: 1\nroutes:\n  - match: {operation: x}\n    steps:\n      - text: hi\n      - fail:\n          kind: timeout\n";
        assert!(check_text_depth(shallow, 5).is_ok());
    }
}
