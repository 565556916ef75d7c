//! The boundary every export goes through: the panic guard, the error object, handles with a kind tag, and the
//! reading of C arguments (NULL, UTF-8, JSON) into Rust values with errors that name the argument.

use crate::errors::{cuecard_error, cuecard_status, invalid, Failure, Outcome};
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// Runs the body of an export: a panic becomes `CUECARD_STATUS_INTERNAL`, a failure its status; the error object
/// is written to `err` (when it is not NULL) only on failure.
pub(crate) fn guard(err: *mut *mut cuecard_error, body: impl FnOnce() -> Outcome) -> cuecard_status {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let message = format!("a bug in cuecard (please report it): {}", panic_message(payload.as_ref()));
        Err(Failure::Cuecard(cuecard::Error::new(cuecard::ErrorKind::Internal, message)))
    });
    match outcome {
        Ok(()) => cuecard_status::Ok,
        Err(failure) => {
            let error = cuecard_error::from_failure(failure);
            let status = error.status;
            if !err.is_null() {
                // SAFETY: the caller passes either NULL or a writable `cuecard_error *` slot.
                unsafe { *err = Box::into_raw(Box::new(error)) };
            }
            status
        }
    }
}

/// A handle's memory: a tag saying its kind, then the value. Handles are allocated as this and cast to their
/// opaque C type, so a pointer to another kind of cuecard handle is recognised instead of misread.
#[repr(C)]
pub(crate) struct Handle<T> {
    tag: u64,
    pub value: T,
}

/// A kind of handle: its tag and its C name.
pub(crate) trait HandleKind: Sized {
    /// The opaque C type.
    type C;
    const TAG: u64;
    const NAME: &'static str;
}

/// Gives a value to C as a new handle. Caller owns it; the matching `_free` releases it.
pub(crate) fn into_handle<K: HandleKind>(value: K) -> *mut K::C {
    Box::into_raw(Box::new(Handle { tag: K::TAG, value })).cast()
}

fn kind_name(tag: u64) -> &'static str {
    crate::handle_names().iter().find(|(t, _)| *t == tag).map_or("something else", |(_, name)| *name)
}

/// Borrows the value of a handle argument; NULL or another kind of handle is `invalid_argument`.
///
/// # Safety
/// `pointer` is NULL or points to a live cuecard handle.
pub(crate) unsafe fn borrow<'a, K: HandleKind>(pointer: *const K::C, argument: &str) -> Outcome<&'a K> {
    if pointer.is_null() {
        return Err(invalid(argument, "is NULL"));
    }
    let handle = pointer.cast::<Handle<K>>();
    // SAFETY: every cuecard handle starts with its tag (`#[repr(C)]`), so the tag can be read whatever its kind.
    let tag = unsafe { std::ptr::addr_of!((*handle).tag).read() };
    if tag != K::TAG {
        return Err(invalid(argument, format!("is not a {} (it is {})", K::NAME, kind_name(tag))));
    }
    // SAFETY: the tag says the pointer is a `Handle<K>`.
    Ok(unsafe { &(*handle).value })
}

/// Releases a handle; NULL and handles of another kind are left alone.
///
/// # Safety
/// `pointer` is NULL or a handle from `into_handle` that is not used afterwards.
pub(crate) unsafe fn free_handle<K: HandleKind>(pointer: *mut K::C) {
    if pointer.is_null() {
        return;
    }
    let handle = pointer.cast::<Handle<K>>();
    // SAFETY: as in `borrow`.
    if unsafe { std::ptr::addr_of!((*handle).tag).read() } != K::TAG {
        return;
    }
    // SAFETY: the handle came from `into_handle` (a Box) and the caller gives it up.
    let mut owned = unsafe { Box::from_raw(handle) };
    owned.tag = 0;
    drop(owned);
}

/// Reads a text argument (pointer + length, UTF-8, no NUL needed). NULL is allowed only with length 0.
///
/// # Safety
/// `pointer` is NULL or points to `len` readable bytes.
pub(crate) unsafe fn text<'a>(pointer: *const c_char, len: usize, argument: &str) -> Outcome<&'a str> {
    if pointer.is_null() {
        return if len == 0 { Ok("") } else { Err(invalid(argument, "is NULL")) };
    }
    // SAFETY: the caller promises `len` readable bytes at `pointer`.
    let bytes = unsafe { std::slice::from_raw_parts(pointer.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::Cuecard(
            cuecard::Error::new(
                cuecard::ErrorKind::InvalidUtf8,
                format!("argument `{argument}` is not valid UTF-8 (byte {})", e.valid_up_to()),
            )
            .with_context("argument", argument),
        )
    })
}

/// Reads a JSON argument. serde_json refuses nesting deeper than 128 levels, as the rest of cuecard does.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn json(pointer: *const c_char, len: usize, argument: &str) -> Outcome<serde_json::Value> {
    // SAFETY: forwarded.
    json_of_text(unsafe { text(pointer, len, argument)? }, argument)
}

/// Reads a JSON argument as serde data of type `T`, naming the path of a wrong field.
///
/// # Safety
/// As for [`text`].
pub(crate) unsafe fn data<T: serde::de::DeserializeOwned>(
    pointer: *const c_char,
    len: usize,
    argument: &str,
) -> Outcome<T> {
    // SAFETY: forwarded.
    data_of_text(unsafe { text(pointer, len, argument)? }, argument)
}

/// A request argument as JSON text (a user text as a JSON string, or a request): read in one pass when it fits
/// ([`cuecard::api::RequestInput::from_json_text`]), else through a `Value`, whose errors are the canonical ones.
pub(crate) fn request_of_text(text: &str, argument: &str) -> Outcome<cuecard::ChatRequest> {
    match cuecard::api::RequestInput::from_json_text(text) {
        Some(request) => Ok(request),
        None => Ok(cuecard::api::RequestInput::from_value(json_of_text(text, argument)?).into_request()?),
    }
}

/// A JSON argument already read as text (the C and the JNI exports share it).
pub(crate) fn json_of_text(text: &str, argument: &str) -> Outcome<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| invalid(argument, format!("is not valid JSON: {e}")))
}

/// A JSON argument already read as text, as serde data of type `T`, naming the path of a wrong field.
pub(crate) fn data_of_text<T: serde::de::DeserializeOwned>(text: &str, argument: &str) -> Outcome<T> {
    cuecard::api::deserialize_data(&json_of_text(text, argument)?)
        .map_err(|e| invalid(argument, format!("is not valid{}: {}", e.location(), e.message)))
}

pub(crate) fn out<'a, T>(pointer: *mut T, argument: &str) -> Outcome<&'a mut T> {
    // SAFETY: a non-NULL out-parameter points to writable memory of its type (the caller's promise).
    unsafe { pointer.as_mut() }.ok_or_else(|| invalid(argument, "is NULL"))
}

/// A library-owned C string for `text`; free it with `cuecard_string_free`.
pub(crate) fn c_string(text: String) -> Outcome<*mut c_char> {
    CString::new(text).map(CString::into_raw).map_err(|_| {
        Failure::Cuecard(cuecard::Error::new(cuecard::ErrorKind::Internal, "a text with a NUL byte cannot cross to C"))
    })
}

/// A library-owned C string holding `value` as JSON.
pub(crate) fn json_string<T: serde::Serialize + ?Sized>(value: &T) -> Outcome<*mut c_char> {
    let text = serde_json::to_string(value)
        .map_err(|e| cuecard::Error::new(cuecard::ErrorKind::Internal, format!("cannot write JSON: {e}")))?;
    c_string(text)
}
