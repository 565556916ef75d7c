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

/// The `a2a` section as a build reads it: the agents natively; in the WebAssembly module, which serves no agents
/// (`a2a/absent.rs`), the data as given — a JSON value, which costs the module no reader of its own (the agents'
/// types would cost it 12 KB gzipped).
#[cfg(not(target_arch = "wasm32"))]
pub type A2aSection = a2a::A2a;
/// The `a2a` section as the WebAssembly module reads it (see the native alias).
#[cfg(target_arch = "wasm32")]
pub type A2aSection = serde_json::Value;

/// Whether an `a2a` section names an agent.
pub fn a2a_has_agents(section: &A2aSection) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    return !section.agents.is_empty();
    #[cfg(target_arch = "wasm32")]
    return section.get("agents").and_then(serde_json::Value::as_array).is_some_and(|a| !a.is_empty());
}

/// What is wrong with an `a2a` section: `(field path below "a2a", problem)` (nothing the WebAssembly module checks).
pub fn a2a_problem(section: &A2aSection) -> Option<(String, String)> {
    #[cfg(not(target_arch = "wasm32"))]
    return section.problem();
    #[cfg(target_arch = "wasm32")]
    {
        let _ = section;
        None
    }
}
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
