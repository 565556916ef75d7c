//! `cuecard_observer`: Tramai's recording observer. The engine under test reports each provider call to it: a
//! call starts (and gets a record index), then each callback is reported as an event; `cuecard_mock_check` can
//! judge the records.

use crate::boundary::{borrow, data, free_handle, guard, into_handle, json_string, out, HandleKind};
use crate::errors::Outcome;
use crate::errors::{cuecard_error, cuecard_status};
use cuecard::{CallContext, ObservationEvent, RecordingObserver};
use std::ffi::c_char;

/// A recording observer. Thread-safe.
pub struct cuecard_observer {
    _private: [u8; 0],
}

impl HandleKind for RecordingObserver {
    type C = cuecard_observer;
    const TAG: u64 = 0x6375_6563_6172_6403;
    const NAME: &'static str = "cuecard_observer";
}

/// The observer behind a handle argument.
pub(crate) unsafe fn observer<'a>(pointer: *const cuecard_observer) -> Outcome<&'a RecordingObserver> {
    // SAFETY: forwarded from the export's contract.
    unsafe { borrow::<RecordingObserver>(pointer, "observer") }
}

/// Makes an observer with no records. Caller owns `*out_observer`; free it with `cuecard_observer_free`.
///
/// # Safety
/// `out_observer` and `err` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_observer_new(
    out_observer: *mut *mut cuecard_observer,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // The out-parameter is checked before the handle exists: an assignment evaluates its right side first,
        // so `*out(..)? = into_handle(..)` made the handle and leaked it when the out-parameter was NULL.
        let slot = out(out_observer, "out_observer")?;
        *slot = into_handle(RecordingObserver::new());
        Ok(())
    })
}

/// Frees an observer. NULL is a no-op.
///
/// # Safety
/// `observer` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_observer_free(observer: *mut cuecard_observer) {
    // SAFETY: the caller's promise.
    unsafe { free_handle::<RecordingObserver>(observer) }
}

/// A provider call starts: `context_json` is `{"operation"?, "service"?, "provider_id"? (default "mock"), "model"?,
/// "attempt"?}`; `*out_index` is its record, to report to.
///
/// # Safety
/// `observer` is a live handle; pointers are valid for their lengths; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_observer_start_call(
    observer: *const cuecard_observer,
    context_json: *const c_char,
    context_len: usize,
    out_index: *mut usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_index, "out_index")?;
        // SAFETY: the caller's promise.
        let (observer, context) =
            unsafe { (self::observer(observer)?, data::<CallContext>(context_json, context_len, "context_json")?) };
        *slot = observer.start_call(context);
        Ok(())
    })
}

/// Reports one callback of the call `index`: `event_json` is `{"event": "provider_response", "response": {...}}`,
/// `provider_failure` (`"failure": {"kind", "status"?, "retryable"?, "message"?, "type_names"?}`),
/// `structured_parse_failure` (`"summary"`), `engine_event` (`"name"`, `"attributes"?`), `call_completed`
/// (`"parse_success"?`) or `call_cancelled`. An unknown index is `CUECARD_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// As for `cuecard_observer_start_call`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_observer_report(
    observer: *const cuecard_observer,
    index: usize,
    event_json: *const c_char,
    event_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let (observer, event) =
            unsafe { (self::observer(observer)?, data::<ObservationEvent>(event_json, event_len, "event_json")?) };
        observer.report(index, event)?;
        Ok(())
    })
}

/// Every call record as JSON, in order. Caller owns `*out_records_json`; free it with `cuecard_string_free`.
///
/// # Safety
/// `observer` is a live handle; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_observer_records(
    observer: *const cuecard_observer,
    out_records_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_records_json, "out_records_json")?;
        // SAFETY: the caller's promise.
        *slot = json_string(&unsafe { self::observer(observer)? }.call_records())?;
        Ok(())
    })
}
