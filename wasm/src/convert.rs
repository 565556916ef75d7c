//! JS values -> cuecard's data, through the core's one walker (`cuecard::api::to_json`) with its depth, cycle and
//! NaN limits; this file only says how to read one JS value, with `js_sys`, exactly as the napi addon reads it
//! with N-API (`node/src/convert.rs`): plain objects and arrays, own enumerable string keys, `undefined`
//! properties left out, instances of built-in classes (a `Map` must not read as `{}`) refused, text decoded
//! strictly from UTF-16. Core data goes back as JSON text that the package's JS parses.

use crate::errors::Fallible;
use cuecard::api::host_data::JS_NOT_DATA_CLASSES;
use cuecard::api::{HostNode, HostReadError, HostValue};
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};

/// A JS value read as JSON-like data.
pub struct JsData(JsValue);

fn text(value: &JsValue) -> Result<String, HostReadError> {
    let string: &js_sys::JsString = value.unchecked_ref();
    // A lone surrogate would become U+FFFD silently in the usual conversion.
    if !string.is_valid_utf16() {
        return Err(HostReadError::lone_surrogate());
    }
    Ok(String::from(string))
}

fn number(value: &JsValue) -> HostNode<JsData> {
    HostNode::from_js_number(value.as_f64().unwrap_or(f64::NAN))
}

fn bigint(value: &JsValue) -> Result<HostNode<JsData>, HostReadError> {
    let digits = String::from(value.unchecked_ref::<js_sys::BigInt>().to_string(10).unwrap_or_default());
    if let Ok(signed) = digits.parse::<i64>() {
        return Ok(HostNode::Int(signed));
    }
    if let Ok(unsigned) = digits.parse::<u64>() {
        return Ok(HostNode::UInt(unsigned));
    }
    Err(HostReadError::IntegerTooLarge("a BigInt".into()))
}

/// `prototype.constructor.name`, when it is a text.
fn constructor_name(prototype: &JsValue) -> Option<String> {
    let constructor = js_sys::Reflect::get(prototype, &JsValue::from_str("constructor")).ok()?;
    let name = js_sys::Reflect::get(&constructor, &JsValue::from_str("name")).ok()?;
    name.as_string()
}

fn object(value: &JsValue) -> Result<HostNode<JsData>, HostReadError> {
    if js_sys::Array::is_array(value) {
        let array: &js_sys::Array = value.unchecked_ref();
        return Ok(HostNode::List(array.iter().map(JsData).collect()));
    }
    let object: &js_sys::Object = value.unchecked_ref();
    let prototype: JsValue = js_sys::Object::get_prototype_of(value).into();
    let plain =
        prototype.is_null() || prototype == JsValue::from(js_sys::Object::get_prototype_of(&js_sys::Object::new()));
    if !plain {
        let name = constructor_name(&prototype).unwrap_or_else(|| "object".into());
        if JS_NOT_DATA_CLASSES.contains(&name.as_str()) {
            return Err(HostReadError::NotJson(name));
        }
    }
    // Own enumerable string keys, as JSON.stringify reads them; `undefined` values are left out like there.
    let mut entries = Vec::new();
    for key in js_sys::Object::keys(object).iter() {
        let item =
            js_sys::Reflect::get(value, &key).map_err(|_| HostReadError::Host("reading a property threw".into()))?;
        if item.is_undefined() {
            continue;
        }
        entries.push((text(&key)?, JsData(item)));
    }
    Ok(HostNode::Map(entries))
}

impl HostValue for JsData {
    fn read(&self) -> Result<HostNode<Self>, HostReadError> {
        let value = &self.0;
        if value.is_undefined() || value.is_null() {
            Ok(HostNode::Null)
        } else if let Some(b) = value.as_bool() {
            Ok(HostNode::Bool(b))
        } else if value.as_f64().is_some() {
            Ok(number(value))
        } else if value.is_bigint() {
            bigint(value)
        } else if value.is_string() {
            text(value).map(HostNode::Str)
        } else if value.is_function() {
            Err(HostReadError::NotJson("function".into()))
        } else if value.is_symbol() {
            Err(HostReadError::NotJson("symbol".into()))
        } else if value.is_object() {
            object(value)
        } else {
            Err(HostReadError::NotJson("external".into()))
        }
    }

    fn same_container(&self, other: &Self) -> bool {
        js_sys::Object::is(&self.0, &other.0)
    }
}

/// JSON data from the JS argument `argument`, or the typed error (for values whose errors belong to someone
/// else: what a computed answer returned is the callback's failure).
pub fn read_json(value: &JsValue, argument: &str) -> cuecard::Result<serde_json::Value> {
    cuecard::api::to_json(&JsData(value.clone()), argument)
}

/// JSON data from the JS argument `argument`; data that is not JSON-like is a typed error naming it.
pub fn json_of(value: &JsValue, argument: &str) -> Result<serde_json::Value, JsValue> {
    read_json(value, argument).or_throw()
}

/// A core type from the JS argument `argument`, naming the path of the first offending field.
pub fn data_of<T: DeserializeOwned>(value: &JsValue, argument: &str) -> Result<T, JsValue> {
    cuecard::api::data_from_json(json_of(value, argument)?, argument).or_throw()
}

/// Core data as JSON text (it always serializes).
pub fn json_text(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
