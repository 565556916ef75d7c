//! `cuecard_memory`: Cogitator's memory adapter double. One entry point calls any method with JSON arguments.

use crate::boundary::{borrow, free_handle, guard, into_handle, json, json_string, out, text, HandleKind};
use crate::errors::{cuecard_error, cuecard_status};
use cuecard::memory::MemoryMethod;
use cuecard::MockMemory;
use std::ffi::c_char;

/// An in-process conversation store that records every call. Thread-safe.
pub struct cuecard_memory {
    _private: [u8; 0],
}

impl HandleKind for MockMemory {
    type C = cuecard_memory;
    const TAG: u64 = 0x6375_6563_6172_6405;
    const NAME: &'static str = "cuecard_memory";
}

/// Makes an empty, disconnected store. Caller owns `*out_memory`; free it with `cuecard_memory_free`.
///
/// # Safety
/// Out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_memory_new(
    out_memory: *mut *mut cuecard_memory,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // The out-parameter is checked before the handle exists: an assignment evaluates its right side first,
        // so `*out(..)? = into_handle(..)` made the handle and leaked it when the out-parameter was NULL.
        let slot = out(out_memory, "out_memory")?;
        *slot = into_handle(MockMemory::new());
        Ok(())
    })
}

/// Frees a store. NULL is a no-op.
///
/// # Safety
/// `memory` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_memory_free(memory: *mut cuecard_memory) {
    // SAFETY: the caller's promise.
    unsafe { free_handle::<MockMemory>(memory) }
}

/// Calls a method (`"create_thread"` or `"createThread"`, ..., or `"calls"` for the call log) with its arguments as a
/// JSON object of parameter names (`{"agent_id", "metadata"?, "thread_id"?}`, `{"entry": {...}}`, `{"query": {...}}`,
/// ...; NULL with length 0 for none). `*out_result_json` is the result (`null` for methods without one). An unknown
/// thread in `update_thread` is `CUECARD_STATUS_NOT_FOUND`. Caller owns the result.
///
/// # Safety
/// `memory` is a live handle; pointers are valid for their lengths; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_memory_call(
    memory: *const cuecard_memory,
    method: *const c_char,
    method_len: usize,
    arguments_json: *const c_char,
    arguments_len: usize,
    out_result_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_result_json, "out_result_json")?;
        // SAFETY: the caller's promise.
        let (memory, method) =
            unsafe { (borrow::<MockMemory>(memory, "memory")?, text(method, method_len, "method")?) };
        let arguments = match arguments_len {
            0 => serde_json::Value::Null,
            // SAFETY: the caller's promise.
            _ => unsafe { json(arguments_json, arguments_len, "arguments_json")? },
        };
        *slot = if method == "calls" {
            json_string(&memory.calls())?
        } else {
            json_string(&memory.call_json(method.parse::<MemoryMethod>()?, arguments)?)?
        };
        Ok(())
    })
}
