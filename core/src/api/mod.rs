//! The host-neutral face: everything a binding calls, as public serde types and JSON-in/JSON-out entry points,
//! so that a binding method converts its language's values and forwards in a line or two. Rules (defaults, which
//! input means which step, how a failure object becomes an error, which checks exist, how deep host data may
//! nest) live here or below, once, for every language.
//!
//! - [`spec`]: the scripting vocabulary as data (steps, tool calls, failures, route matches) and [`StepInput`];
//! - `verbs`: the seed verbs on [`crate::mock::MockModel`] (`then_responds`, `then_fails`, `and_fails`, `route`, ...);
//! - [`responder`]: computed answers from hosts that return JSON;
//! - [`host_data`], [`host_read`], [`strict`], [`strict_text`]: the strict readers of host data, which live in
//!   [`crate::input`] (every layer reads with them) and are re-exported here, where bindings look for them;
//! - [`request`]: what a binding's `chat("Hi")` means, and the fast path for a request the host serialized;
//! - [`outcome`]: a call's outcome as JSON text, for hosts that wait and raise themselves (the JS packages);
//! - checks as data are [`crate::verify::Check`]; the wire as data is [`crate::http::HttpRequest`] and
//!   [`crate::http::HttpReply`]; settings are [`crate::MockSettings`]; server options [`crate::server::ServerOptions`].

pub mod outcome;
pub mod request;
pub mod responder;
mod verbs;

pub use crate::input::{data_from_json, to_json, HostNode, HostReadError, HostValue, MAX_DEPTH};
pub use crate::input::{deserialize_data, from_host, read_host, read_json_text, DataError};
pub use crate::input::{host_data, host_read, strict, strict_text};
pub use crate::script::spec;
pub use crate::script::spec::{
    FailSpec, MatchSpec, RouteOptions, RouteSpec, SpecProblem, StepInput, StepSpec, ToolCallSpec,
};
pub use request::RequestInput;
pub use responder::{step_from_answer, step_from_answer_json, tool_result_from_json, JsonResponder};

/// Every valid request in the wire, scenario and verify vectors (objects with `messages` that read as a
/// `ChatRequest`): what the fast paths' tests read both ways.
#[cfg(test)]
pub(crate) fn vector_requests() -> Vec<serde_json::Value> {
    fn requests(value: &serde_json::Value, found: &mut Vec<serde_json::Value>) {
        match value {
            serde_json::Value::Object(map) => {
                if map.contains_key("messages") && crate::model::ChatRequest::from_value(value.clone()).is_ok() {
                    found.push(value.clone());
                }
                map.values().for_each(|v| requests(v, found));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| requests(v, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for file in ["wire.json", "scenarios.json", "verify.json"] {
        let path = format!("{}/../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        requests(&serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap(), &mut found);
    }
    found
}
