//! A call's outcome as the JSON the package's JS reads. Failures are data here, not thrown: the JS waits out
//! the scripted delay first and then throws (a failing step that takes 2 s fails after 2 s).

use cuecard::{CallError, Exchange, StreamResult};
use serde_json::{json, Value};

/// `{"family": "provider" | "cuecard" | "host", ...}`: which JS error to throw.
pub fn call_error_json(error: &CallError) -> Value {
    match error {
        CallError::Provider(e) => json!({"family": "provider", "error": e}),
        CallError::Cuecard(e) => json!({"family": "cuecard", "error": e.to_json()}),
        // The JS function's own error: the package rethrows the very object it caught.
        CallError::Host(h) => json!({"family": "host", "message": h.message()}),
    }
}

/// A whole answer: `{"index", "delay_ms", "response"}` or `{"index", "delay_ms", "error"}`.
pub fn exchange_json(exchange: &Exchange) -> String {
    let value = match &exchange.result {
        Ok(response) => json!({"index": exchange.index, "delay_ms": exchange.delay_ms, "response": response}),
        Err(error) => json!({"index": exchange.index, "delay_ms": exchange.delay_ms, "error": call_error_json(error)}),
    };
    value.to_string()
}

/// A streamed answer: `{"index", "events"}` (a scripted failure is the last event) or `{"index", "error"}` for
/// cuecard's own errors.
pub fn stream_json(result: &StreamResult) -> String {
    let value = match result {
        Ok(stream) => json!({"index": stream.request_index(), "events": stream.events()}),
        Err((index, error)) => json!({"index": index, "error": call_error_json(error)}),
    };
    value.to_string()
}
