//! What a script says: the vocabulary a [`crate::mock::MockModel`] answers from, as code and as data.
//!
//! - [`step`]: a [`Step`] answers exactly one request;
//! - [`route`]: a [`Route`] is a match (operation, model, endpoint, predicate) with its own list of steps and
//!   cursor; the first route that matches a request answers it, and what happens after its last step is its
//!   [`Exhaustion`] policy;
//! - [`settings`]: the [`MockSettings`] that are not steps, and the whole [`Script`];
//! - [`call_error`]: what a call fails with besides a provider error;
//! - [`spec`]: the same vocabulary as serde data (what scenario files and every binding send);
//! - [`mcp`]: the MCP servers a scenario declares beside its routes;
//! - [`recorded`]: an exchange recorded from a real provider, which a step replays.
//!
//! A step's answer itself is [`crate::answer::Answer`], one layer down.

pub mod a2a;
pub mod call_error;
pub mod mcp;
pub mod recorded;
pub mod route;
pub mod settings;
pub mod spec;
pub mod step;

pub(crate) use call_error::callback_failed;
pub use call_error::{CallError, HostError};
pub use route::{Exhaustion, RequestPredicate, Route, RouteMatch};
pub use settings::{MockSettings, ReasoningField, Script};
pub(crate) use step::preview;
pub use step::{Responder, Step, StepBody, StepTiming, StreamBreak, Timing};

#[cfg(test)]
mod tests;
