//! The C ABI of cuecard (`include/cuecard.h`, library `cuecard_ffi`): thin over the core's host-neutral face.
//!
//! Conventions (rustls-ffi's, with libsignal's error objects):
//! - names are `cuecard_<type>_<verb>`; handles are opaque (`cuecard_mock`, `cuecard_server`, `cuecard_observer`,
//!   `cuecard_tool`, `cuecard_memory`), made by `_new`/`_start`/`_from_*` and released by `_free` (NULL is a no-op);
//! - every fallible function returns a `cuecard_status` and takes an optional `cuecard_error **err`, written only on
//!   failure; out-parameters are written only on success;
//! - data crosses as UTF-8 JSON: pointer + length in (NULL with length 0 where a function says it may be absent),
//!   NUL-terminated `char *` out, owned by the caller and freed with `cuecard_string_free`;
//! - a NULL where a pointer is needed, or a handle of another kind, is `CUECARD_STATUS_INVALID_ARGUMENT` naming the
//!   argument; a panic is `CUECARD_STATUS_INTERNAL`, never an abort;
//! - callbacks are a function pointer, a `void *user_data` and an optional destroy function.
#![deny(missing_docs)]
#![allow(non_camel_case_types)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

mod boundary;
mod callback;
mod errors;
#[cfg(feature = "jni")]
mod jvm;
mod memory;
mod mock;
mod observe;
mod record;
mod server;
#[cfg(feature = "testing")]
mod testing;
mod tools;

pub use callback::{cuecard_answer, cuecard_answer_fn, cuecard_destroy_fn};
pub use errors::{cuecard_error, cuecard_status};
pub use memory::cuecard_memory;
pub use mock::cuecard_mock;
pub use observe::cuecard_observer;
pub use record::cuecard_recording_proxy;
pub use server::cuecard_server;
pub use tools::cuecard_tool;

use boundary::{guard, json_string, out, text};
use std::ffi::{c_char, CString};
use std::sync::OnceLock;

/// The library's major version (the header's `CUECARD_VERSION_MAJOR`; checked against Cargo's by a test).
pub const CUECARD_VERSION_MAJOR: u32 = 0;
/// The library's minor version.
pub const CUECARD_VERSION_MINOR: u32 = 1;
/// The library's patch version.
pub const CUECARD_VERSION_PATCH: u32 = 0;
/// `MAJOR * 10000 + MINOR * 100 + PATCH`: compare with `cuecard_version_number()` at run time.
pub const CUECARD_VERSION_NUMBER: u32 =
    CUECARD_VERSION_MAJOR * 10000 + CUECARD_VERSION_MINOR * 100 + CUECARD_VERSION_PATCH;

/// Every status, for lookups by number.
pub(crate) fn statuses() -> &'static [cuecard_status] {
    use cuecard_status as S;
    &[
        S::Ok,
        S::InvalidScenario,
        S::InvalidRequest,
        S::ScriptExhausted,
        S::NoRouteMatched,
        S::InvalidArgument,
        S::InvalidState,
        S::RequestCountMismatch,
        S::AssertionFailed,
        S::CallbackFailed,
        S::InvalidUtf8,
        S::Io,
        S::ToolFailed,
        S::Internal,
        S::NotFound,
        S::RequestTooLarge,
        S::HostError,
        S::NoRecording,
        S::ProviderError,
    ]
}

/// The tag and C name of every kind of handle, to say what a misplaced handle is.
pub(crate) fn handle_names() -> [(u64, &'static str); 6] {
    use boundary::HandleKind;
    [
        (<mock::Mock as HandleKind>::TAG, <mock::Mock as HandleKind>::NAME),
        (<cuecard::Server as HandleKind>::TAG, <cuecard::Server as HandleKind>::NAME),
        (<cuecard::RecordingObserver as HandleKind>::TAG, <cuecard::RecordingObserver as HandleKind>::NAME),
        (<cuecard::MockTool as HandleKind>::TAG, <cuecard::MockTool as HandleKind>::NAME),
        (<cuecard::MockMemory as HandleKind>::TAG, <cuecard::MockMemory as HandleKind>::NAME),
        (<callback::AnswerSlot as HandleKind>::TAG, <callback::AnswerSlot as HandleKind>::NAME),
    ]
}

/// The library's version (`"0.1.0"`). Static: never free it.
#[unsafe(no_mangle)]
pub extern "C" fn cuecard_version() -> *const c_char {
    static VERSION: OnceLock<CString> = OnceLock::new();
    VERSION.get_or_init(|| CString::new(cuecard::VERSION).unwrap_or_default()).as_ptr()
}

/// The library's version as a number (`MAJOR * 10000 + MINOR * 100 + PATCH`): equal to the header's
/// `CUECARD_VERSION_NUMBER` when header and library match.
#[unsafe(no_mangle)]
pub extern "C" fn cuecard_version_number() -> u32 {
    CUECARD_VERSION_NUMBER
}

/// One line saying what a status means (the description of its error kind). Static: never free it.
#[unsafe(no_mangle)]
pub extern "C" fn cuecard_status_description(status: u32) -> *const c_char {
    static DESCRIPTIONS: OnceLock<Vec<(u32, CString)>> = OnceLock::new();
    let table = DESCRIPTIONS.get_or_init(|| {
        let mut table = vec![(0, c"success".to_owned()), (100, c"the script says the provider fails here".to_owned())];
        table.extend(
            cuecard::ErrorKind::ALL.iter().map(|k| (k.number(), CString::new(k.description()).unwrap_or_default())),
        );
        table
    });
    table.iter().find(|(n, _)| *n == status).map_or(c"unknown status".as_ptr(), |(_, d)| d.as_ptr())
}

/// Splits UTF-8 text into word-like tokens (`docs/concepts/tokens.md`): `*out_tokens_json` is a JSON array of strings.
/// Invalid UTF-8 is `CUECARD_STATUS_INVALID_UTF8`. Caller owns the array; free it with `cuecard_string_free`.
///
/// # Safety
/// `text_ptr` is valid for `text_len` bytes (NULL with length 0 is the empty text); out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tokenize(
    text_ptr: *const c_char,
    text_len: usize,
    out_tokens_json: *mut *mut c_char,
    err: *mut *mut errors::cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_tokens_json, "out_tokens_json")?;
        // SAFETY: the caller's promise.
        let text = unsafe { text(text_ptr, text_len, "text")? };
        *slot = json_string(&cuecard::tokenize(text).collect::<Vec<&str>>())?;
        Ok(())
    })
}

/// Counts the word-like tokens of UTF-8 text.
///
/// # Safety
/// As for `cuecard_tokenize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_count_tokens(
    text_ptr: *const c_char,
    text_len: usize,
    out_count: *mut usize,
    err: *mut *mut errors::cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_count, "out_count")?;
        // SAFETY: the caller's promise.
        *slot = cuecard::count_tokens(unsafe { text(text_ptr, text_len, "text")? });
        Ok(())
    })
}

/// The drift report of the recording at the UTF-8 `path` (`cuecard drift`): `*out_report_json` is
/// `{"drifted", "exchanges", "not_compared"}`, each exchange with its `differences` (what the real API sent that
/// cuecard does not, or differently) and `only_cuecard`. A missing file is `CUECARD_STATUS_NOT_FOUND`; one that is
/// not a recording `CUECARD_STATUS_INVALID_SCENARIO`. Caller owns the report; free it with `cuecard_string_free`.
///
/// # Safety
/// `path_ptr` is valid for `path_len` bytes; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_drift(
    path_ptr: *const c_char,
    path_len: usize,
    out_report_json: *mut *mut c_char,
    err: *mut *mut errors::cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_report_json, "out_report_json")?;
        // SAFETY: the caller's promise.
        let path = unsafe { text(path_ptr, path_len, "path")? };
        *slot = json_string(&cuecard::record::drift_file(path)?.to_json())?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn every_error_kind_has_the_status_of_its_number() {
        for kind in cuecard::ErrorKind::ALL {
            let status = cuecard_status::of(kind);
            assert_eq!(status as u32, kind.number(), "{kind}");
            // SAFETY: static strings.
            let code = unsafe { CStr::from_ptr(errors::cuecard_status_code(status as u32)) };
            assert_eq!(code.to_str().unwrap(), kind.code());
        }
        assert_eq!(statuses().len(), cuecard::ErrorKind::ALL.len() + 2);
    }

    #[test]
    fn the_version_constants_are_cargos() {
        let cargo = [env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR"), env!("CARGO_PKG_VERSION_PATCH")];
        let ours = [CUECARD_VERSION_MAJOR, CUECARD_VERSION_MINOR, CUECARD_VERSION_PATCH];
        for (cargo, ours) in cargo.iter().zip(ours) {
            assert_eq!(cargo.parse::<u32>().unwrap(), ours, "bump the CUECARD_VERSION_* constants with the crate");
        }
    }
}
