//! JS functions that compute answers, called from threads other than the JS thread.
//!
//! In the JS thread a computed step never blocks: the call stops as a `NativePending` and the package awaits
//! the function. The loopback `Server` answers on its own threads, though, through core's blocking form; there
//! the responder posts the request to the JS thread (a threadsafe function the package gave at `init`), the
//! package runs the function (awaiting a Promise) and settles the ticket, and the server thread waits for it.

use crate::convert::read_json;
use cuecard::api::JsonResponder;
use cuecard::{CallError, ChatRequest, Error, ErrorKind, HostError, Responder};
use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, Unknown};
use napi_derive::napi;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};

/// `dispatch(key, requestJson, ticket)` in the package: runs function `key` and settles `ticket`.
pub type Dispatcher =
    ThreadsafeFunction<(u32, String, u32), Unknown<'static>, FnArgs<(u32, String, u32)>, Status, false, true>;

type Answer = Result<Value, CallError>;

thread_local! {
    // Set on a JS thread by `init`; absent on every other thread.
    static DISPATCHER: RefCell<Option<Arc<Dispatcher>>> = const { RefCell::new(None) };
}

/// Tickets of answers awaited by other threads.
fn tickets() -> &'static Mutex<HashMap<u32, mpsc::SyncSender<Answer>>> {
    static TICKETS: OnceLock<Mutex<HashMap<u32, mpsc::SyncSender<Answer>>>> = OnceLock::new();
    TICKETS.get_or_init(|| Mutex::new(HashMap::new()))
}

static NEXT_TICKET: AtomicU32 = AtomicU32::new(1);

/// Keeps this JS thread's dispatcher (weak: it never keeps the process alive).
pub fn set_dispatcher(dispatcher: Dispatcher) {
    DISPATCHER.with(|slot| *slot.borrow_mut() = Some(Arc::new(dispatcher)));
}

fn callback_failed(message: impl Into<String>) -> CallError {
    CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, message))
}

/// The responder of a step computed by the package's function `key`, created on a JS thread.
pub fn responder(key: u32) -> Arc<dyn Responder> {
    let dispatcher = DISPATCHER.with(|slot| slot.borrow().clone());
    let host = move |request: &ChatRequest| -> Answer {
        if DISPATCHER.with(|slot| slot.borrow().is_some()) {
            // A JS thread would wait for itself; the package resumes pending calls instead, so this is a misuse.
            return Err(callback_failed("a computed answer cannot be awaited on the JS thread; use the async API"));
        }
        let Some(dispatcher) = &dispatcher else {
            return Err(callback_failed("cuecard's addon was not initialised on the thread that scripted this step"));
        };
        let ticket = NEXT_TICKET.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = mpsc::sync_channel(1);
        tickets().lock().map_err(|_| callback_failed("ticket table poisoned"))?.insert(ticket, sender);
        let request = serde_json::to_string(request).unwrap_or_default();
        let status = dispatcher.call((key, request, ticket), ThreadsafeFunctionCallMode::NonBlocking);
        if status != Status::Ok {
            tickets().lock().ok().map(|mut t| t.remove(&ticket));
            return Err(callback_failed(format!("the JS thread cannot run the computed answer ({status})")));
        }
        receiver.recv().unwrap_or_else(|_| Err(callback_failed("the JS thread went away before answering")))
    };
    Arc::new(JsonResponder::new(host).with_host_key(u64::from(key)))
}

fn settle(ticket: u32, answer: Answer) {
    if let Some(sender) = tickets().lock().ok().and_then(|mut t| t.remove(&ticket)) {
        let _ = sender.send(answer);
    }
}

/// The package's function for `ticket` returned `answer` (a text or a step object).
#[napi]
pub fn settle_computed(env: Env, ticket: u32, answer: Unknown<'_>) -> napi::Result<()> {
    let answer = match read_json(&env, &answer, "computed answer")? {
        Ok(json) => Ok(json),
        Err(e) => Err(callback_failed(e.message())),
    };
    settle(ticket, answer);
    Ok(())
}

/// The package's function for `ticket` threw (`message` for the journal and the HTTP error).
#[napi]
pub fn fail_computed(ticket: u32, message: String) {
    settle(ticket, Err(CallError::Host(HostError::new(message, Arc::new(())))));
}
