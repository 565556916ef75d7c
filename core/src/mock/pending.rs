//! A call that may stop half-way at a computed step, for hosts whose callbacks answer later.
//!
//! A JS function may return a Promise, and WASM has no thread to block while one settles. So the answering
//! entry points have a `_turn` form: the request is taken (the step chosen, the journal entry written as pending,
//! in arrival order like every call) and, when the step is computed, the call stops there as [`Turn::Pending`].
//! The host runs its callback however it likes (awaiting a Promise on its event loop), converts what it returned
//! with [`crate::api::step_from_answer`], and [`Pending::resume`]s: the rest of the call (ids, usage, journal,
//! clock, the protocol's encoding) is the same code as the blocking form.

use super::MockModel;
use crate::model::ChatRequest;
use crate::script::{CallError, Responder, Step};
use std::sync::Arc;

/// A call that finished, or stopped at a computed step.
pub enum Turn<T> {
    /// The call is complete.
    Done(T),
    /// The call waits for a computed step's answer.
    Pending(Pending<T>),
}

type Resume<T> = Box<dyn FnOnce(&MockModel, &ChatRequest, Result<Step, CallError>) -> T + Send>;

/// A call stopped at a computed step. Resume it exactly once, on the mock that made it; dropping it leaves the
/// request journaled as pending.
pub struct Pending<T> {
    /// The journal's own request, shared.
    request: Arc<ChatRequest>,
    responder: Arc<dyn Responder>,
    resume: Resume<T>,
}

impl<T: 'static> Turn<T> {
    /// Finishes the call here, running a computed step's callback on this thread (the blocking form).
    pub fn finish(self, mock: &MockModel) -> T {
        match self {
            Turn::Done(value) => value,
            Turn::Pending(pending) => pending.respond_here(mock),
        }
    }

    /// The same turn with its result transformed (for the layers that encode a call's result).
    pub fn map<U: 'static>(self, f: impl FnOnce(T) -> U + Send + 'static) -> Turn<U> {
        match self {
            Turn::Done(value) => Turn::Done(f(value)),
            Turn::Pending(pending) => Turn::Pending(pending.map(f)),
        }
    }
}

impl<T: 'static> Pending<T> {
    pub(crate) fn new(request: Arc<ChatRequest>, responder: Arc<dyn Responder>, resume: Resume<T>) -> Pending<T> {
        Pending { request, responder, resume }
    }

    /// The request the computed step answers (what the host's callback receives).
    pub fn request(&self) -> &ChatRequest {
        &self.request
    }

    /// The host's key for the callback ([`Responder::host_key`]); `None` for a responder written in Rust.
    pub fn host_key(&self) -> Option<u64> {
        self.responder.host_key()
    }

    /// What a JS host hands its function: the key the function is kept under (as a 32-bit integer, `u32::MAX` when
    /// the responder has none that fits), and the request as JSON text. The napi addon and the WASM module both
    /// keep these beside the pending call.
    pub fn js_call(&self) -> (u32, String) {
        let key = self.host_key().and_then(|k| u32::try_from(k).ok()).unwrap_or(u32::MAX);
        (key, serde_json::to_string(self.request()).unwrap_or_default())
    }

    /// The error of a second answer to a pending call a host has already resumed or failed (a host that keeps the
    /// call in a slot finds the slot empty).
    pub fn already_answered() -> crate::error::Error {
        crate::error::Error::new(crate::error::ErrorKind::InvalidState, "this computed answer was already given")
    }

    /// Completes the call with the computed step's answer (or the callback's error).
    pub fn resume(self, mock: &MockModel, answer: Result<Step, CallError>) -> T {
        (self.resume)(mock, &self.request, answer)
    }

    /// Completes the call by running the responder on this thread.
    pub fn respond_here(self, mock: &MockModel) -> T {
        let answer = self.responder.respond(&self.request);
        self.resume(mock, answer)
    }

    /// The same pending call with its result transformed.
    pub fn map<U: 'static>(self, f: impl FnOnce(T) -> U + Send + 'static) -> Pending<U> {
        let resume = self.resume;
        Pending {
            request: self.request,
            responder: self.responder,
            resume: Box::new(move |mock, request, answer| f(resume(mock, request, answer))),
        }
    }
}
