//! Computed answers from hosts that speak JSON: a Python callable, a JS function, a C function pointer or a JNI
//! reference gets the request and returns what `then_responds` takes (a text or a step object). Everything after
//! the host call is here, so an unusable return value is the same `callback_failed` error in every language.

use crate::error::{Error, ErrorKind};
use crate::model::ChatRequest;
use crate::script::spec::StepInput;
use crate::script::{CallError, Responder, Step};
use serde_json::Value;

/// A [`Responder`] over a host function returning JSON data (already converted from the host's value).
pub struct JsonResponder<F> {
    host: F,
    host_key: Option<u64>,
}

impl<F> JsonResponder<F>
where
    F: Fn(&ChatRequest) -> Result<Value, CallError> + Send + Sync,
{
    /// Wraps `host`, which returns the answer as JSON data or the host's own error ([`CallError::Host`]).
    pub fn new(host: F) -> JsonResponder<F> {
        JsonResponder { host, host_key: None }
    }

    /// Names the host's callback for hosts that answer computed steps asynchronously ([`Responder::host_key`]).
    pub fn with_host_key(mut self, key: u64) -> JsonResponder<F> {
        self.host_key = Some(key);
        self
    }
}

impl<F> Responder for JsonResponder<F>
where
    F: Fn(&ChatRequest) -> Result<Value, CallError> + Send + Sync,
{
    fn respond(&self, request: &ChatRequest) -> Result<Step, CallError> {
        step_from_answer((self.host)(request)?)
    }

    fn host_key(&self) -> Option<u64> {
        self.host_key
    }
}

/// The step a computed answer returned as JSON data; anything unusable is `callback_failed` naming the problem.
pub fn step_from_answer(answer: Value) -> Result<Step, CallError> {
    let unusable = |problem: String| {
        CallError::Cuecard(Error::new(
            ErrorKind::CallbackFailed,
            format!("a computed answer must be a text or a step object: {problem}"),
        ))
    };
    let input = StepInput::from_value(answer, "computed answer").map_err(|e| unusable(e.message().to_string()))?;
    input.build().map_err(|p| unusable(p.into_argument_error("computed answer").message().to_string()))
}

/// The step a computed answer returned as JSON text (what a C callback gives back).
pub fn step_from_answer_json(text: &str) -> Result<Step, CallError> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, format!("a computed answer is not valid JSON: {e}")))
    })?;
    step_from_answer(value)
}

/// A tool's result as JSON text (what a C or Java function gives back): `callback_failed` when it is not JSON.
pub fn tool_result_from_json(text: &str) -> Result<Value, CallError> {
    serde_json::from_str(text).map_err(|e| {
        CallError::Cuecard(Error::new(ErrorKind::CallbackFailed, format!("a tool result is not valid JSON: {e}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockModel;
    use serde_json::json;

    #[test]
    fn a_json_host_computes_any_step_and_an_unusable_answer_is_callback_failed() {
        let mock = MockModel::new();
        let host = |request: &ChatRequest| -> Result<Value, CallError> {
            let text = request.last_user_message().map(|m| m.text()).unwrap_or_default();
            Ok(match text.as_str() {
                "number" => json!(123),
                "fail" => json!({"fail": {"kind": "rate_limited"}}),
                other => json!(format!("echo: {other}")),
            })
        };
        mock.then_computes(std::sync::Arc::new(JsonResponder::new(host))).unwrap();
        mock.then_repeats().unwrap();
        let ask = |text: &str| mock.chat(ChatRequest::user("m", text));
        assert_eq!(ask("hi").unwrap().text(), "echo: hi");
        assert_eq!(ask("fail").unwrap_err().provider().map(|e| e.status), Some(Some(429)));
        let err = ask("number").unwrap_err();
        assert_eq!(err.code(), "callback_failed");
        assert!(err.to_string().starts_with("a computed answer must be a text or a step object: invalid computed answer: invalid type: integer `123`"), "{err}");
        assert_eq!(step_from_answer_json("{nope").unwrap_err().code(), "callback_failed");
        assert_eq!(tool_result_from_json("[1, 2]").unwrap(), json!([1, 2]));
        let err = tool_result_from_json("nope").unwrap_err();
        assert_eq!(err.code(), "callback_failed");
        assert!(err.to_string().starts_with("a tool result is not valid JSON"), "{err}");
    }
}
