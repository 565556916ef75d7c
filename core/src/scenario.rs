//! Scenarios: a whole script as data (JSON or YAML), identical in every language and in the CLI.
//!
//! ```json
//! {"cuecard": 1, "on_exhausted": "fail", "usage": "none", "seed": 0,
//!  "routes": [{"match": {"operation": "classify"}, "steps": [{"text": "spam"}]},
//!             {"steps": [{"fail": {"kind": "rate_limited", "retry_after_ms": 20}}, {"text": "Hello!"}]}]}
//! ```
//! The format is documented in the book (docs/reference/scenario.md, generated from the schema) and described by `tests/scenario.schema.json`. Unknown fields and
//! wrong types are errors naming the path of the offending field; semantic problems are all reported at once.

use crate::error::{Error, ErrorKind, Issue, Result};
use crate::script::spec::{MatchSpec, RouteSpec};
use crate::script::{Exhaustion, MockSettings, Route, RouteMatch, Script, StepTiming};
use crate::usage::UsagePolicy;
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// The scenario format version this build reads.
pub const FORMAT_VERSION: u64 = 1;

/// Nesting deeper than this is refused before parsing, as the wire server refuses such JSON (YAML parsing is
/// quadratic in depth, and no scenario needs more than a handful of levels).
pub const MAX_DEPTH: usize = 128;

/// A scenario document as written. Its settings are those of [`MockSettings`] that make sense in a file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioSpec {
    cuecard: u64,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    on_exhausted: Option<Exhaustion>,
    #[serde(default)]
    usage: Option<UsagePolicy>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    provider_id: Option<String>,
    #[serde(default)]
    capabilities: Option<Vec<String>>,
    #[serde(default)]
    step_defaults: Option<StepTiming>,
    #[serde(default)]
    instant: Option<bool>,
    #[serde(default)]
    reasoning_field: Option<crate::script::ReasoningField>,
    #[serde(default)]
    replay_speed: Option<f64>,
    #[serde(default)]
    recording: Option<RecordingSpec>,
    #[serde(default)]
    delivery: Option<crate::delivery::Delivery>,
    #[serde(default)]
    chaos: Option<crate::chaos::Chaos>,
    /// Faults inside answered steps, at seeded rates (`faults::AnswerFaults`).
    #[serde(default)]
    answer_faults: Option<crate::faults::AnswerFaults>,
    #[serde(default)]
    latency: Option<crate::latency::Latency>,
    #[serde(default)]
    contracts: Option<crate::contracts::Contracts>,
    #[serde(default)]
    rate_limits: Option<crate::rate_limits::RateLimits>,
    #[serde(default)]
    mcp: Option<crate::script::mcp::Mcp>,
    #[serde(default)]
    a2a: Option<crate::script::A2aSection>,
    #[serde(default)]
    routes: Vec<RouteSpec>,
}

/// A recording's own section: the recording format's version, and the request paths no route of the file
/// compares (added to each route's `match.ignore`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordingSpec {
    version: u64,
    #[serde(default)]
    ignore: Vec<String>,
    /// The day the recording was made (`YYYY-MM-DD`, UTC); written by the recorder.
    #[serde(default)]
    recorded_on: Option<String>,
    /// How many days a replay trusts it: replaying an older recording warns, naming the file.
    #[serde(default)]
    max_age_days: Option<u64>,
}

/// The recording format version this build reads (`recording.version`).
pub const RECORDING_VERSION: u64 = 1;

/// A YAML document as JSON data (a recording read to be appended to), nesting bounded as scenarios are.
pub fn yaml_value(text: &str) -> Result<Value> {
    let text = without_bom(text);
    crate::input::host_data::check_text_depth(text, MAX_DEPTH).map_err(|m| invalid("", m))?;
    serde_yaml_ng::from_str(text).map_err(|e| invalid("", e.to_string()))
}

/// A parsed, validated scenario: a [`Script`] and a description. Make as many mocks from it as you like
/// (`MockModel::from_scenario`).
#[derive(Clone, Debug)]
pub struct Scenario {
    script: Script,
    description: Option<String>,
    /// A recording's `recorded_on` and `max_age_days`.
    recording_age: Option<(String, Option<u64>)>,
}

fn invalid(path: &str, message: impl Into<String>) -> Error {
    Error::with_issues(
        ErrorKind::InvalidScenario,
        "invalid scenario",
        vec![Issue { path: path.to_string(), message: message.into() }],
    )
}

/// A serde error at a path. serde_yaml puts the position (and sometimes the path again) into its message; the
/// path is reported once, by the issue.
fn serde_issue(path: String, message: String) -> Error {
    let path = if path == "." { String::new() } else { path };
    let message = match message.split_once(" at line ") {
        Some((head, _)) if !head.is_empty() => head.to_string(),
        _ => message,
    };
    let message = match message.strip_prefix(&format!("{path}: ")) {
        Some(rest) if !path.is_empty() => rest.to_string(),
        _ => message,
    };
    invalid(&path, message)
}

/// The text without a leading UTF-8 byte order mark, which editors on Windows write at the start of files.
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The largest scenario file read (32 MiB, the limit of a scenario sent to `PUT /_cuecard/scenario`).
pub const MAX_SCENARIO_FILE_BYTES: u64 = crate::http::MAX_BODY_BYTES as u64;

/// The bytes of a scenario file, refusing what is not a regular file (checked before opening: opening a FIFO for
/// reading blocks until a writer comes) and reading at most one byte past the limit (the file may grow between the
/// check and the read).
fn read_scenario_file(path: &Path, shown: &str) -> Result<Vec<u8>> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).map_err(|e| Scenario::file_error(shown, &e))?;
    // A directory opens and then fails to read with the system's own EISDIR (`is_a_directory`, with its errno,
    // which a host turns into its own IsADirectoryError); what else is not a regular file is refused here.
    if !metadata.is_file() && !metadata.is_dir() {
        let reason = "it is not a regular file (a FIFO, a socket or a device); a scenario is read from a regular file";
        return Err(Scenario::read_error(shown, false, reason).with_context("io_error", "not_a_regular_file"));
    }
    let too_large = || {
        let reason = format!("it is larger than the limit of {MAX_SCENARIO_FILE_BYTES} bytes (32 MiB) for a scenario");
        Scenario::read_error(shown, false, &reason).with_context("io_error", "too_large")
    };
    if metadata.len() > MAX_SCENARIO_FILE_BYTES {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(|e| Scenario::file_error(shown, &e))?;
    // Sized from the metadata, so a file that is not growing is read in one allocation.
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    file.take(MAX_SCENARIO_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Scenario::file_error(shown, &e))?;
    if bytes.len() as u64 > MAX_SCENARIO_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

impl Scenario {
    /// Parses and validates a JSON scenario.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let text = without_bom(text);
        crate::input::host_data::check_text_depth(text, MAX_DEPTH).map_err(|m| invalid("", m))?;
        // Text becomes a JSON value first and the scenario is read from the value: one deserializer for the
        // scenario types instead of one per text format (which halves the crate's build time).
        let value: Value = serde_json::from_str(text).map_err(|e| invalid("", e.to_string()))?;
        Scenario::from_value(value)
    }

    /// Parses and validates a YAML scenario.
    pub fn from_yaml(text: &str) -> Result<Scenario> {
        Scenario::from_value(yaml_value(text)?)
    }

    /// Parses a scenario text that is JSON (it starts with `{`) or YAML.
    pub fn from_text(text: &str) -> Result<Scenario> {
        if without_bom(text).trim_start().starts_with('{') {
            Scenario::from_json(text)
        } else {
            Scenario::from_yaml(text)
        }
    }

    /// Parses and validates a scenario given as a JSON value (a Python dict, a JS object).
    pub fn from_value(value: Value) -> Result<Scenario> {
        // Read strictly: an array where an object belongs (`"routes": [["hi"]]`) is refused, not read by position.
        let spec: ScenarioSpec = crate::input::deserialize_data(&value).map_err(|e| serde_issue(e.path, e.message))?;
        Scenario::from_spec(spec)
    }

    /// Reads a scenario file: YAML for `.yaml`/`.yml`, JSON otherwise. Invalid UTF-8 is an error.
    ///
    /// Only a regular file of at most [`MAX_SCENARIO_FILE_BYTES`] is read: a FIFO would hang the reader, a device
    /// such as `/dev/zero` never ends, and a huge file would be read whole before anything could refuse it. Those
    /// are `io` errors with `io_error` `not_a_regular_file` or `too_large`.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Scenario> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        Scenario::from_file_bytes(&shown, read_scenario_file(path, &shown)?)
    }

    /// A scenario-sized text file (a scenario, a recording, a cassette to import) read as `serve --scenario`
    /// reads one: a regular file (a FIFO, a socket or a device is refused), at most 32 MiB, UTF-8.
    pub fn read_text(path: impl AsRef<Path>) -> Result<String> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        String::from_utf8(read_scenario_file(path, &shown)?).map_err(|e| {
            Error::new(
                ErrorKind::InvalidUtf8,
                format!("{shown} is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
            )
            .with_context("path", shown.clone())
        })
    }

    /// A scenario file a host read itself (a wasm instance has no file system): UTF-8, then YAML when the path
    /// ends in `.yaml`/`.yml`, else JSON, exactly as [`Scenario::from_path`].
    pub fn from_file_bytes(path: &str, bytes: Vec<u8>) -> Result<Scenario> {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                ErrorKind::InvalidUtf8,
                format!("{path} is not valid UTF-8 (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        let is_yaml = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        if is_yaml {
            Scenario::from_yaml(&text)
        } else {
            Scenario::from_json(&text)
        }
    }

    /// The error for a scenario file that cannot be read (`not_found` or `io`), with the host's own reason. Its
    /// context has the `path` and, for a missing file, `io_error: "not_found"`.
    pub fn read_error(path: &str, not_found: bool, reason: &str) -> Error {
        let kind = if not_found { ErrorKind::NotFound } else { ErrorKind::Io };
        let error = Error::new(kind, format!("cannot read {path}: {reason}")).with_context("path", path);
        if not_found {
            error.with_context("io_error", "not_found")
        } else {
            error
        }
    }

    /// The error for a file the core failed to read: [`Scenario::read_error`] with what the system said in the
    /// context, so a host raises its own file error (Python's `FileNotFoundError`, `PermissionError`, ... with
    /// `errno` and `filename`): `io_error` (`not_found`, `permission_denied`, `is_a_directory`, `other`) and
    /// `os_errno` when the system gave a number.
    pub fn file_error(path: &str, error: &std::io::Error) -> Error {
        use std::io::ErrorKind as Io;
        let io_error = match error.kind() {
            Io::NotFound => "not_found",
            Io::PermissionDenied => "permission_denied",
            Io::IsADirectory => "is_a_directory",
            _ => "other",
        };
        let read = Scenario::read_error(path, error.kind() == Io::NotFound, &error.to_string())
            .with_context("io_error", io_error);
        match error.raw_os_error() {
            Some(errno) => read.with_context("os_errno", errno),
            None => read,
        }
    }

    /// Whether a binding's scenario text names a file rather than holding JSON or YAML: it has no newline and
    /// does not start with `{`.
    pub fn names_a_file(source: &str) -> bool {
        !(source.contains('\n') || source.trim_start().starts_with('{'))
    }

    /// A scenario given the way the bindings take it: a text that is JSON or YAML (it has a newline, or starts
    /// with `{`), else the path of a file.
    pub fn from_text_or_path(source: &str) -> Result<Scenario> {
        if Scenario::names_a_file(source) {
            Scenario::from_path(source)
        } else {
            Scenario::from_text(source)
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
        let has_mcp = spec.mcp.as_ref().is_some_and(|m| !m.servers.is_empty());
        let has_agents = spec.a2a.as_ref().is_some_and(crate::script::a2a_has_agents);
        if spec.routes.is_empty() && !has_mcp && !has_agents {
            let message = "a scenario needs at least one route (or an mcp section with servers, or a2a agents)";
            issues.push(Issue { path: "routes".into(), message: message.into() });
        }
        if let Some((field, problem)) = spec.mcp.as_ref().and_then(crate::script::mcp::Mcp::problem) {
            issues.push(Issue { path: format!("mcp.{field}"), message: problem });
        }
        if let Some((field, problem)) = spec.a2a.as_ref().and_then(crate::script::a2a_problem) {
            issues.push(Issue { path: format!("a2a.{field}"), message: problem });
        }
        if let Some(recording) = &spec.recording {
            if recording.version != RECORDING_VERSION {
                issues.push(Issue {
                    path: "recording.version".into(),
                    message: format!(
                        "unsupported recording version {} (this build reads {RECORDING_VERSION})",
                        recording.version
                    ),
                });
            }
            if let Some(day) = recording.recorded_on.as_deref().filter(|d| crate::clock::date_days(d).is_none()) {
                let message = format!("{day:?} is not a date written YYYY-MM-DD");
                issues.push(Issue { path: "recording.recorded_on".into(), message });
            }
        }
        if let Some(speed) = spec.replay_speed.filter(|s| !(s.is_finite() && *s > 0.0)) {
            issues.push(Issue {
                path: "replay_speed".into(),
                message: format!("{speed} is not a positive number (2 replays twice as fast)"),
            });
        }
        if let Some((field, problem)) = spec.delivery.as_ref().and_then(crate::delivery::Delivery::problem) {
            issues.push(Issue { path: format!("delivery.{field}"), message: problem });
        }
        if let Some((field, problem)) = spec.chaos.as_ref().and_then(|c| c.problem(Some(spec.routes.len()))) {
            issues.push(Issue { path: format!("chaos.{field}"), message: problem });
        }
        let faults_problem = spec.answer_faults.as_ref().and_then(|f| f.problem(Some(spec.routes.len())));
        if let Some((field, problem)) = faults_problem {
            issues.push(Issue { path: format!("answer_faults.{field}"), message: problem });
        }
        if let Some((field, problem)) = spec.latency.as_ref().and_then(crate::latency::Latency::problem) {
            issues.push(Issue { path: format!("latency.{field}"), message: problem });
        }
        if let Some((field, problem)) = spec.contracts.as_ref().and_then(crate::contracts::Contracts::problem) {
            issues.push(Issue { path: format!("contracts.{field}"), message: problem });
        }
        if let Some((field, problem)) = spec.rate_limits.as_ref().and_then(crate::rate_limits::RateLimits::problem) {
            issues.push(Issue { path: format!("rate_limits.{field}"), message: problem });
        }
        let file_ignores: &[String] = spec.recording.as_ref().map_or(&[], |r| r.ignore.as_slice());
        let exhaustion = spec.on_exhausted.unwrap_or_default();
        let mut routes: Vec<Route> = Vec::new();
        // A recording is appended to one exchange at a time, so a request sent again is a route of its own further
        // down the file: its steps are that request's route's next ones (as if written in one route).
        let mut recorded_routes: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (r, route_spec) in spec.routes.iter().enumerate() {
            let path = format!("routes[{r}]");
            let to_match = |m: &MatchSpec| m.to_route_match_ignoring(file_ignores);
            let matcher = match route_spec.matcher.as_ref().map(to_match).transpose() {
                Ok(matcher) => matcher.unwrap_or_default(),
                Err(e) => {
                    issues.push(Issue { path: format!("{path}.match"), message: e.message().to_string() });
                    RouteMatch::any()
                }
            };
            let mut route = Route::new(matcher);
            route.exhaustion = route_spec.on_exhausted;
            route.contracts.clone_from(&route_spec.contracts);
            if let Some((field, problem)) = route_spec.contracts.as_ref().and_then(crate::contracts::Contracts::problem)
            {
                issues.push(Issue { path: format!("{path}.contracts.{field}"), message: problem });
            }
            for (s, step_input) in route_spec.steps.iter().enumerate() {
                match step_input.build() {
                    Ok(step) => route = route.step(step),
                    Err(problem) => issues.push(problem.at(&format!("{path}.steps[{s}]"))),
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
            let recorded_request = spec
                .recording
                .is_some()
                .then(|| route_spec.matcher.as_ref().and_then(|m| serde_json::to_string(m).ok()))
                .flatten();
            match recorded_request.as_ref().and_then(|key| recorded_routes.get(key)).and_then(|&i| routes.get_mut(i)) {
                Some(earlier) => earlier.steps.extend(route.steps),
                None => {
                    if let Some(key) = recorded_request {
                        recorded_routes.insert(key, routes.len());
                    }
                    routes.push(route);
                }
            }
        }
        if !issues.is_empty() {
            return Err(Error::with_issues(ErrorKind::InvalidScenario, "invalid scenario", issues));
        }
        let recording_age =
            spec.recording.as_ref().and_then(|r| r.recorded_on.clone().map(|day| (day, r.max_age_days)));
        let settings = MockSettings {
            on_exhausted: Some(exhaustion),
            usage: Some(spec.usage.unwrap_or_default()),
            seed: Some(spec.seed.unwrap_or(0)),
            provider_id: spec.provider_id,
            capabilities: spec.capabilities,
            step_defaults: spec.step_defaults,
            instant: spec.instant,
            journal_limit: None,
            reasoning_field: spec.reasoning_field,
            replay_speed: spec.replay_speed,
            recording: spec.recording.is_some().then_some(true),
            delivery: spec.delivery,
            chaos: spec.chaos,
            answer_faults: spec.answer_faults,
            latency: spec.latency,
            contracts: spec.contracts,
            rate_limits: spec.rate_limits,
            mcp: spec.mcp,
            a2a: spec.a2a,
        };
        Ok(Scenario { script: Script { routes, settings }, description: spec.description, recording_age })
    }

    /// The script: routes and settings.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// The routes.
    pub fn routes(&self) -> &[Route] {
        &self.script.routes
    }

    /// A recording's `recorded_on` (`YYYY-MM-DD`) and `max_age_days`, when it says the day it was made.
    pub fn recording_age(&self) -> Option<(&str, Option<u64>)> {
        self.recording_age.as_ref().map(|(day, max)| (day.as_str(), *max))
    }

    /// The description, if the scenario has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// Number of steps over all routes.
    pub fn step_count(&self) -> usize {
        self.script.routes.iter().map(|r| r.steps.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::MockModel;
    use crate::model::ChatRequest;

    fn issues(json: &str) -> Vec<String> {
        Scenario::from_json(json).unwrap_err().issues().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_file_that_cannot_be_read_says_why_in_its_context() {
        let dir = std::env::temp_dir().join(format!("cuecard-scenario-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = Scenario::from_path(dir.join("missing.json")).unwrap_err();
        assert_eq!((missing.code(), missing.context()["io_error"].as_str()), ("not_found", Some("not_found")));
        assert_eq!(missing.context()["os_errno"], 2);
        assert!(missing.context()["path"].as_str().unwrap().ends_with("missing.json"));
        let directory = Scenario::from_path(&dir).unwrap_err();
        assert_eq!((directory.code(), directory.context()["io_error"].as_str()), ("io", Some("is_a_directory")));
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn a_scenario_builds_a_mock_with_routes() {
        let scenario = Scenario::from_json(
            r#"{"cuecard": 1, "routes": [
                {"match": {"operation": "classify"}, "steps": [{"text": "spam"}]},
                {"steps": [{"fail": {"kind": "rate_limited", "retry_after_ms": 20}}, {"text": "Hello!"}]}]}"#,
        )
        .unwrap();
        let mock = MockModel::from_scenario(&scenario).unwrap();
        let classify = ChatRequest::user("m", "x").with_operation("classify");
        assert_eq!(mock.chat(&classify).unwrap().text(), "spam");
        let err = mock.chat(ChatRequest::user("m", "x")).unwrap_err();
        assert_eq!(err.provider().and_then(|e| e.retry_after_ms), Some(20));
        assert_eq!(mock.chat(ChatRequest::user("m", "x")).unwrap().text(), "Hello!");
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
        let mock = MockModel::from_scenario(&scenario).unwrap();
        assert_eq!(mock.chat(ChatRequest::user("m", "x")).unwrap().text(), "Hello");
        let err = Scenario::from_yaml("cuecard: 1\nroutes:\n  - steps:\n      - tokens: 5\n").unwrap_err();
        assert_eq!(err.issues()[0].path, "routes[0].steps[0].tokens", "{err}");
        assert!(!err.issues()[0].message.contains("routes[0]"), "the path is said once: {err}");
    }

    #[test]
    fn a_step_may_be_a_plain_text_and_settings_come_from_the_file() {
        let scenario = Scenario::from_text(
            "cuecard: 1\ninstant: true\ncapabilities: [tools]\nstep_defaults: {delay_ms: 7}\nroutes:\n  - steps: [Hello]\n",
        )
        .unwrap();
        let settings = &scenario.script().settings;
        assert_eq!(settings.instant, Some(true));
        assert_eq!(settings.capabilities.as_deref(), Some(&["tools".to_string()][..]));
        let mock = MockModel::from_scenario(&scenario).unwrap();
        let timed = mock.chat_timed(ChatRequest::user("m", "x"));
        assert_eq!(timed.value.unwrap().text(), "Hello");
        assert_eq!(timed.delay_ms, 7, "the step default applies to a step without delays");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = Scenario::from_json(&format!(r#"{{"cuecard":1,"routes":{deep}}}"#)).unwrap_err();
        assert!(err.message().contains("nested deeper than 128"), "{err}");
        let err = Scenario::from_yaml(&format!("cuecard: 1\nroutes: {deep}\n")).unwrap_err();
        assert!(err.message().contains("nested deeper than 128"), "{err}");
    }
}

#[cfg(all(test, unix))]
mod file_tests {
    use super::*;

    fn io_error_of(path: &Path) -> (ErrorKind, String, Option<String>) {
        let error = Scenario::from_path(path).expect_err("refused");
        let io_error = error.context().get("io_error").and_then(|v| v.as_str()).map(str::to_string);
        (error.kind(), error.to_string(), io_error)
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = std::env::temp_dir().join(format!("cuecard-scenario-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let fifo = dir.join("scenario.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(made.success());
        let (kind, message, io_error) = io_error_of(&fifo);
        assert_eq!((kind, io_error.as_deref()), (ErrorKind::Io, Some("not_a_regular_file")), "{message}");
        assert!(message.contains("not a regular file (a FIFO, a socket or a device)"), "{message}");
        let (_, message, io_error) = io_error_of(Path::new("/dev/zero"));
        assert_eq!(io_error.as_deref(), Some("not_a_regular_file"), "{message}");
        assert_eq!(io_error_of(&dir).2.as_deref(), Some("is_a_directory"));

        let huge = dir.join("huge.json");
        let file = std::fs::File::create(&huge).expect("create");
        file.set_len(MAX_SCENARIO_FILE_BYTES + 1).expect("a sparse file");
        let (kind, message, io_error) = io_error_of(&huge);
        assert_eq!((kind, io_error.as_deref()), (ErrorKind::Io, Some("too_large")), "{message}");
        assert!(message.contains("larger than the limit of 33554432 bytes (32 MiB)"), "{message}");
        let fits = dir.join("fits.json");
        std::fs::write(&fits, r#"{"cuecard": 1, "routes": [{"steps": ["ok"]}]}"#).expect("write");
        assert_eq!(Scenario::from_path(&fits).expect("a regular file is read").step_count(), 1);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
