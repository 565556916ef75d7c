//! The host-neutral face: everything a binding calls, as public serde types and JSON-in/JSON-out entry points,
//! so that a binding method converts its language's values and forwards in a line or two. Rules (defaults, which
//! input means which step, how a failure object becomes an error, which checks exist, how deep host data may
//! nest) live here or below, once, for every language.
//!
//! - [`spec`]: the scripting vocabulary as data (steps, tool calls, failures, route matches) and [`StepInput`];
//! - `verbs`: the seed verbs on [`crate::MockModel`] (`then_responds`, `then_fails`, `and_fails`, `route`, ...);
//! - [`responder`]: computed answers from hosts that return JSON;
//! - [`host_data`]: host data into JSON with the depth, cycle and NaN limits;
//! - [`host_read`]: host data straight into core types when it fits, the same result without the JSON between;
//! - [`strict`]: JSON into core types, a struct from an object only (never an array read by position);
//! - [`strict_text`]: JSON text into core types under the same rule, without a `Value` between (a fast path);
//! - [`request`]: what a binding's `chat("Hi")` means, and the fast path for a request the host serialized;
//! - [`outcome`]: a call's outcome as JSON text, for hosts that wait and raise themselves (the JS packages);
//! - checks as data are [`crate::verify::Check`]; the wire as data is [`crate::wire::HttpRequest`] and
//!   [`crate::wire::HttpReply`]; settings are [`crate::MockSettings`]; server options [`crate::ServerOptions`].

pub mod host_data;
pub mod host_read;
pub mod outcome;
pub mod request;
pub mod responder;
pub mod spec;
pub mod strict;
pub mod strict_text;
mod verbs;

pub use host_data::{data_from_json, to_json, HostNode, HostReadError, HostValue, MAX_DEPTH};
pub use host_read::{from_host, read_host};
pub use request::RequestInput;
pub use responder::{step_from_answer, step_from_answer_json, tool_result_from_json, JsonResponder};
pub use spec::{FailSpec, MatchSpec, RouteOptions, RouteSpec, SpecProblem, StepInput, StepSpec, ToolCallSpec};
pub use strict::{deserialize_data, DataError};
pub use strict_text::read_json_text;

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
