//! JS values -> cuecard's data. JS data becomes JSON through the core's one walker (`cuecard::api::to_json`),
//! which enforces the depth, cycle and NaN limits; this file only says how to read one JS value (`HostValue`),
//! with raw N-API calls. Core data goes back to JS as JSON text that the package's JS parses (`JSON.parse` is
//! faster than building objects property by property through N-API).

use crate::errors::{throw, Fallible};
use cuecard::api::host_data::JS_NOT_DATA_CLASSES;
use cuecard::api::{HostNode, HostReadError, HostValue};
use napi::sys;
use napi::{Env, Unknown};
use std::ptr;

/// What every read of one conversion shares: the environment and `Object.prototype`, to tell plain objects
/// from instances of built-in classes (a `Map` has no enumerable properties and must not read as `{}`).
struct Context {
    env: sys::napi_env,
    object_prototype: sys::napi_value,
}

/// A JS value read as JSON-like data.
pub struct JsData<'a> {
    context: &'a Context,
    value: sys::napi_value,
}

fn ok(status: sys::napi_status) -> Result<(), HostReadError> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        // A pending exception from a getter is the usual cause; it is cleared and reported by the caller.
        Err(HostReadError::Host(format!("reading the value failed (N-API status {status})")))
    }
}

impl JsData<'_> {
    fn child(&self, value: sys::napi_value) -> Self {
        JsData { context: self.context, value }
    }

    fn env(&self) -> sys::napi_env {
        self.context.env
    }

    fn value_type(&self, value: sys::napi_value) -> Result<sys::napi_valuetype, HostReadError> {
        let mut kind = 0;
        ok(unsafe { sys::napi_typeof(self.env(), value, &mut kind) })?;
        Ok(kind)
    }

    fn text(&self, value: sys::napi_value) -> Result<String, HostReadError> {
        // UTF-16 and a strict decode: N-API's UTF-8 read would turn a lone surrogate into U+FFFD silently.
        let mut len = 0usize;
        ok(unsafe { sys::napi_get_value_string_utf16(self.env(), value, ptr::null_mut(), 0, &mut len) })?;
        let mut units = vec![0u16; len + 1];
        let mut written = 0usize;
        ok(unsafe {
            sys::napi_get_value_string_utf16(self.env(), value, units.as_mut_ptr(), units.len(), &mut written)
        })?;
        units.truncate(written);
        cuecard::api::host_data::text_from_utf16(&units)
    }

    fn number(&self) -> Result<HostNode<Self>, HostReadError> {
        let mut f = 0f64;
        ok(unsafe { sys::napi_get_value_double(self.env(), self.value, &mut f) })?;
        Ok(HostNode::from_js_number(f))
    }

    fn bigint(&self) -> Result<HostNode<Self>, HostReadError> {
        let mut signed = 0i64;
        let mut lossless = false;
        ok(unsafe { sys::napi_get_value_bigint_int64(self.env(), self.value, &mut signed, &mut lossless) })?;
        if lossless {
            return Ok(HostNode::Int(signed));
        }
        let mut unsigned = 0u64;
        ok(unsafe { sys::napi_get_value_bigint_uint64(self.env(), self.value, &mut unsigned, &mut lossless) })?;
        if lossless {
            return Ok(HostNode::UInt(unsigned));
        }
        Err(HostReadError::IntegerTooLarge("a BigInt".into()))
    }

    fn object(&self) -> Result<HostNode<Self>, HostReadError> {
        let env = self.env();
        let mut is_array = false;
        ok(unsafe { sys::napi_is_array(env, self.value, &mut is_array) })?;
        if is_array {
            let mut len = 0u32;
            ok(unsafe { sys::napi_get_array_length(env, self.value, &mut len) })?;
            let mut items = Vec::with_capacity(len as usize);
            for i in 0..len {
                let mut item = ptr::null_mut();
                ok(unsafe { sys::napi_get_element(env, self.value, i, &mut item) })?;
                items.push(self.child(item));
            }
            return Ok(HostNode::List(items));
        }
        let mut prototype = ptr::null_mut();
        ok(unsafe { sys::napi_get_prototype(env, self.value, &mut prototype) })?;
        let mut plain = false;
        ok(unsafe { sys::napi_strict_equals(env, prototype, self.context.object_prototype, &mut plain) })?;
        if !plain && self.value_type(prototype)? != sys::ValueType::napi_null {
            let name = self.constructor_name(prototype).unwrap_or_else(|| "object".into());
            if JS_NOT_DATA_CLASSES.contains(&name.as_str()) {
                return Err(HostReadError::NotJson(name));
            }
        }
        // Own enumerable string keys, as JSON.stringify reads them; `undefined` values are left out like there.
        let mut keys = ptr::null_mut();
        ok(unsafe {
            sys::napi_get_all_property_names(
                env,
                self.value,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::numbers_to_strings,
                &mut keys,
            )
        })?;
        let mut len = 0u32;
        ok(unsafe { sys::napi_get_array_length(env, keys, &mut len) })?;
        let mut entries = Vec::with_capacity(len as usize);
        for i in 0..len {
            let mut key = ptr::null_mut();
            ok(unsafe { sys::napi_get_element(env, keys, i, &mut key) })?;
            let mut item = ptr::null_mut();
            ok(unsafe { sys::napi_get_property(env, self.value, key, &mut item) })?;
            if self.value_type(item)? == sys::ValueType::napi_undefined {
                continue;
            }
            entries.push((self.text(key)?, self.child(item)));
        }
        Ok(HostNode::Map(entries))
    }

    /// `prototype.constructor.name`, when it is a text.
    fn constructor_name(&self, prototype: sys::napi_value) -> Option<String> {
        let env = self.env();
        let mut constructor = ptr::null_mut();
        let status = unsafe { sys::napi_get_named_property(env, prototype, c"constructor".as_ptr(), &mut constructor) };
        if status != sys::Status::napi_ok || self.value_type(constructor).ok()? != sys::ValueType::napi_function {
            return None;
        }
        let mut name = ptr::null_mut();
        let status = unsafe { sys::napi_get_named_property(env, constructor, c"name".as_ptr(), &mut name) };
        if status != sys::Status::napi_ok || self.value_type(name).ok()? != sys::ValueType::napi_string {
            return None;
        }
        self.text(name).ok()
    }
}

impl HostValue for JsData<'_> {
    fn read(&self) -> Result<HostNode<Self>, HostReadError> {
        match self.value_type(self.value)? {
            sys::ValueType::napi_undefined | sys::ValueType::napi_null => Ok(HostNode::Null),
            sys::ValueType::napi_boolean => {
                let mut b = false;
                ok(unsafe { sys::napi_get_value_bool(self.env(), self.value, &mut b) })?;
                Ok(HostNode::Bool(b))
            }
            sys::ValueType::napi_number => self.number(),
            sys::ValueType::napi_bigint => self.bigint(),
            sys::ValueType::napi_string => self.text(self.value).map(HostNode::Str),
            sys::ValueType::napi_object => self.object(),
            sys::ValueType::napi_function => Err(HostReadError::NotJson("function".into())),
            sys::ValueType::napi_symbol => Err(HostReadError::NotJson("symbol".into())),
            _ => Err(HostReadError::NotJson("external".into())),
        }
    }

    fn same_container(&self, other: &Self) -> bool {
        let mut same = false;
        let status = unsafe { sys::napi_strict_equals(self.env(), self.value, other.value, &mut same) };
        status == sys::Status::napi_ok && same
    }
}

fn object_prototype(env: sys::napi_env) -> napi::Result<sys::napi_value> {
    let mut global = ptr::null_mut();
    let mut object = ptr::null_mut();
    let mut prototype = ptr::null_mut();
    unsafe {
        napi::check_status!(sys::napi_get_global(env, &mut global))?;
        napi::check_status!(sys::napi_get_named_property(env, global, c"Object".as_ptr(), &mut object))?;
        napi::check_status!(sys::napi_get_named_property(env, object, c"prototype".as_ptr(), &mut prototype))?;
    }
    Ok(prototype)
}

/// JSON data from the JS argument `argument`; data that is not JSON-like is a typed error naming it.
pub fn json_of(env: &Env, value: &Unknown<'_>, argument: &str) -> napi::Result<serde_json::Value> {
    read_json(env, value, argument)?.or_throw(env)
}

/// Like [`json_of`], with the typed error returned rather than thrown (for values whose errors belong to
/// someone else: what a computed answer returned is the callback's failure).
pub fn read_json(env: &Env, value: &Unknown<'_>, argument: &str) -> napi::Result<cuecard::Result<serde_json::Value>> {
    use napi::JsValue;
    let raw_env = env.raw();
    let context = Context { env: raw_env, object_prototype: object_prototype(raw_env)? };
    let data = JsData { context: &context, value: value.value().value };
    let converted = cuecard::api::to_json(&data, argument);
    // A getter that threw left an exception pending: clear it, the typed error names the place instead.
    let mut pending = false;
    unsafe { sys::napi_is_exception_pending(raw_env, &mut pending) };
    if pending {
        let mut ignored = ptr::null_mut();
        unsafe { sys::napi_get_and_clear_last_exception(raw_env, &mut ignored) };
    }
    Ok(converted)
}

/// Serde data from the JS argument `argument` (JSON-like data checked first, then the type's own rules).
pub fn data_of<T: serde::de::DeserializeOwned>(env: &Env, value: &Unknown<'_>, argument: &str) -> napi::Result<T> {
    cuecard::api::data_from_json(json_of(env, value, argument)?, argument).or_throw(env)
}

/// Core data as JSON text for the package's JS to parse.
pub fn json_text<T: serde::Serialize + ?Sized>(env: &Env, value: &T) -> napi::Result<String> {
    serde_json::to_string(value).map_err(|e| {
        throw(env, &cuecard::Error::new(cuecard::ErrorKind::Internal, format!("cannot encode for JS: {e}")))
    })
}
