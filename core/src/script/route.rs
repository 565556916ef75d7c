//! Routes: which requests a route answers ([`RouteMatch`]), its steps and cursor ([`Route`]), and what it does after
//! its last step ([`Exhaustion`]).

use super::step::Step;
use crate::error::{invalid_argument, invalid_state, Error, Result};
use crate::model::ChatRequest;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// What a route does with a request that arrives after its last step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exhaustion {
    /// Fail with an error that shows the request and the script's position (the default).
    #[default]
    Fail,
    /// Answer every further request with the last step (a computed last step computes again).
    RepeatLast,
    /// Start over from the first step.
    Cycle,
}

impl Exhaustion {
    /// Every policy.
    pub const ALL: [Exhaustion; 3] = [Exhaustion::Fail, Exhaustion::RepeatLast, Exhaustion::Cycle];

    /// The snake_case name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Exhaustion::Fail => "fail",
            Exhaustion::RepeatLast => "repeat_last",
            Exhaustion::Cycle => "cycle",
        }
    }

    /// The step a call takes among `steps` that are taken in any order by what they `accept` (MCP tool steps, A2A
    /// agent steps; `used` marks those taken): the first unused one it meets, else what this policy says (the last
    /// used one it meets, or all unused again once every one was used); marked used.
    pub fn take<S>(self, used: &mut [bool], steps: &[S], accepts: impl Fn(&S) -> bool) -> Option<usize> {
        let first_unused = |used: &[bool]| used.iter().zip(steps).position(|(used, step)| !used && accepts(step));
        let taken = first_unused(used).or_else(|| match self {
            Exhaustion::Fail => None,
            Exhaustion::RepeatLast => used.iter().zip(steps).rposition(|(used, step)| *used && accepts(step)),
            Exhaustion::Cycle if used.iter().all(|u| *u) => {
                used.iter_mut().for_each(|u| *u = false);
                first_unused(used)
            }
            Exhaustion::Cycle => None,
        })?;
        *used.get_mut(taken)? = true;
        Some(taken)
    }
}

impl std::str::FromStr for Exhaustion {
    type Err = Error;

    /// `fail`, `repeat_last` or `cycle`; anything else is `invalid_argument` naming the three.
    fn from_str(text: &str) -> Result<Exhaustion> {
        Exhaustion::ALL.into_iter().find(|e| e.as_str() == text).ok_or_else(|| {
            invalid_argument(format!("on_exhausted {text:?} is not one of fail, repeat_last, cycle"))
                .with_context("argument", "on_exhausted")
        })
    }
}

/// A predicate over requests, for routes that match by content.
pub type RequestPredicate = Arc<dyn Fn(&ChatRequest) -> bool + Send + Sync>;

/// Which requests a route answers. Every given criterion must hold; an empty match takes every request.
#[derive(Clone, Default)]
pub struct RouteMatch {
    /// The request's operation name.
    pub operation: Option<String>,
    /// The request's model.
    pub model: Option<String>,
    /// The endpoint the request arrived on.
    pub endpoint: Option<String>,
    /// Any further condition.
    pub predicate: Option<RequestPredicate>,
    /// The request itself, field by field (a recorded exchange's route holds the whole request).
    pub request: Option<Arc<crate::request_match::RequestMatcher>>,
}

impl fmt::Debug for RouteMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl RouteMatch {
    /// Matches every request.
    pub fn any() -> RouteMatch {
        RouteMatch::default()
    }

    /// Matches requests for this operation.
    pub fn operation(operation: impl Into<String>) -> RouteMatch {
        RouteMatch { operation: Some(operation.into()), ..RouteMatch::default() }
    }

    /// Matches requests for this model.
    pub fn model(model: impl Into<String>) -> RouteMatch {
        RouteMatch { model: Some(model.into()), ..RouteMatch::default() }
    }

    /// Matches requests that arrived on this endpoint.
    pub fn endpoint(endpoint: impl Into<String>) -> RouteMatch {
        RouteMatch { endpoint: Some(endpoint.into()), ..RouteMatch::default() }
    }

    /// Matches requests for which `predicate` holds.
    pub fn predicate(predicate: impl Fn(&ChatRequest) -> bool + Send + Sync + 'static) -> RouteMatch {
        RouteMatch { predicate: Some(Arc::new(predicate)), ..RouteMatch::default() }
    }

    /// Adds a model criterion.
    pub fn and_model(mut self, model: impl Into<String>) -> RouteMatch {
        self.model = Some(model.into());
        self
    }

    /// Whether the route takes `request`.
    pub fn matches(&self, request: &ChatRequest) -> bool {
        self.operation.as_deref().is_none_or(|op| request.metadata.operation.as_deref() == Some(op))
            && self.model.as_deref().is_none_or(|model| request.model == model)
            && self.endpoint.as_deref().is_none_or(|ep| request.metadata.endpoint.as_deref() == Some(ep))
            && self.predicate.as_ref().is_none_or(|p| p(request))
            && self.request.as_ref().is_none_or(|m| m.matches(request))
    }

    /// Whether this matches every request.
    pub fn is_default(&self) -> bool {
        self.operation.is_none()
            && self.model.is_none()
            && self.endpoint.is_none()
            && self.predicate.is_none()
            && self.request.is_none()
    }

    /// `operation="classify", model="gpt-4o"`, or `default`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(op) = &self.operation {
            parts.push(format!("operation={op:?}"));
        }
        if let Some(model) = &self.model {
            parts.push(format!("model={model:?}"));
        }
        if let Some(endpoint) = &self.endpoint {
            parts.push(format!("endpoint={endpoint:?}"));
        }
        if self.predicate.is_some() {
            parts.push("predicate".to_string());
        }
        if let Some(request) = &self.request {
            let fields = request.fields().collect::<Vec<_>>().join(", ");
            match request.last_user_text() {
                Some(text) => parts.push(format!("request ({fields}; last user message {:?})", brief_text(&text))),
                None => parts.push(format!("request ({fields})")),
            }
        }
        if parts.is_empty() {
            "default".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// A text cut to 60 characters for a one-line description.
fn brief_text(text: &str) -> String {
    const LIMIT: usize = 60;
    if text.chars().count() <= LIMIT {
        return text.to_string();
    }
    let cut: String = text.chars().take(LIMIT).collect();
    format!("{cut}...")
}

/// A route: a match and its own steps, cursor and exhaustion policy.
#[derive(Clone, Debug, Default)]
pub struct Route {
    pub(crate) matcher: RouteMatch,
    pub(crate) steps: Vec<Arc<Step>>,
    pub(crate) exhaustion: Option<Exhaustion>,
    /// How its wire requests are checked against the real APIs' rules, instead of the mock's `contracts`.
    pub(crate) contracts: Option<crate::contracts::Contracts>,
}

impl Route {
    /// A route with no steps yet.
    pub fn new(matcher: RouteMatch) -> Route {
        Route { matcher, steps: Vec::new(), exhaustion: None, contracts: None }
    }

    /// Adds a step.
    pub fn step(mut self, step: Step) -> Route {
        self.steps.push(Arc::new(step));
        self
    }

    /// Sets how this route's wire requests are checked against the real APIs' rules (otherwise the mock's
    /// `contracts`).
    pub fn contracts(mut self, contracts: crate::contracts::Contracts) -> Route {
        self.contracts = Some(contracts);
        self
    }

    /// Sets this route's exhaustion policy (otherwise the mock's).
    pub fn on_exhausted(mut self, exhaustion: Exhaustion) -> Route {
        self.exhaustion = Some(exhaustion);
        self
    }

    /// The match.
    pub fn matcher(&self) -> &RouteMatch {
        &self.matcher
    }

    /// The steps, in order.
    pub fn steps(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().map(|s| s.as_ref())
    }

    /// Checks a route under the effective policy: a repeating last step may not call a tool (an agent would
    /// call it forever) unless it is computed.
    pub(crate) fn check_policy(&self, effective: Exhaustion) -> Result<()> {
        if effective == Exhaustion::RepeatLast {
            if let Some(last) = self.steps.last() {
                if last.calls_tools() {
                    return Err(invalid_state(
                        "a step that calls a tool cannot repeat: an agent would call the tool again and again; \
                         compute the answer instead to test a model that keeps calling a tool",
                    ));
                }
            }
        }
        Ok(())
    }
}
