//! `NativePending`: a call stopped at a step computed by a JS function (core's `Pending`). The package calls
//! the function with `request`, awaits it if it returned a Promise, then `resume`s with what it returned, or
//! `fail`s with the error it threw (and rethrows that very error to its caller).

use crate::convert::read_json;
use cuecard::{CallError, Error, ErrorKind, HostError, MockModel, Pending};
use napi::{Env, Unknown};
use napi_derive::napi;
use std::sync::{Arc, Mutex};

/// A call waiting for a JS function's answer.
#[napi]
pub struct NativePending {
    pending: Mutex<Option<Pending<String>>>,
    mock: Arc<MockModel>,
    key: u32,
    request: String,
}

impl NativePending {
    pub fn new(pending: Pending<String>, mock: Arc<MockModel>) -> Self {
        let (key, request) = pending.js_call();
        NativePending { pending: Mutex::new(Some(pending)), mock, key, request }
    }

    fn finish(&self, env: &Env, answer: std::result::Result<cuecard::Step, CallError>) -> napi::Result<String> {
        let taken = self.pending.lock().map(|mut slot| slot.take()).unwrap_or(None);
        match taken {
            Some(pending) => Ok(pending.resume(&self.mock, answer)),
            None => Err(crate::errors::throw(env, &Pending::<String>::already_answered())),
        }
    }
}

#[napi]
impl NativePending {
    /// The key of the JS function that computes the answer.
    #[napi(getter)]
    pub fn key(&self) -> u32 {
        self.key
    }

    /// The request the function receives (JSON).
    #[napi(getter)]
    pub fn request(&self) -> String {
        self.request.clone()
    }

    /// Completes the call with what the function returned (a text or a step object); anything unusable is
    /// `callback_failed`. Returns the call's outcome JSON.
    #[napi]
    pub fn resume(&self, env: Env, answer: Unknown<'_>) -> napi::Result<String> {
        // What the function returned is host data like any other: the same limits, as a callback error.
        let answer = match read_json(&env, &answer, "computed answer")? {
            Ok(json) => cuecard::api::step_from_answer(json),
            Err(e) => Err(CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, e.message()))),
        };
        self.finish(&env, answer)
    }

    /// Completes the call as failed by the function's own error (`message` for the journal).
    #[napi]
    pub fn fail(&self, env: Env, message: String) -> napi::Result<String> {
        let error = CallError::Host(HostError::new(message, Arc::new(())));
        self.finish(&env, Err(error))
    }
}
