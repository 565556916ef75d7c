//! `cuecard_tool`: a tool double that records every invocation; fixed, failing, slow, or computed by a C function.

use crate::boundary::{borrow, data, free_handle, guard, into_handle, json, json_string, out, text, HandleKind};
use crate::callback::{cuecard_answer_fn, cuecard_destroy_fn, tool_function, HostFunction};
use crate::errors::Outcome;
use crate::errors::{cuecard_error, cuecard_status};
use cuecard::tools::MockToolOptions;
use cuecard::MockTool;
use std::ffi::{c_char, c_void};

/// A mock tool. Thread-safe.
pub struct cuecard_tool {
    _private: [u8; 0],
}

impl HandleKind for MockTool {
    type C = cuecard_tool;
    const TAG: u64 = 0x6375_6563_6172_6404;
    const NAME: &'static str = "cuecard_tool";
}

unsafe fn tool<'a>(pointer: *const cuecard_tool) -> Outcome<&'a MockTool> {
    // SAFETY: forwarded from the export's contract.
    unsafe { borrow::<MockTool>(pointer, "tool") }
}

/// Makes a tool: `options_json` is `{"name", "description"?, "parameters"?, "result"? | "fails"?, "delay_ms"?}`;
/// `compute` (may be NULL) computes the result from the arguments (both JSON; fill the answer slot with
/// `cuecard_answer_set_json` or `cuecard_answer_fail`), called with `user_data`, which `destroy` (may be NULL)
/// releases when the tool is freed. With none of result, fails, compute the tool answers `{}`. Caller owns
/// `*out_tool`; free it with `cuecard_tool_free`.
///
/// # Safety
/// Pointers are valid for their lengths; `compute` is NULL or valid; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tool_new(
    options_json: *const c_char,
    options_len: usize,
    compute: cuecard_answer_fn,
    user_data: *mut c_void,
    destroy: cuecard_destroy_fn,
    out_tool: *mut *mut cuecard_tool,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // Own user_data first, so `destroy` runs whatever happens next.
        let function = HostFunction::new(compute, user_data, destroy).map(tool_function);
        let slot = out(out_tool, "out_tool")?;
        // SAFETY: the caller's promise.
        let options: MockToolOptions = unsafe { data(options_json, options_len, "options_json")? };
        *slot = into_handle(MockTool::from_options(options, function)?);
        Ok(())
    })
}

/// Makes one of Cogitator's fixture tools: `calculator`, `weather`, `failing` (with `message`, may be NULL) or `slow`
/// (with `delay_ms`; 0 means the default 1000). Caller owns `*out_tool`.
///
/// # Safety
/// Pointers are NULL (where allowed) or valid for their lengths; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tool_fixture(
    name: *const c_char,
    name_len: usize,
    message: *const c_char,
    message_len: usize,
    delay_ms: u64,
    out_tool: *mut *mut cuecard_tool,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_tool, "out_tool")?;
        // SAFETY: the caller's promise.
        let (name, message) = unsafe { (text(name, name_len, "name")?, text(message, message_len, "message")?) };
        let message = (!message.is_empty()).then_some(message);
        let delay = (delay_ms > 0).then_some(delay_ms);
        *slot = into_handle(cuecard::tools::fixtures::by_name(name, message, delay)?);
        Ok(())
    })
}

/// Frees a tool. NULL is a no-op.
///
/// # Safety
/// `tool` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tool_free(tool: *mut cuecard_tool) {
    // SAFETY: the caller's promise.
    unsafe { free_handle::<MockTool>(tool) }
}

/// Calls the tool with `arguments_json` (a JSON object, or a JSON string holding the arguments text a model
/// produced). `*out_result_json` is the result; `out_delay_ms` (may be NULL) the tool's virtual delay, for the host to
/// wait out. A failing tool is `CUECARD_STATUS_TOOL_FAILED`. The call is recorded either way. Caller owns the result.
///
/// # Safety
/// `tool` is a live handle; pointers are valid for their lengths; out-parameters are NULL (where allowed) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tool_invoke(
    tool: *const cuecard_tool,
    arguments_json: *const c_char,
    arguments_len: usize,
    out_result_json: *mut *mut c_char,
    out_delay_ms: *mut u64,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_result_json, "out_result_json")?;
        // SAFETY: the caller's promise.
        let (tool, arguments) = unsafe { (self::tool(tool)?, json(arguments_json, arguments_len, "arguments_json")?) };
        let timed = match &arguments {
            serde_json::Value::String(raw) => tool.invoke_json(raw),
            other => tool.invoke(other),
        };
        *slot = json_string(&timed.value?)?;
        // SAFETY: NULL or writable (the caller's promise).
        if let Some(delay) = unsafe { out_delay_ms.as_mut() } {
            *delay = timed.delay_ms;
        }
        Ok(())
    })
}

/// Every invocation as JSON: `[{"index", "arguments", "result" | "error", "delay_ms"}]`. Caller owns it.
///
/// # Safety
/// `tool` is a live handle; out-parameters are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_tool_invocations(
    tool: *const cuecard_tool,
    out_invocations_json: *mut *mut c_char,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        let slot = out(out_invocations_json, "out_invocations_json")?;
        // SAFETY: the caller's promise.
        *slot = json_string(&unsafe { self::tool(tool)? }.invocations())?;
        Ok(())
    })
}
