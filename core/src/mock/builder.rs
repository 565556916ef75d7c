//! [`MockBuilder`]: a fluent Rust builder over a mock's scripting calls.

use super::*;
use crate::error::{Error, Result};
use crate::provider_error::ProviderError;
use crate::script::{Exhaustion, MockSettings, Responder, Route, RouteMatch, Step};
use crate::usage::UsagePolicy;

/// Fluent Rust builder over [`MockModel`]'s scripting calls; the first misuse is reported by [`MockBuilder::build`].
#[must_use]
pub struct MockBuilder {
    pub(super) mock: MockModel,
    pub(super) error: Option<Error>,
}

impl MockBuilder {
    fn apply(mut self, f: impl FnOnce(&MockModel) -> Result<()>) -> MockBuilder {
        if self.error.is_none() {
            if let Err(e) = f(&self.mock) {
                self.error = Some(e);
            }
        }
        self
    }

    fn apply_step(self, step: Result<Step>) -> MockBuilder {
        self.apply(|mock| mock.add_step(step?))
    }

    /// Adds a step.
    pub fn step(self, step: Step) -> MockBuilder {
        self.apply_step(Ok(step))
    }

    /// Adds a step that streams `text` in word-like tokens.
    pub fn responds(self, text: impl Into<String>) -> MockBuilder {
        self.apply_step(Step::text(text))
    }

    /// Adds a step that streams exactly these tokens.
    pub fn streams<I, S>(self, tokens: I) -> MockBuilder
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.apply_step(Step::tokens(tokens))
    }

    /// Adds a step that calls a tool.
    pub fn calls_tool(self, name: impl Into<String>, arguments: serde_json::Value) -> MockBuilder {
        self.apply_step(Ok(Step::tool_call(name, &arguments)))
    }

    /// Adds a step that fails before streaming.
    pub fn fails(self, error: ProviderError) -> MockBuilder {
        self.apply_step(Ok(Step::fail(error)))
    }

    /// Adds a step computed from the request.
    pub fn computes(self, responder: impl Responder + 'static) -> MockBuilder {
        self.apply_step(Ok(Step::compute(responder)))
    }

    /// Makes the last step fail after its tokens.
    pub fn and_fails(self, error: ProviderError) -> MockBuilder {
        self.apply(|mock| mock.fail_last_step_after(error))
    }

    /// Repeats the last step for every further request.
    pub fn repeats(self) -> MockBuilder {
        self.apply(MockModel::repeat_last_step)
    }

    /// Adds a route; the steps added after it (until the next route) belong to it.
    pub fn route(self, matcher: RouteMatch) -> MockBuilder {
        self.apply(|mock| mock.add_route(Route::new(matcher)).map(|_| ()))
    }

    /// Sets the route-level exhaustion policy of the current route.
    pub fn route_on_exhausted(self, exhaustion: Exhaustion) -> MockBuilder {
        self.apply(|mock| mock.set_route_exhaustion(exhaustion))
    }

    /// Changes the settings that `settings` gives.
    pub fn settings(self, settings: MockSettings) -> MockBuilder {
        self.apply(|mock| mock.configure(&settings))
    }

    /// Sets the default exhaustion policy.
    pub fn on_exhausted(self, exhaustion: Exhaustion) -> MockBuilder {
        self.apply(|mock| mock.set_exhaustion(exhaustion))
    }

    /// Sets the usage policy.
    pub fn usage(self, usage: UsagePolicy) -> MockBuilder {
        self.apply(|mock| {
            mock.set_usage(usage);
            Ok(())
        })
    }

    /// Sets the provider id.
    pub fn provider_id(self, id: impl Into<String>) -> MockBuilder {
        let id = id.into();
        self.apply(|mock| {
            mock.set_provider_id(id);
            Ok(())
        })
    }

    /// The mock, or the first scripting error.
    pub fn build(self) -> Result<MockModel> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.mock),
        }
    }
}
