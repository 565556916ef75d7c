//! C functions as cuecard callbacks: a function pointer, a `void *user_data` and an optional destroy function.
//! The function gets its input as JSON and answers through a `cuecard_answer` slot the library owns for the
//! duration of the call, so no memory allocated on one side is freed on the other.

use crate::boundary::{free_handle, guard, into_handle, text, HandleKind};
use crate::errors::{cuecard_error, cuecard_status};
use cuecard::{CallError, ChatRequest, Error, ErrorKind, HostError, Responder, Step};
use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex};

/// A host function computing an answer (or a tool's result) from `input_json`: it fills `answer` with
/// `cuecard_answer_set_json` or `cuecard_answer_fail` before it returns. `answer` is valid only during the call.
pub type cuecard_answer_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        input_json: *const c_char,
        input_len: usize,
        answer: *mut cuecard_answer,
    ),
>;

/// Releases `user_data` once cuecard no longer needs it (may be NULL).
pub type cuecard_destroy_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// Where a callback puts its answer; owned by the library, valid only during the callback.
pub struct cuecard_answer {
    _private: [u8; 0],
}

/// What a callback answered: JSON text, or the host's own error message.
#[derive(Default)]
pub(crate) struct AnswerSlot(Mutex<Option<Result<String, String>>>);

impl HandleKind for AnswerSlot {
    type C = cuecard_answer;
    const TAG: u64 = 0x6375_6563_6172_6406;
    const NAME: &'static str = "cuecard_answer";
}

fn fill(answer: *mut cuecard_answer, value: Result<String, String>) -> crate::errors::Outcome {
    // SAFETY: the slot is NULL or the live slot handed to the callback (the caller's promise).
    let slot = unsafe { crate::boundary::borrow::<AnswerSlot>(answer, "answer")? };
    *slot.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(value);
    Ok(())
}

/// Answers with JSON: for a computed answer, a JSON text (`"Hello"`) or a step object; for a tool, its result. The
/// text is copied. Calling it again replaces the answer.
///
/// # Safety
/// `answer` is the slot passed to the running callback; `json` is valid for `json_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_answer_set_json(
    answer: *mut cuecard_answer,
    json: *const c_char,
    json_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let json = unsafe { text(json, json_len, "json")? }.to_string();
        fill(answer, Ok(json))
    })
}

/// Answers with the host's own error: the call fails with `CUECARD_STATUS_HOST_ERROR` and this message (the wire
/// answers 500 with code `host_error`). The message is copied.
///
/// # Safety
/// As for `cuecard_answer_set_json`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuecard_answer_fail(
    answer: *mut cuecard_answer,
    message: *const c_char,
    message_len: usize,
    err: *mut *mut cuecard_error,
) -> cuecard_status {
    guard(err, || {
        // SAFETY: the caller's promise.
        let message = unsafe { text(message, message_len, "message")? }.to_string();
        fill(answer, Err(message))
    })
}

/// `user_data` and its destroy function, released exactly once.
struct UserData {
    pointer: *mut c_void,
    destroy: cuecard_destroy_fn,
}

// SAFETY: the C contract of `cuecard_mock_then_computes` and `cuecard_tool_new`: the function and `user_data` may be
// used from any thread (a served mock answers on server threads), which the host guarantees.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(destroy) = self.destroy {
            // SAFETY: the host gave this function for exactly this pointer.
            unsafe { destroy(self.pointer) }
        }
    }
}

/// A host function with its user data.
pub(crate) struct HostFunction {
    function: unsafe extern "C" fn(*mut c_void, *const c_char, usize, *mut cuecard_answer),
    data: UserData,
}

impl HostFunction {
    /// The function, or `None` when it is NULL (then `destroy` has already been called on `user_data`).
    pub(crate) fn new(
        function: cuecard_answer_fn,
        user_data: *mut c_void,
        destroy: cuecard_destroy_fn,
    ) -> Option<HostFunction> {
        let data = UserData { pointer: user_data, destroy };
        function.map(|function| HostFunction { function, data })
    }

    /// Calls the function with `input` and returns the JSON text it answered.
    fn call(&self, input: &str) -> Result<String, CallError> {
        let slot = into_handle(AnswerSlot::default());
        // SAFETY: the host's function, with its own user data, our input and a live slot.
        unsafe { (self.function)(self.data.pointer, input.as_ptr().cast(), input.len(), slot) };
        // SAFETY: the slot is ours; read it, then release it.
        let answered = unsafe { crate::boundary::borrow::<AnswerSlot>(slot, "answer") }
            .ok()
            .and_then(|s| s.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take());
        // SAFETY: made above, not used after this.
        unsafe { free_handle::<AnswerSlot>(slot) };
        match answered {
            Some(Ok(json)) => Ok(json),
            Some(Err(message)) => Err(CallError::Host(HostError::new(message, Arc::new(())))),
            None => Err(CallError::Cuecard(Error::new(
                ErrorKind::CallbackFailed,
                "the callback gave no answer: call cuecard_answer_set_json or cuecard_answer_fail before returning",
            ))),
        }
    }
}

/// A computed answer implemented by a C function.
pub(crate) struct HostResponder(HostFunction);

impl HostResponder {
    pub(crate) fn new(
        function: cuecard_answer_fn,
        user_data: *mut c_void,
        destroy: cuecard_destroy_fn,
    ) -> Option<HostResponder> {
        HostFunction::new(function, user_data, destroy).map(HostResponder)
    }
}

impl Responder for HostResponder {
    fn respond(&self, request: &ChatRequest) -> Result<Step, CallError> {
        let request = serde_json::to_string(request)
            .map_err(|e| CallError::Cuecard(Error::new(ErrorKind::Internal, format!("cannot write JSON: {e}"))))?;
        cuecard::api::step_from_answer_json(&self.0.call(&request)?)
    }
}

/// A tool's responder implemented by a C function: the arguments in, the result out, both as JSON.
pub(crate) fn tool_function(function: HostFunction) -> cuecard::tools::ToolFunction {
    Arc::new(move |arguments: &serde_json::Value| {
        cuecard::api::tool_result_from_json(&function.call(&arguments.to_string())?)
    })
}
