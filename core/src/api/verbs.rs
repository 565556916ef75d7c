//! The seed systems' scripting verbs as methods of [`MockModel`], taking the spec types, so that every binding's
//! `then_responds` / `thenResponds` / `cuecard_mock_then_responds` is one call. They act on the current route
//! (the last one added with `route`) and report misuse as `invalid_argument` or `invalid_state`.

use crate::error::Result;
use crate::mock::MockModel;
use crate::provider_error::ProviderError;
use crate::script::spec::{FailSpec, MatchSpec, StepInput, ToolCallSpec};
use crate::script::{Exhaustion, Responder, Route, Step};
use serde_json::Value;
use std::sync::Arc;

impl MockModel {
    /// Adds a step: a text (streamed in word-like tokens) or a step object (LangChain4j's `thenResponds`).
    pub fn then_responds(&self, answer: impl Into<StepInput>) -> Result<()> {
        let step = answer.into().build().map_err(|p| p.into_argument_error("answer"))?;
        self.add_step(step)
    }

    /// Adds a step streaming exactly these tokens; no tokens means an answer without text.
    pub fn then_streams<I, S>(&self, tokens: I) -> Result<()>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let step = Step::tokens(tokens).map_err(|e| e.with_context("argument", "tokens"))?;
        self.add_step(step)
    }

    /// Adds a step calling one tool. Arguments follow the seed rule of [`ToolCallSpec::new`]: a JSON string is raw
    /// arguments text (possibly invalid JSON), any other value the arguments, `null` means `{}`.
    pub fn then_calls_tool(&self, name: &str, arguments: Value) -> Result<()> {
        self.then_calls_tools(vec![ToolCallSpec::new(name, arguments)])
    }

    /// Adds a step calling several tools in one answer.
    pub fn then_calls_tools(&self, calls: Vec<ToolCallSpec>) -> Result<()> {
        let spec = crate::script::spec::StepSpec { tool_calls: Some(calls), ..Default::default() };
        let step = spec.build().map_err(|p| p.into_argument_error("tool calls"))?;
        self.add_step(step)
    }

    /// Adds a step that fails before anything is streamed.
    pub fn then_fails(&self, failure: &FailSpec) -> Result<()> {
        let error = failure.to_error().map_err(|p| p.into_argument_error("failure"))?;
        self.add_step(Step::fail(error))
    }

    /// Adds a step whose answer a host callback computes from the request.
    pub fn then_computes(&self, responder: Arc<dyn Responder>) -> Result<()> {
        self.add_step(Step::compute_shared(responder))
    }

    /// Makes the last step of the current route fail after its thinking and text were streamed (LangChain4j's
    /// `andFails`); it adds no step.
    pub fn and_fails(&self, failure: &FailSpec) -> Result<()> {
        let error = failure.to_error().map_err(|p| p.into_argument_error("failure"))?;
        self.fail_last_step_after(error)
    }

    /// Answers every further request of the current route with its last step (LangChain4j's `thenRepeats`). It
    /// must be the last verb of a route; a last step that calls a tool cannot repeat.
    pub fn then_repeats(&self) -> Result<()> {
        self.repeat_last_step()
    }

    /// Starts a route: the steps added next answer only requests that match (the first matching route wins; a
    /// route without criteria takes every other request and belongs last). Returns the route's index.
    pub fn route(&self, matcher: &MatchSpec, on_exhausted: Option<Exhaustion>) -> Result<usize> {
        let mut route = Route::new(matcher.to_route_match()?);
        route.exhaustion = on_exhausted;
        self.add_route(route)
    }
}

impl From<&ProviderError> for FailSpec {
    fn from(error: &ProviderError) -> FailSpec {
        FailSpec {
            kind: error.kind,
            status: error.status,
            message: Some(error.message.clone()),
            retryable: Some(error.retryable),
            retry_after_ms: error.retry_after_ms,
            error_type: error.error_type.clone(),
            error_code: error.error_code.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChatRequest;
    use crate::provider_error::ProviderErrorKind;
    use serde_json::json;

    #[test]
    fn the_seed_verbs_script_a_mock() {
        let mock = MockModel::new();
        mock.route(&MatchSpec { operation: Some("classify".into()), ..MatchSpec::default() }, None).unwrap();
        mock.then_responds("spam").unwrap();
        mock.then_repeats().unwrap();
        mock.route(&MatchSpec::default(), None).unwrap();
        mock.then_fails(&FailSpec { retry_after_ms: Some(20), ..FailSpec::of(ProviderErrorKind::RateLimited) })
            .unwrap();
        mock.then_calls_tool("lookup", json!("{\"id\": 1")).unwrap();
        mock.then_streams(["Hel", "lo"]).unwrap();
        mock.and_fails(&FailSpec::of(ProviderErrorKind::ConnectionReset)).unwrap();
        let classify = ChatRequest::user("m", "x").with_operation("classify");
        assert_eq!(mock.chat(&classify).unwrap().text(), "spam");
        assert_eq!(mock.chat(&classify).unwrap().text(), "spam");
        let other = ChatRequest::user("m", "x");
        assert_eq!(mock.chat(&other).unwrap_err().provider().and_then(|e| e.retry_after_ms), Some(20));
        assert_eq!(mock.chat(&other).unwrap().message.tool_calls[0].arguments, "{\"id\": 1");
        let stream = mock.chat_stream(&other).unwrap();
        assert_eq!(stream.text_tokens(), ["Hel", "lo"]);
        assert!(stream.error().is_some());
    }

    #[test]
    fn misuse_names_the_argument() {
        let mock = MockModel::new();
        let err = mock.then_responds("").unwrap_err();
        assert_eq!((err.code(), err.context()["argument"].as_str()), ("invalid_argument", Some("answer")));
        let err = mock.then_streams(["a", ""]).unwrap_err();
        assert_eq!(err.context()["argument"], "tokens");
        let err = mock.then_calls_tool("", Value::Null).unwrap_err();
        assert_eq!(err.issues()[0].path, "tool_calls[0].name");
        let err = mock.and_fails(&FailSpec::of(ProviderErrorKind::Timeout)).unwrap_err();
        assert_eq!(err.code(), "invalid_state");
    }
}
