//! `NativePending`: a call stopped at a step computed by a JS function (core's `Pending`), as in the napi addon
//! (`node/src/pending.rs`). Without threads this is the only way a computed answer runs: the package calls the
//! function with `request`, awaits it if it returned a Promise, then `resume`s, or `fail`s with what it threw.

use crate::convert::read_json;
use crate::errors::throw;
use cuecard::{CallError, Error, ErrorKind, HostError, MockModel, Pending};
use std::cell::RefCell;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A call waiting for a JS function's answer.
#[wasm_bindgen]
pub struct NativePending {
    pending: RefCell<Option<Pending<String>>>,
    mock: Arc<MockModel>,
    key: u32,
    request: String,
}

impl NativePending {
    /// The pending call of `mock`.
    pub fn new(pending: Pending<String>, mock: Arc<MockModel>) -> Self {
        let (key, request) = pending.js_call();
        NativePending { pending: RefCell::new(Some(pending)), mock, key, request }
    }

    fn finish(&self, answer: Result<cuecard::Step, CallError>) -> Result<String, JsValue> {
        match self.pending.borrow_mut().take() {
            Some(pending) => Ok(pending.resume(&self.mock, answer)),
            None => Err(throw(&Pending::<String>::already_answered())),
        }
    }
}

#[wasm_bindgen]
impl NativePending {
    /// The key of the JS function that computes the answer.
    #[wasm_bindgen(getter)]
    pub fn key(&self) -> u32 {
        self.key
    }

    /// The request the function receives (JSON).
    #[wasm_bindgen(getter)]
    pub fn request(&self) -> String {
        self.request.clone()
    }

    /// Completes the call with what the function returned; anything unusable is `callback_failed`.
    pub fn resume(&self, answer: JsValue) -> Result<String, JsValue> {
        let answer = match read_json(&answer, "computed answer") {
            Ok(json) => cuecard::api::step_from_answer(json),
            Err(e) => Err(CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, e.message()))),
        };
        self.finish(answer)
    }

    /// Completes the call as failed by the function's own error (`message` for the journal).
    pub fn fail(&self, message: String) -> Result<String, JsValue> {
        self.finish(Err(CallError::Host(HostError::new(message, Arc::new(())))))
    }
}
