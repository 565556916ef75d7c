//! Statuses and error objects. A status is `CUECARD_STATUS_OK` or the number of one of cuecard's error kinds
//! (the same numbers as `ErrorKind::number`, in every language), or `CUECARD_STATUS_PROVIDER_ERROR` for a failure
//! the script asked for (a 429, a cut connection, ...).

use std::ffi::{c_char, CStr, CString};

/// Why a call failed: one of cuecard's own errors, or a failure the script asked for.
pub(crate) enum Failure {
    Cuecard(cuecard::Error),
    Provider(cuecard::ProviderError),
}

impl From<cuecard::Error> for Failure {
    fn from(error: cuecard::Error) -> Failure {
        Failure::Cuecard(error)
    }
}

impl From<cuecard::CallError> for Failure {
    fn from(error: cuecard::CallError) -> Failure {
        match error {
            cuecard::CallError::Provider(e) => Failure::Provider(e),
            cuecard::CallError::Cuecard(e) => Failure::Cuecard(e),
            cuecard::CallError::Host(h) => Failure::Cuecard(h.to_error()),
        }
    }
}

pub(crate) type Outcome<T = ()> = Result<T, Failure>;

pub(crate) fn invalid(argument: &str, problem: impl std::fmt::Display) -> Failure {
    Failure::Cuecard(
        cuecard::Error::new(cuecard::ErrorKind::InvalidArgument, format!("argument `{argument}` {problem}"))
            .with_context("argument", argument),
    )
}

/// The outcome of a call: `CUECARD_STATUS_OK`, one of cuecard's error kinds, or a scripted provider failure.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum cuecard_status {
    /// Success.
    Ok = 0,
    /// The scenario is malformed.
    InvalidScenario = 1,
    /// The request is malformed.
    InvalidRequest = 2,
    /// A request arrived after the last step of the script.
    ScriptExhausted = 3,
    /// No route matches the request.
    NoRouteMatched = 4,
    /// An argument is invalid (a NULL pointer among them).
    InvalidArgument = 5,
    /// The call is not allowed in the current state.
    InvalidState = 6,
    /// The journal holds a different number of requests than expected.
    RequestCountMismatch = 7,
    /// An assertion did not hold.
    AssertionFailed = 8,
    /// A host callback failed or returned something unusable.
    CallbackFailed = 9,
    /// Input text is not valid UTF-8.
    InvalidUtf8 = 10,
    /// A file could not be read.
    Io = 11,
    /// A mock tool failed as scripted.
    ToolFailed = 12,
    /// A bug in cuecard (a panic is reported as this, never an abort).
    Internal = 13,
    /// What was asked for does not exist.
    NotFound = 14,
    /// The request is larger than the limit.
    RequestTooLarge = 15,
    /// A host callback reported its own error.
    HostError = 16,
    /// No recording matches the request.
    NoRecording = 17,
    /// The script says the provider fails here (not an error of cuecard): the error object's JSON has
    /// `"provider_error": {"kind", "status", "retryable", "retry_after_ms"?, "message", ...}`.
    ProviderError = 100,
}

impl cuecard_status {
    /// The status of an error kind.
    pub(crate) fn of(kind: cuecard::ErrorKind) -> cuecard_status {
        use cuecard::ErrorKind as K;
        match kind {
            K::InvalidScenario => cuecard_status::InvalidScenario,
            K::InvalidRequest => cuecard_status::InvalidRequest,
            K::ScriptExhausted => cuecard_status::ScriptExhausted,
            K::NoRouteMatched => cuecard_status::NoRouteMatched,
            K::InvalidArgument => cuecard_status::InvalidArgument,
            K::InvalidState => cuecard_status::InvalidState,
            K::RequestCountMismatch => cuecard_status::RequestCountMismatch,
            K::AssertionFailed => cuecard_status::AssertionFailed,
            K::CallbackFailed => cuecard_status::CallbackFailed,
            K::InvalidUtf8 => cuecard_status::InvalidUtf8,
            K::Io => cuecard_status::Io,
            K::ToolFailed => cuecard_status::ToolFailed,
            K::NotFound => cuecard_status::NotFound,
            K::RequestTooLarge => cuecard_status::RequestTooLarge,
            K::HostError => cuecard_status::HostError,
            K::NoRecording => cuecard_status::NoRecording,
            // A kind added to core without a status here is reported as internal until it gets one (a test fails).
            _ => cuecard_status::Internal,
        }
    }
}

/// The code of the provider-failure status, beside cuecard's error codes.
pub(crate) const PROVIDER_ERROR_CODE: &CStr = c"provider_error";

/// An error object: status, code, message and the whole error as JSON. Caller owns it; free it with
/// `cuecard_error_free`.
pub struct cuecard_error {
    pub(crate) status: cuecard_status,
    code: &'static CStr,
    message: CString,
    json: CString,
}

fn owned(text: String) -> CString {
    // JSON and cuecard's messages hold no NUL byte; replace one rather than lose the error.
    CString::new(text).unwrap_or_else(|e| {
        let cleaned = String::from_utf8_lossy(&e.into_vec()).replace('\0', "\u{fffd}");
        CString::new(cleaned).unwrap_or_default()
    })
}

impl cuecard_error {
    pub(crate) fn from_failure(failure: Failure) -> cuecard_error {
        match failure {
            Failure::Cuecard(error) => {
                let status = cuecard_status::of(error.kind());
                cuecard_error {
                    status,
                    code: status_code_c(status),
                    message: owned(error.message().to_string()),
                    json: owned(error.to_json().to_string()),
                }
            }
            Failure::Provider(error) => {
                let json = serde_json::json!({
                    "code": "provider_error",
                    "number": cuecard_status::ProviderError as u32,
                    "message": error.message,
                    "provider_error": error,
                });
                cuecard_error {
                    status: cuecard_status::ProviderError,
                    code: PROVIDER_ERROR_CODE,
                    message: owned(error.message.clone()),
                    json: owned(json.to_string()),
                }
            }
        }
    }
}

fn status_code_c(status: cuecard_status) -> &'static CStr {
    match status {
        cuecard_status::Ok => c"ok",
        cuecard_status::InvalidScenario => c"invalid_scenario",
        cuecard_status::InvalidRequest => c"invalid_request",
        cuecard_status::ScriptExhausted => c"script_exhausted",
        cuecard_status::NoRouteMatched => c"no_route_matched",
        cuecard_status::InvalidArgument => c"invalid_argument",
        cuecard_status::InvalidState => c"invalid_state",
        cuecard_status::RequestCountMismatch => c"request_count_mismatch",
        cuecard_status::AssertionFailed => c"assertion_failed",
        cuecard_status::CallbackFailed => c"callback_failed",
        cuecard_status::InvalidUtf8 => c"invalid_utf8",
        cuecard_status::Io => c"io",
        cuecard_status::ToolFailed => c"tool_failed",
        cuecard_status::Internal => c"internal",
        cuecard_status::NotFound => c"not_found",
        cuecard_status::RequestTooLarge => c"request_too_large",
        cuecard_status::HostError => c"host_error",
        cuecard_status::NoRecording => c"no_recording",
        cuecard_status::ProviderError => PROVIDER_ERROR_CODE,
    }
}

/// The stable code of a status (`"script_exhausted"`, `"provider_error"`, `"ok"`); an unknown number gives
/// `"unknown"`. Static: never free it.
#[unsafe(no_mangle)]
pub extern "C" fn cuecard_status_code(status: u32) -> *const c_char {
    crate::statuses().iter().find(|s| **s as u32 == status).map_or(c"unknown".as_ptr(), |s| status_code_c(*s).as_ptr())
}

/// The status's stable code, borrowed: valid until `cuecard_error_free(error)`. NULL gives NULL.
///
/// # Safety
/// `error` is NULL or a live error object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_error_code(error: *const cuecard_error) -> *const c_char {
    // SAFETY: NULL or a live error (the caller's promise).
    unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.code.as_ptr())
}

/// The status of the error (`CUECARD_STATUS_OK` for NULL).
///
/// # Safety
/// `error` is NULL or a live error object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_error_status(error: *const cuecard_error) -> cuecard_status {
    // SAFETY: as above.
    unsafe { error.as_ref() }.map_or(cuecard_status::Ok, |e| e.status)
}

/// The human message, borrowed: valid until `cuecard_error_free(error)`. NULL gives NULL.
///
/// # Safety
/// `error` is NULL or a live error object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_error_message(error: *const cuecard_error) -> *const c_char {
    // SAFETY: as above.
    unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.message.as_ptr())
}

/// The whole error as JSON, borrowed until `cuecard_error_free(error)`: `{"code", "number", "message", "issues",
/// "context"}` for cuecard's errors, `{"code": "provider_error", "number": 100, "message", "provider_error": {...}}`
/// for a scripted failure. NULL gives NULL.
///
/// # Safety
/// `error` is NULL or a live error object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_error_json(error: *const cuecard_error) -> *const c_char {
    // SAFETY: as above.
    unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.json.as_ptr())
}

/// Frees an error object. NULL is a no-op.
///
/// # Safety
/// `error` is NULL or an error object from this library, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_error_free(error: *mut cuecard_error) {
    if !error.is_null() {
        // SAFETY: the library made it with `Box::into_raw`; the caller gives it up.
        drop(unsafe { Box::from_raw(error) });
    }
}

/// Frees a string this library returned. NULL is a no-op.
///
/// # Safety
/// `text` is NULL or a string from this library (an out-parameter of type `char **`), not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: the library made it with `CString::into_raw`; the caller gives it up.
        drop(unsafe { CString::from_raw(text) });
    }
}
