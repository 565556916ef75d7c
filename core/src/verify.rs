//! Fluent assertions over a mock's journal and an observer's call records, with Tramai's semantics
//! (`spec/seed-systems.md` §1.3) and messages that show expected vs actual and the recorded history.
//!
//! The checks return `Result<_, AssertionFailure>` so bindings can raise their own assertion error with the same
//! message; Rust tests use [`expect_that`], whose methods panic with that message.
//!
//! ```
//! use cuecard::{verify::assert_that, ChatRequest, MockModel, ProviderError};
//! let mock = MockModel::builder().fails(ProviderError::rate_limited()).responds("ok").build()?;
//! let request = ChatRequest::user("gpt-4o", "hi").with_operation("greet");
//! assert!(mock.chat(&request).is_err());
//! assert!(mock.chat(&request).is_ok());
//! assert_that(&mock).when_called("greet").was_called_times(2)?.and_retried(1)?.and_observed_failure("rate_limited")?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::error::{Error, ErrorKind};
use crate::journal::JournalEntry;
use crate::mock::MockModel;
use crate::model::{ChatRequest, ResponseFormat, Role};
use crate::observe::{CallRecord, RecordingObserver};
use crate::script::preview;
use std::fmt;

/// A check that did not hold: what was expected, what was found, and the history that explains it.
#[derive(Clone, PartialEq, Eq)]
pub struct AssertionFailure {
    /// The check, as written: `when_called("classify").was_called_times(3)`.
    pub check: String,
    /// What it expected.
    pub expected: String,
    /// What it found.
    pub actual: String,
    /// The recorded history, as a compact table.
    pub history: String,
}

impl fmt::Display for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed\n  expected: {}\n  actual:   {}", self.check, self.expected, self.actual)?;
        if !self.history.is_empty() {
            write!(f, "\n{}", self.history)?;
        }
        Ok(())
    }
}

// Debug shows the readable message, so `.unwrap()` in a test prints it as it is.
impl fmt::Debug for AssertionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for AssertionFailure {}

impl From<AssertionFailure> for Error {
    fn from(failure: AssertionFailure) -> Error {
        Error::new(ErrorKind::AssertionFailed, failure.to_string())
    }
}

/// The result of a check.
pub type Check<T> = Result<T, AssertionFailure>;

/// Starts assertions over `mock`.
pub fn assert_that(mock: &MockModel) -> Verification<'_> {
    Verification { mock, observer: None }
}

/// Assertions over a mock, optionally with an observer's records.
#[derive(Clone, Copy, Debug)]
pub struct Verification<'a> {
    mock: &'a MockModel,
    observer: Option<&'a RecordingObserver>,
}

impl<'a> Verification<'a> {
    /// Uses the engine-reported records of `observer` for retry, parse and failure checks (otherwise the
    /// mock's own provider-side records are used).
    pub fn with_observer(mut self, observer: &'a RecordingObserver) -> Verification<'a> {
        self.observer = Some(observer);
        self
    }

    /// Checks about the calls for one operation.
    pub fn when_called(&self, operation: &str) -> MethodCheck {
        let requests: Vec<JournalEntry> =
            self.mock.entries().into_iter().filter(|e| e.request.operation() == Some(operation)).collect();
        let (records, source) = match self.observer {
            Some(observer) => (observer.call_records(), "observer"),
            None => (self.mock.call_records(), "mock"),
        };
        let records = records.into_iter().filter(|r| r.context.operation.as_deref() == Some(operation)).collect();
        MethodCheck { operation: operation.to_string(), requests, records, source }
    }

    /// Every step of every route was taken.
    pub fn all_steps_used(&self) -> Check<&Self> {
        let unused = self.mock.unused_steps();
        if unused.is_empty() {
            return Ok(self);
        }
        let lines: Vec<String> = unused
            .iter()
            .map(|u| format!("  route {} ({}) step {}: {}", u.route, u.route_match, u.step, u.step_description))
            .collect();
        Err(AssertionFailure {
            check: "all_steps_used()".into(),
            expected: "every scripted step to answer a request".into(),
            actual: format!("{} unused step{}", unused.len(), plural(unused.len())),
            history: format!("unused steps:\n{}\n{}", lines.join("\n"), journal_table(&self.mock.entries())),
        })
    }

    /// No request arrived after its route's script ran out or matched no route.
    pub fn no_unexpected_requests(&self) -> Check<&Self> {
        let count = self.mock.unexpected_count();
        if count == 0 {
            return Ok(self);
        }
        Err(AssertionFailure {
            check: "no_unexpected_requests()".into(),
            expected: "no request beyond the script".into(),
            actual: format!("{count} unexpected request{}", plural(count as usize)),
            history: journal_table(&self.mock.entries()),
        })
    }

    /// Both script checks: all steps used and no unexpected request.
    pub fn script_fully_used(&self) -> Check<&Self> {
        self.all_steps_used()?.no_unexpected_requests()
    }

    /// Checks about the last request.
    pub fn last_request(&self) -> Check<RequestCheck> {
        match self.mock.last_request() {
            Ok(request) => Ok(RequestCheck { request, label: "last_request()".into() }),
            Err(e) => Err(AssertionFailure {
                check: "last_request()".into(),
                expected: "a request".into(),
                actual: e.message().to_string(),
                history: String::new(),
            }),
        }
    }

    /// Checks about the only request (fails when there are none or several).
    pub fn request(&self) -> Check<RequestCheck> {
        match self.mock.request() {
            Ok(request) => Ok(RequestCheck { request, label: "request()".into() }),
            Err(e) => Err(AssertionFailure {
                check: "request()".into(),
                expected: "exactly 1 request".into(),
                actual: e.message().to_string(),
                history: journal_table(&self.mock.entries()),
            }),
        }
    }
}

/// Checks about the calls for one operation. Each returns `Ok(&self)` to chain, or the failure.
#[derive(Clone, Debug)]
pub struct MethodCheck {
    operation: String,
    requests: Vec<JournalEntry>,
    records: Vec<CallRecord>,
    source: &'static str,
}

impl MethodCheck {
    fn fail(&self, check: String, expected: String, actual: String) -> AssertionFailure {
        AssertionFailure {
            check: format!("when_called({:?}).{check}", self.operation),
            expected,
            actual,
            history: self.history(),
        }
    }

    /// The history table: the operation's requests, and its call records.
    pub fn history(&self) -> String {
        let mut out = format!("requests for {:?} ({}):\n", self.operation, self.requests.len());
        out.push_str(&journal_table(&self.requests));
        out.push_str(&format!(
            "\ncall records for {:?} from the {} ({}):\n",
            self.operation,
            self.source,
            self.records.len()
        ));
        out.push_str(&records_table(&self.records));
        out
    }

    /// The mock received exactly `n` requests for the operation (failed ones included).
    pub fn was_called_times(&self, n: usize) -> Check<&Self> {
        let actual = self.requests.len();
        if actual == n {
            return Ok(self);
        }
        Err(self.fail(
            format!("was_called_times({n})"),
            format!("{n} request{}", plural(n)),
            format!("{actual} request{}", plural(actual)),
        ))
    }

    /// There were `n` retries: the number of call records minus one. Like Tramai, this counts every provider
    /// call for the operation: provider retries, structured-parse retries and tool-loop round trips.
    pub fn and_retried(&self, n: usize) -> Check<&Self> {
        let actual = self.records.len() as i64 - 1;
        if actual == n as i64 {
            return Ok(self);
        }
        Err(self.fail(
            format!("and_retried({n})"),
            format!("{n} retr{} ({} call records)", if n == 1 { "y" } else { "ies" }, n + 1),
            format!("{actual} ({} call records)", self.records.len()),
        ))
    }

    /// The last call record parsed successfully (`parse_success == true`).
    pub fn and_parsed_successfully(&self) -> Check<&Self> {
        match self.records.last() {
            Some(record) if record.parse_success == Some(true) => Ok(self),
            Some(record) => Err(self.fail(
                "and_parsed_successfully()".into(),
                "the last call record to have parsed successfully".into(),
                format!("parse_success = {}", describe_parse(record.parse_success)),
            )),
            None => {
                Err(self.fail("and_parsed_successfully()".into(), "a call record".into(), "no call records".into()))
            }
        }
    }

    /// Some call record observed a structured-output parse failure.
    pub fn and_observed_parse_failure(&self) -> Check<&Self> {
        if self.records.iter().any(|r| r.parse_failure_summary.as_deref().is_some_and(|s| !s.trim().is_empty())) {
            return Ok(self);
        }
        Err(self.fail(
            "and_observed_parse_failure()".into(),
            "a call record with a parse failure".into(),
            "no parse failure was observed".into(),
        ))
    }

    /// Some call record observed a provider failure of `kind` (`rate_limited`, or a host class name).
    pub fn and_observed_failure(&self, kind: &str) -> Check<&Self> {
        if self.records.iter().any(|r| r.failure.as_ref().is_some_and(|f| f.kind == kind)) {
            return Ok(self);
        }
        Err(self.fail(
            format!("and_observed_failure({kind:?})"),
            format!("a call record that failed with {kind}"),
            format!("failures observed: [{}]", self.failure_kinds().join(", ")),
        ))
    }

    /// The last call record failed with `kind` (so it fails after a recovery).
    pub fn and_failed_with(&self, kind: &str) -> Check<&Self> {
        let last = self.records.last().and_then(|r| r.failure.as_ref()).map(|f| f.kind.clone());
        if last.as_deref() == Some(kind) {
            return Ok(self);
        }
        Err(self.fail(
            format!("and_failed_with({kind:?})"),
            format!("the last call record to have failed with {kind}"),
            match last {
                Some(other) => format!("it failed with {other}"),
                None if self.records.is_empty() => "no call records".into(),
                None => "it did not fail".into(),
            },
        ))
    }

    /// Every call record went to provider `id` (vacuously true without records, as in Tramai).
    pub fn emitted_provider(&self, id: &str) -> Check<&Self> {
        let others: Vec<&str> =
            self.records.iter().map(|r| r.context.provider_id.as_str()).filter(|p| *p != id).collect();
        if others.is_empty() {
            return Ok(self);
        }
        Err(self.fail(
            format!("emitted_provider({id:?})"),
            format!("every call record to have provider {id:?}"),
            format!("providers seen: [{}]", others.join(", ")),
        ))
    }

    /// How often the tool was called, judged from the assistant tool calls replayed inside the requests for the
    /// operation (Tramai's semantics: a call replayed in N later requests counts N times).
    pub fn tool_call_count(&self, name: &str) -> usize {
        self.requests
            .iter()
            .flat_map(|e| e.request.messages.iter())
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| m.tool_calls.iter())
            .filter(|c| c.name == name)
            .count()
    }

    /// The tool was called at least once.
    pub fn and_called_tool(&self, name: &str) -> Check<&Self> {
        if self.tool_call_count(name) > 0 {
            return Ok(self);
        }
        Err(self.fail(
            format!("and_called_tool({name:?})"),
            format!("a call of tool {name:?} replayed in a later request"),
            format!("tools called: [{}]", self.tools_called().join(", ")),
        ))
    }

    /// The tool was called exactly `n` times.
    pub fn and_called_tool_times(&self, name: &str, n: usize) -> Check<&Self> {
        let actual = self.tool_call_count(name);
        if actual == n {
            return Ok(self);
        }
        Err(self.fail(
            format!("and_called_tool_times({name:?}, {n})"),
            format!("{n} call{} of {name:?}", plural(n)),
            format!("{actual} (tools called: [{}])", self.tools_called().join(", ")),
        ))
    }

    fn failure_kinds(&self) -> Vec<String> {
        self.records.iter().filter_map(|r| r.failure.as_ref().map(|f| f.kind.clone())).collect()
    }

    fn tools_called(&self) -> Vec<String> {
        self.requests
            .iter()
            .flat_map(|e| e.request.messages.iter())
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| m.tool_calls.iter().map(|c| c.name.clone()))
            .collect()
    }
}

/// Checks about one request's content.
#[derive(Clone, Debug)]
pub struct RequestCheck {
    request: ChatRequest,
    label: String,
}

impl RequestCheck {
    /// Checks about a request you hold.
    pub fn of(request: ChatRequest) -> RequestCheck {
        RequestCheck { request, label: "request".into() }
    }

    fn fail(&self, check: String, expected: String, actual: String) -> AssertionFailure {
        let json = serde_json::to_string_pretty(&self.request).unwrap_or_default();
        AssertionFailure {
            check: format!("{}.{check}", self.label),
            expected,
            actual,
            history: format!("request:\n{json}"),
        }
    }

    /// The request checked.
    pub fn request(&self) -> &ChatRequest {
        &self.request
    }

    /// The last user message contains `text`.
    pub fn has_last_user_message_containing(&self, text: &str) -> Check<&Self> {
        let last = self.request.last_user_message().map(|m| m.text());
        if last.as_deref().is_some_and(|t| t.contains(text)) {
            return Ok(self);
        }
        Err(self.fail(
            format!("has_last_user_message_containing({text:?})"),
            format!("the last user message to contain {text:?}"),
            last.map_or("no user message".into(), |t| preview_long(&t)),
        ))
    }

    /// A system (or developer) message contains `text`.
    pub fn has_system_message_containing(&self, text: &str) -> Check<&Self> {
        let system = self.request.system_text();
        if system.as_deref().is_some_and(|t| t.contains(text)) {
            return Ok(self);
        }
        Err(self.fail(
            format!("has_system_message_containing({text:?})"),
            format!("a system message containing {text:?}"),
            system.map_or("no system message".into(), |t| preview_long(&t)),
        ))
    }

    /// The request offers a tool named `name`.
    pub fn offers_tool(&self, name: &str) -> Check<&Self> {
        if self.request.tools.iter().any(|t| t.name == name) {
            return Ok(self);
        }
        let names: Vec<&str> = self.request.tools.iter().map(|t| t.name.as_str()).collect();
        Err(self.fail(
            format!("offers_tool({name:?})"),
            format!("tool {name:?} offered"),
            format!("tools offered: [{}]", names.join(", ")),
        ))
    }

    /// The request offers exactly these tools (in any order).
    pub fn offers_exactly_tools(&self, names: &[&str]) -> Check<&Self> {
        let mut offered: Vec<&str> = self.request.tools.iter().map(|t| t.name.as_str()).collect();
        let mut expected = names.to_vec();
        offered.sort_unstable();
        expected.sort_unstable();
        if offered == expected {
            return Ok(self);
        }
        Err(self.fail(
            format!("offers_exactly_tools({names:?})"),
            format!("tools [{}]", expected.join(", ")),
            format!("tools [{}]", offered.join(", ")),
        ))
    }

    /// The request asks for a JSON-schema response format (optionally with this schema name).
    pub fn has_json_schema_response_format(&self, name: Option<&str>) -> Check<&Self> {
        match &self.request.response_format {
            Some(ResponseFormat::JsonSchema { name: actual, .. }) if name.is_none() || actual.as_deref() == name => {
                Ok(self)
            }
            other => Err(self.fail(
                format!("has_json_schema_response_format({name:?})"),
                match name {
                    Some(n) => format!("a json_schema response format named {n:?}"),
                    None => "a json_schema response format".into(),
                },
                describe_format(other.as_ref()),
            )),
        }
    }

    /// The request is for `model`.
    pub fn has_model(&self, model: &str) -> Check<&Self> {
        if self.request.model == model {
            return Ok(self);
        }
        Err(self.fail(
            format!("has_model({model:?})"),
            format!("model {model:?}"),
            format!("model {:?}", self.request.model),
        ))
    }
}

fn describe_format(format: Option<&ResponseFormat>) -> String {
    match format {
        None => "no response format".into(),
        Some(ResponseFormat::Text) => "response format text".into(),
        Some(ResponseFormat::JsonObject) => "response format json_object".into(),
        Some(ResponseFormat::JsonSchema { name, .. }) => {
            format!("response format json_schema named {name:?}")
        }
    }
}

fn preview_long(text: &str) -> String {
    if text.chars().count() <= 200 {
        serde_json::Value::from(text).to_string()
    } else {
        let short: String = text.chars().take(199).collect();
        format!("{}…", serde_json::Value::from(short))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn describe_parse(parse: Option<bool>) -> &'static str {
    match parse {
        Some(true) => "true",
        Some(false) => "false",
        None => "none (raw or unknown)",
    }
}

/// Renders rows as an aligned table, indented by two spaces.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let render = |cells: &mut dyn Iterator<Item = &str>| {
        let line: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("  {}", line.join("  ").trim_end())
    };
    let mut lines = vec![render(&mut header.iter().copied())];
    for row in rows {
        lines.push(render(&mut row.iter().map(String::as_str)));
    }
    lines.join("\n")
}

fn dash(value: Option<String>) -> String {
    value.unwrap_or_else(|| "-".into())
}

/// The journal as a table: `#  operation  model  route  step  outcome  answer`.
pub fn journal_table(entries: &[JournalEntry]) -> String {
    if entries.is_empty() {
        return "  (no requests)".into();
    }
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            vec![
                e.index.to_string(),
                dash(e.request.operation().map(str::to_string)),
                e.request.model.clone(),
                dash(e.route.map(|r| r.to_string())),
                dash(e.step.map(|s| s.to_string())),
                e.outcome.describe(),
                dash(e.response.as_ref().map(|r| {
                    let calls: Vec<&str> = r.message.tool_calls.iter().map(|c| c.name.as_str()).collect();
                    if calls.is_empty() {
                        preview(r.text())
                    } else {
                        format!("tool_calls [{}]", calls.join(", "))
                    }
                })),
            ]
        })
        .collect();
    table(&["#", "operation", "model", "route", "step", "outcome", "answer"], &rows)
}

/// Call records as a table: `#  attempt  provider  result  parse`.
pub fn records_table(records: &[CallRecord]) -> String {
    if records.is_empty() {
        return "  (no call records)".into();
    }
    let rows: Vec<Vec<String>> = records
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let result = match (&r.failure, &r.response) {
                (Some(f), _) => match f.status {
                    Some(s) => format!("failed {} {s}", f.kind),
                    None => format!("failed {}", f.kind),
                },
                (None, Some(resp)) => format!("response {}", preview(resp.text())),
                (None, None) => "-".into(),
            };
            let parse = match (&r.parse_failure_summary, r.parse_success) {
                (Some(summary), _) => format!("failed: {summary}"),
                (None, p) => describe_parse(p).split(' ').next().unwrap_or("none").to_string(),
            };
            vec![i.to_string(), r.context.attempt.to_string(), r.context.provider_id.clone(), result, parse]
        })
        .collect();
    table(&["#", "attempt", "provider", "result", "parse"], &rows)
}

/// Panicking assertions for Rust tests: the same checks as [`assert_that`], panicking with the failure message.
pub fn expect_that(mock: &MockModel) -> Expect<'_> {
    Expect { inner: assert_that(mock) }
}

/// See [`expect_that`].
pub struct Expect<'a> {
    inner: Verification<'a>,
}

fn or_panic<T>(check: Check<T>) -> T {
    match check {
        Ok(value) => value,
        Err(failure) => panic!("{failure}"),
    }
}

impl<'a> Expect<'a> {
    /// Uses an observer's records.
    pub fn with_observer(self, observer: &'a RecordingObserver) -> Expect<'a> {
        Expect { inner: self.inner.with_observer(observer) }
    }

    /// Checks about one operation.
    pub fn when_called(&self, operation: &str) -> ExpectMethod {
        ExpectMethod { inner: self.inner.when_called(operation) }
    }

    /// Panics unless every step was used and no request was unexpected.
    pub fn script_fully_used(&self) -> &Self {
        or_panic(self.inner.script_fully_used());
        self
    }

    /// Panics unless every step was used.
    pub fn all_steps_used(&self) -> &Self {
        or_panic(self.inner.all_steps_used());
        self
    }

    /// Panics if a request was unexpected.
    pub fn no_unexpected_requests(&self) -> &Self {
        or_panic(self.inner.no_unexpected_requests());
        self
    }

    /// Checks about the last request (panics when there is none).
    pub fn last_request(&self) -> ExpectRequest {
        ExpectRequest { inner: or_panic(self.inner.last_request()) }
    }
}

/// Panicking form of [`MethodCheck`].
pub struct ExpectMethod {
    inner: MethodCheck,
}

macro_rules! panicking {
    ($($name:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            #[doc = concat!("Panicking form of the check of the same name.")]
            pub fn $name(&self, $($arg: $ty),*) -> &Self {
                or_panic(self.inner.$name($($arg),*));
                self
            }
        )*
    };
}

impl ExpectMethod {
    panicking! {
        was_called_times(n: usize);
        and_retried(n: usize);
        and_parsed_successfully();
        and_observed_parse_failure();
        and_observed_failure(kind: &str);
        and_failed_with(kind: &str);
        emitted_provider(id: &str);
        and_called_tool(name: &str);
        and_called_tool_times(name: &str, n: usize);
    }
}

/// Panicking form of [`RequestCheck`].
pub struct ExpectRequest {
    inner: RequestCheck,
}

impl ExpectRequest {
    panicking! {
        has_last_user_message_containing(text: &str);
        has_system_message_containing(text: &str);
        offers_tool(name: &str);
        has_json_schema_response_format(name: Option<&str>);
        has_model(model: &str);
    }
}
