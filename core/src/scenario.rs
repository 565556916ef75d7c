//! Scenarios: a whole script as data (JSON or YAML), identical in every language and in the CLI.
//!
//! ```json
//! {"cuecard": 1, "on_exhausted": "fail", "usage": "none", "seed": 0,
//!  "routes": [{"match": {"operation": "classify"}, "steps": [{"text": "spam"}]},
//!             {"steps": [{"fail": {"kind": "rate_limited", "retry_after_ms": 20}}, {"text": "Hello!"}]}]}
//! ```
//! The format is documented in the README and described by `tests/scenario.schema.json`. Unknown fields and
//! wrong types are errors naming the path of the offending field; semantic problems are all reported at once.

use crate::error::{Error, ErrorKind, Issue, Result};
use crate::failure::{ProviderError, ProviderErrorKind};
use crate::mock::MockModel;
use crate::model::{ChatResponse, FinishReason, Usage};
use crate::script::{Answer, Chunks, Exhaustion, Route, RouteMatch, ScriptedToolCall, Step, StreamBreak, Timing};
use crate::usage::UsagePolicy;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// The scenario format version this build reads.
pub const FORMAT_VERSION: u64 = 1;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioSpec {
    cuecard: u64,
    #[serde(default)]
    on_exhausted: Option<Exhaustion>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    provider_id: Option<String>,
    #[serde(default)]
    description: Option<String>,
    routes: Vec<RouteSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteSpec {
    #[serde(default, rename = "match")]
    matcher: Option<MatchSpec>,
    #[serde(default)]
    on_exhausted: Option<Exhaustion>,
    steps: Vec<StepSpec>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MatchSpec {
    #[serde(default)]
    operation: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    endpoint: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepSpec {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    tokens: Option<Vec<String>>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallSpec>>,
    #[serde(default)]
    response: Option<ChatResponse>,
    #[serde(default)]
    fail: Option<FailSpec>,
    #[serde(default)]
    fail_after: Option<FailSpec>,
    #[serde(default)]
    finish_reason: Option<FinishReason>,
    #[serde(default)]
    usage: Option<UsageSpec>,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    ttft_ms: Option<u64>,
    #[serde(default)]
    token_delay_ms: Option<u64>,
    #[serde(default)]
    stall_ms: Option<u64>,
    #[serde(default)]
    fail_after_as: Option<StreamBreak>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallSpec {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    arguments_json: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FailSpec {
    kind: ProviderErrorKind,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    retryable: Option<bool>,
    #[serde(default)]
    retry_after_ms: Option<u64>,
    #[serde(default)]
    error_type: Option<String>,
    #[serde(default)]
    error_code: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageSpec {
    input_tokens: u64,
    output_tokens: u64,
    #[serde(default)]
    total_tokens: Option<u64>,
    #[serde(default)]
    cached_tokens: Option<u64>,
}

impl UsageSpec {
    fn to_usage(&self) -> Usage {
        let mut usage = Usage::new(self.input_tokens, self.output_tokens);
        if let Some(total) = self.total_tokens {
            usage.total_tokens = total;
        }
        usage.cached_tokens = self.cached_tokens;
        usage
    }
}

impl FailSpec {
    fn to_error(&self) -> ProviderError {
        let mut error = ProviderError::new(self.kind);
        if let Some(status) = self.status {
            error.status = Some(status);
            if self.kind == ProviderErrorKind::Custom {
                error.retryable = matches!(status, 408 | 409 | 429) || status >= 500;
            }
        }
        if let Some(message) = &self.message {
            error.message = message.clone();
        }
        if let Some(retryable) = self.retryable {
            error.retryable = retryable;
        }
        error.retry_after_ms = self.retry_after_ms;
        error.error_type = self.error_type.clone();
        error.error_code = self.error_code.clone();
        error
    }
}

/// A parsed, validated scenario. Build as many mocks from it as you like.
#[derive(Clone, Debug)]
pub struct Scenario {
    routes: Vec<Route>,
    exhaustion: Exhaustion,
    usage: UsagePolicy,
    seed: u64,
    provider_id: Option<String>,
    description: Option<String>,
}

fn invalid(path: &str, message: impl Into<String>) -> Error {
    Error::with_issues(
        ErrorKind::InvalidScenario,
        "invalid scenario",
        vec![Issue { path: path.to_string(), message: message.into() }],
    )
}

fn serde_issue(path: String, message: String) -> Error {
    let path = if path == "." { String::new() } else { path };
    invalid(&path, message)
}

impl Scenario {
    /// Parses and validates a JSON scenario.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: ScenarioSpec = serde_path_to_error::deserialize(de)
            .map_err(|e| serde_issue(e.path().to_string(), e.inner().to_string()))?;
        Scenario::from_spec(spec)
    }

    /// Parses and validates a YAML scenario.
    pub fn from_yaml(text: &str) -> Result<Scenario> {
        let de = serde_yaml_ng::Deserializer::from_str(text);
        let spec: ScenarioSpec = serde_path_to_error::deserialize(de)
            .map_err(|e| serde_issue(e.path().to_string(), e.inner().to_string()))?;
        Scenario::from_spec(spec)
    }

    /// Parses and validates a scenario given as a JSON value (a Python dict, a JS object).
    pub fn from_value(value: Value) -> Result<Scenario> {
        let spec: ScenarioSpec = serde_path_to_error::deserialize(value)
            .map_err(|e| serde_issue(e.path().to_string(), e.inner().to_string()))?;
        Scenario::from_spec(spec)
    }

    /// Reads a scenario file: YAML for `.yaml`/`.yml`, JSON otherwise. Invalid UTF-8 is an error.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Scenario> {
        let path = path.as_ref();
        let bytes = std::fs::read(path)
            .map_err(|e| Error::new(ErrorKind::Io, format!("cannot read {}: {e}", path.display())))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                ErrorKind::InvalidUtf8,
                format!("{} is not valid UTF-8 (byte {})", path.display(), e.utf8_error().valid_up_to()),
            )
        })?;
        let is_yaml = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        if is_yaml {
            Scenario::from_yaml(&text)
        } else {
            Scenario::from_json(&text)
        }
    }

    fn from_spec(spec: ScenarioSpec) -> Result<Scenario> {
        let mut issues = Vec::new();
        if spec.cuecard != FORMAT_VERSION {
            issues.push(Issue {
                path: "cuecard".into(),
                message: format!("unsupported format version {} (this build reads {FORMAT_VERSION})", spec.cuecard),
            });
        }
        let usage = match &spec.usage {
            None => UsagePolicy::None,
            Some(Value::String(s)) if s == "none" => UsagePolicy::None,
            Some(Value::String(s)) if s == "estimate" => UsagePolicy::Estimate,
            Some(value @ Value::Object(_)) => match serde_json::from_value::<UsageSpec>(value.clone()) {
                Ok(u) => UsagePolicy::Given(u.to_usage()),
                Err(e) => {
                    issues.push(Issue { path: "usage".into(), message: e.to_string() });
                    UsagePolicy::None
                }
            },
            Some(other) => {
                issues.push(Issue {
                    path: "usage".into(),
                    message: format!(
                        "expected \"none\", \"estimate\" or {{\"input_tokens\", \"output_tokens\"}}, found {other}"
                    ),
                });
                UsagePolicy::None
            }
        };
        if spec.routes.is_empty() {
            issues.push(Issue { path: "routes".into(), message: "a scenario needs at least one route".into() });
        }
        let exhaustion = spec.on_exhausted.unwrap_or_default();
        let mut routes = Vec::new();
        for (r, route_spec) in spec.routes.iter().enumerate() {
            let path = format!("routes[{r}]");
            let matcher = route_spec.matcher.as_ref().map_or_else(RouteMatch::any, |m| RouteMatch {
                operation: m.operation.clone(),
                model: m.model.clone(),
                endpoint: m.endpoint.clone(),
                predicate: None,
            });
            let mut route = Route::new(matcher);
            route.exhaustion = route_spec.on_exhausted;
            for (s, step_spec) in route_spec.steps.iter().enumerate() {
                match build_step(step_spec) {
                    Ok(step) => route = route.step(step),
                    Err(problem) => issues
                        .push(Issue { path: format!("{path}.steps[{s}]{}", problem.path), message: problem.message }),
                }
            }
            if let Err(e) = route.check_policy(route_spec.on_exhausted.unwrap_or(exhaustion)) {
                issues.push(Issue {
                    path: format!("{path}.steps[{}]", route_spec.steps.len().saturating_sub(1)),
                    message: e.message().to_string(),
                });
            }
            if route_spec.steps.is_empty() {
                issues.push(Issue { path: format!("{path}.steps"), message: "a route needs at least one step".into() });
            }
            if route.matcher.is_default() && r + 1 < spec.routes.len() {
                issues.push(Issue {
                    path,
                    message: "a route without a match takes every request, so the routes after it are never used; put it last"
                        .into(),
                });
            }
            routes.push(route);
        }
        if !issues.is_empty() {
            return Err(Error::with_issues(ErrorKind::InvalidScenario, "invalid scenario", issues));
        }
        Ok(Scenario {
            routes,
            exhaustion,
            usage,
            seed: spec.seed.unwrap_or(0),
            provider_id: spec.provider_id,
            description: spec.description,
        })
    }

    /// A fresh mock scripted by this scenario.
    pub fn to_mock(&self) -> Result<MockModel> {
        let mock = MockModel::new();
        mock.set_exhaustion(self.exhaustion)?;
        mock.set_usage(self.usage);
        mock.set_seed(self.seed);
        if let Some(id) = &self.provider_id {
            mock.set_provider_id(id.clone());
        }
        for route in &self.routes {
            mock.add_route(route.clone())?;
        }
        Ok(mock)
    }

    /// The routes.
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// The description, if the scenario has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Number of steps over all routes.
    pub fn step_count(&self) -> usize {
        self.routes.iter().map(|r| r.steps.len()).sum()
    }
}

/// Parses one step in the scenario format (`{"text": ...}`, `{"fail": {...}}`, ...), for bindings whose computed
/// answers and builders speak that format. The step is an argument there, so problems are `invalid_argument`
/// errors that name their path relative to the step.
pub fn step_from_value(value: Value) -> Result<Step> {
    let argument_error = |path: String, message: String| {
        let path = path.trim_start_matches('.').to_string();
        Error::with_issues(ErrorKind::InvalidArgument, "invalid step", vec![Issue { path, message }])
    };
    let spec: StepSpec = serde_path_to_error::deserialize(value)
        .map_err(|e| argument_error(e.path().to_string(), e.inner().to_string()))?;
    build_step(&spec).map_err(|p| argument_error(p.path, p.message))
}

/// A problem inside one step: a path relative to the step (`.fail`, `.tool_calls[1]`) and a message.
struct StepProblem {
    path: String,
    message: String,
}

fn problem(path: &str, message: impl Into<String>) -> StepProblem {
    StepProblem { path: path.to_string(), message: message.into() }
}

fn build_step(spec: &StepSpec) -> std::result::Result<Step, StepProblem> {
    let has_answer =
        spec.text.is_some() || spec.tokens.is_some() || spec.thinking.is_some() || spec.tool_calls.is_some();
    let kinds = [has_answer, spec.response.is_some(), spec.fail.is_some()].iter().filter(|b| **b).count();
    if kinds == 0 {
        return Err(problem("", "a step needs one of text, tokens, thinking, tool_calls, response or fail"));
    }
    if kinds > 1 {
        return Err(problem(
            "",
            "a step is either an answer (text, tokens, thinking, tool_calls), a response, or a fail, not several",
        ));
    }
    if spec.text.is_some() && spec.tokens.is_some() {
        return Err(problem("", "text and tokens are two ways to give the same text: use one"));
    }
    let mut step = if let Some(fail) = &spec.fail {
        if spec.fail_after.is_some() || spec.finish_reason.is_some() || spec.usage.is_some() {
            return Err(problem(
                ".fail",
                "a step that fails before streaming cannot also have fail_after, finish_reason or usage",
            ));
        }
        Step::fail(fail.to_error())
    } else if let Some(response) = &spec.response {
        Step::response(response.clone())
    } else {
        Step::answer(answer_from(spec)?)
    };
    step.timing = Timing {
        delay_ms: spec.delay_ms.unwrap_or(0),
        ttft_ms: spec.ttft_ms.unwrap_or(0),
        token_delay_ms: spec.token_delay_ms.unwrap_or(0),
        stall_ms: spec.stall_ms.unwrap_or(0),
    };
    if let Some(reason) = spec.finish_reason {
        step = step.with_finish_reason(reason);
    }
    if let Some(usage) = &spec.usage {
        step = step.with_usage(usage.to_usage());
    }
    if let Some(fail_after) = &spec.fail_after {
        step = step.failing_after(fail_after.to_error()).map_err(|e| problem(".fail_after", e.message()))?;
    }
    if let Some(form) = spec.fail_after_as {
        if spec.fail_after.is_none() {
            return Err(problem(
                ".fail_after_as",
                "fail_after_as says how fail_after looks on the wire: add fail_after",
            ));
        }
        step = step.with_fail_after_as(form);
    }
    Ok(step)
}

fn answer_from(spec: &StepSpec) -> std::result::Result<Answer, StepProblem> {
    let text = match (&spec.text, &spec.tokens) {
        (Some(text), _) if text.is_empty() => {
            return Err(problem(".text", "the text cannot be empty: use \"tokens\": [] for an answer without text"))
        }
        (Some(text), _) => Some(Chunks::Words(text.clone())),
        (None, Some(tokens)) => {
            if let Some(i) = tokens.iter().position(String::is_empty) {
                return Err(problem(&format!(".tokens[{i}]"), "a token cannot be empty"));
            }
            (!tokens.is_empty()).then(|| Chunks::Exact(tokens.clone()))
        }
        (None, None) => None,
    };
    let thinking = match &spec.thinking {
        Some(t) if t.is_empty() => return Err(problem(".thinking", "the thinking cannot be empty")),
        other => other.clone().map(Chunks::Words),
    };
    let mut tool_calls = Vec::new();
    for (i, call) in spec.tool_calls.iter().flatten().enumerate() {
        let path = format!(".tool_calls[{i}]");
        if call.name.is_empty() {
            return Err(problem(&format!("{path}.name"), "the tool name cannot be empty"));
        }
        let arguments = match (&call.arguments, &call.arguments_json) {
            (Some(_), Some(_)) => {
                return Err(problem(&path, "give arguments (a JSON value) or arguments_json (raw text), not both"))
            }
            (Some(value), None) => value.to_string(),
            (None, Some(raw)) => raw.clone(),
            (None, None) => "{}".to_string(),
        };
        tool_calls.push(ScriptedToolCall { id: call.id.clone(), name: call.name.clone(), arguments });
    }
    if spec.tool_calls.as_ref().is_some_and(Vec::is_empty) {
        return Err(problem(
            ".tool_calls",
            "tool_calls cannot be empty: leave it out for an answer without tool calls",
        ));
    }
    Ok(Answer { thinking, text, tool_calls })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChatRequest;

    fn issues(json: &str) -> Vec<String> {
        Scenario::from_json(json).unwrap_err().issues().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_scenario_builds_a_mock_with_routes() {
        let scenario = Scenario::from_json(
            r#"{"cuecard": 1, "routes": [
                {"match": {"operation": "classify"}, "steps": [{"text": "spam"}]},
                {"steps": [{"fail": {"kind": "rate_limited", "retry_after_ms": 20}}, {"text": "Hello!"}]}]}"#,
        )
        .unwrap();
        let mock = scenario.to_mock().unwrap();
        let classify = ChatRequest::user("m", "x").with_operation("classify");
        assert_eq!(mock.chat(&classify).unwrap().text(), "spam");
        let err = mock.chat(&ChatRequest::user("m", "x")).unwrap_err();
        assert_eq!(err.provider().and_then(|e| e.retry_after_ms), Some(20));
        assert_eq!(mock.chat(&ChatRequest::user("m", "x")).unwrap().text(), "Hello!");
    }

    #[test]
    fn unknown_fields_and_wrong_types_name_their_path() {
        let msg = issues(r#"{"cuecard":1,"routes":[{"steps":[{"txt":"a"}]}]}"#);
        assert!(msg[0].starts_with("routes[0].steps[0].txt: unknown field `txt`"), "{msg:?}");
        let msg = issues(r#"{"cuecard":1,"routes":[{"steps":[{"fail":{"kind":"rate_limit"}}]}]}"#);
        assert!(msg[0].starts_with("routes[0].steps[0].fail.kind:"), "{msg:?}");
        let msg = issues(r#"{"cuecard":1,"routes":[{"steps":[{"delay_ms":"5","text":"a"}]}]}"#);
        assert!(msg[0].starts_with("routes[0].steps[0].delay_ms:"), "{msg:?}");
    }

    #[test]
    fn semantic_problems_are_all_reported() {
        let msg = issues(
            r#"{"cuecard":2,"routes":[{"steps":[{"text":""},{"text":"a","fail":{"kind":"timeout"}},
               {"tool_calls":[{"name":"f","arguments":{},"arguments_json":"{}"}]}]}]}"#,
        );
        assert_eq!(msg.len(), 4, "{msg:?}");
        assert!(msg[0].starts_with("cuecard:"));
        assert!(msg[1].starts_with("routes[0].steps[0].text:"));
        assert!(msg[2].starts_with("routes[0].steps[1]:"));
        assert!(msg[3].starts_with("routes[0].steps[2].tool_calls[0]:"));
    }

    #[test]
    fn a_repeating_tool_call_is_refused() {
        let msg = issues(
            r#"{"cuecard":1,"on_exhausted":"repeat_last","routes":[{"steps":[{"tool_calls":[{"name":"f"}]}]}]}"#,
        );
        assert!(msg[0].contains("cannot repeat"), "{msg:?}");
    }

    #[test]
    fn yaml_reads_the_same_format() {
        let scenario = Scenario::from_yaml("cuecard: 1\nroutes:\n  - steps:\n      - tokens: [Hel, lo]\n").unwrap();
        let mock = scenario.to_mock().unwrap();
        assert_eq!(mock.chat(&ChatRequest::user("m", "x")).unwrap().text(), "Hello");
        let err = Scenario::from_yaml("cuecard: 1\nroutes:\n  - steps:\n      - tokens: 5\n").unwrap_err();
        assert!(err.issues()[0].path.starts_with("routes[0].steps[0].tokens"), "{err}");
    }
}
