//! Checks as data: [`Check`] names one assertion and its arguments; [`run_check`] runs it against a mock and an
//! observer's records.

use crate::error::{Error, ErrorKind};
use crate::journal::JournalEntry;
use crate::mock::MockModel;
use crate::model::{ChatRequest, ResponseFormat, Role};
use crate::observe::{CallRecord, RecordingObserver};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

use super::assertion::*;
use super::tables::*;

/// Which journaled request a request check looks at: `"last"` (the default), `"only"` (exactly one request
/// must have arrived), or an arrival index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequestRef {
    /// The last request received.
    #[default]
    Last,
    /// The only request received.
    Only,
    /// The request with this journal index.
    At(u64),
}

impl Serialize for RequestRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestRef::Last => serializer.serialize_str("last"),
            RequestRef::Only => serializer.serialize_str("only"),
            RequestRef::At(index) => serializer.serialize_u64(*index),
        }
    }
}

impl<'de> Deserialize<'de> for RequestRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RequestRef, D::Error> {
        struct RefVisitor;
        impl Visitor<'_> for RefVisitor {
            type Value = RequestRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"last\", \"only\" or a request index")
            }
            fn visit_str<E: de::Error>(self, word: &str) -> Result<RequestRef, E> {
                match word {
                    "last" => Ok(RequestRef::Last),
                    "only" => Ok(RequestRef::Only),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, index: u64) -> Result<RequestRef, E> {
                Ok(RequestRef::At(index))
            }
            fn visit_i64<E: de::Error>(self, index: i64) -> Result<RequestRef, E> {
                u64::try_from(index)
                    .map(RequestRef::At)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(index), &self))
            }
        }
        deserializer.deserialize_any(RefVisitor)
    }
}

pub(super) fn is_last(request: &RequestRef) -> bool {
    *request == RequestRef::Last
}

/// One assertion, as data: `{"check": "was_called_times", "operation": "greet", "times": 2}`.
///
/// Operation checks read the requests for the operation from the journal, and the call records from the
/// observer when one is given (engine-reported), else from the mock's own provider-side records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "check", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// Every step of every route answered a request.
    AllStepsUsed,
    /// No request arrived after its route ran out or matched no route.
    NoUnexpectedRequests,
    /// Both: every step used and no unexpected request.
    ScriptFullyUsed,
    /// No wire request broke a rule of the real API (`contracts: warn` or `strict`).
    NoContractViolations,
    /// The mock received exactly `times` requests in all.
    ReceivedRequests {
        /// How many.
        times: u64,
    },
    /// The mock received exactly `times` requests for the operation (failed ones included).
    WasCalledTimes {
        /// The operation.
        operation: String,
        /// How many.
        times: usize,
    },
    /// There were `times` retries: call records for the operation minus one (provider retries, parse retries
    /// and tool-loop round trips, as Tramai counts them).
    AndRetried {
        /// The operation.
        operation: String,
        /// How many.
        times: usize,
    },
    /// The last call record parsed successfully.
    AndParsedSuccessfully {
        /// The operation.
        operation: String,
    },
    /// Some call record observed a structured-output parse failure.
    AndObservedParseFailure {
        /// The operation.
        operation: String,
    },
    /// Some call record failed with `kind` (a provider error kind, or a host class the failure is an instance of).
    AndObservedFailure {
        /// The operation.
        operation: String,
        /// The kind or class name.
        kind: String,
    },
    /// The last call record failed with `kind`.
    AndFailedWith {
        /// The operation.
        operation: String,
        /// The kind or class name.
        kind: String,
    },
    /// Every call record went to this provider (vacuously true without records, as in Tramai).
    EmittedProvider {
        /// The operation.
        operation: String,
        /// The provider id.
        provider_id: String,
    },
    /// The tool was called at least once (a call replayed inside a later request of the operation).
    AndCalledTool {
        /// The operation.
        operation: String,
        /// The tool.
        name: String,
    },
    /// The tool was called exactly `times` times.
    AndCalledToolTimes {
        /// The operation.
        operation: String,
        /// The tool.
        name: String,
        /// How many.
        times: usize,
    },
    /// The request's last user message contains `text`.
    HasLastUserMessageContaining {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The text.
        text: String,
    },
    /// A system (or developer) message of the request contains `text`.
    HasSystemMessageContaining {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The text.
        text: String,
    },
    /// The request offers a tool named `name`.
    OffersTool {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The tool.
        name: String,
    },
    /// The request offers exactly these tools, in any order.
    OffersExactlyTools {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The tools.
        names: Vec<String>,
    },
    /// The request asks for a JSON-schema response format (with this schema name, if given).
    HasJsonSchemaResponseFormat {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The schema's name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The request is for `model`.
    HasModel {
        /// Which request.
        #[serde(default, skip_serializing_if = "is_last")]
        request: RequestRef,
        /// The model.
        model: String,
    },
    /// An MCP tool was called: `times` times exactly when given (else at least once), counting only calls whose
    /// arguments contain `arguments` when given, on `server` when given.
    McpToolCalled {
        /// The tool.
        tool: String,
        /// The server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        /// How many calls.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u64>,
        /// Arguments the counted calls contain.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<serde_json::Value>,
        /// The client's answers the counted calls carry: retries after an `input_required` step whose
        /// `inputResponses` contain these (`{"confirm": {"action": "accept"}}`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_responses: Option<serde_json::Value>,
    },
    /// A client listed an MCP server's tools (`server`'s, when given).
    McpToolsListed {
        /// The server.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
    },
    /// No MCP message went beyond the scenario (an unknown tool or method, a tool past its steps, a refused message).
    NoUnexpectedMcpCalls,
    /// Every MCP tool step answered a call.
    AllMcpStepsUsed,
    /// A batch (the latest one made, unless `batch` names one) held exactly `requests` requests (lines).
    BatchHeld {
        /// How many.
        requests: u64,
        /// The batch's id (`batch_1`, `msgbatch_...`, `batches/1`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch: Option<String>,
    },
    /// Every line of a batch (the latest one made, unless `batch` names one) was answered by a step: all were
    /// answered, none ran past its route or matched none.
    BatchLinesAnswered {
        /// The batch's id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        batch: Option<String>,
    },
    /// A realtime session received a client message of `type` (OpenAI's `type`, Gemini's top-level key) whose JSON
    /// contains `fields`: `times` of them exactly when given, else at least one; on `session` when given.
    SocketReceived {
        /// The message type.
        #[serde(rename = "type")]
        kind: String,
        /// What the message contains.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fields: Option<serde_json::Value>,
        /// The session (`ws_1`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// How many.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u64>,
    },
    /// A realtime session sent a server message of `type` containing `fields` (`{"type": "response.done", "fields":
    /// {"response": {"status": "cancelled"}}}`: a response was cancelled).
    SocketSent {
        /// The message type.
        #[serde(rename = "type")]
        kind: String,
        /// What the message contains.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fields: Option<serde_json::Value>,
        /// The session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// How many.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u64>,
    },
    /// Socket messages of these types crossed in this order (others may come between), of one `direction`
    /// (`client` or `server`) and `session` when given.
    SocketEventsInOrder {
        /// The types, in order.
        types: Vec<String>,
        /// `client` or `server`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        direction: Option<String>,
        /// The session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    /// Answers were made faulty (the `answer_faults` setting drew a fault, or a step named one): of `kind` when given
    /// (else any), `times` of them exactly when given (else at least one); with `recovered`, each was followed by a
    /// request answered without a fault (the code went on past it: a retry, or the error sent back and answered).
    AnswerFault {
        /// The fault kind (`invalid_arguments`, `refusal`, ...).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<crate::faults::FaultKind>,
        /// How many.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u64>,
        /// Each fault followed by a clean answer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        recovered: bool,
    },
    /// An A2A agent (`agent` when given, else any) received messages whose text contains `text` (any when absent):
    /// `times` of them exactly when given, else at least one.
    A2aReceived {
        /// The agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        /// Text the message contains.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// How many.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u64>,
    },
    /// A client cancelled a task of an A2A agent (`agent` when given).
    A2aTaskCanceled {
        /// The agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    /// No JSON-RPC request reached the A2A agent (reading its card is not a call).
    A2aNotCalled {
        /// The agent.
        agent: String,
    },
    /// Every A2A agent step answered a message.
    AllA2aStepsUsed,
}

/// The name of every check, as `Check`'s `"check"` tag: each binding's test asserts its fluent chain covers them.
pub const CHECK_NAMES: [&str; 34] = [
    "all_steps_used",
    "no_unexpected_requests",
    "script_fully_used",
    "no_contract_violations",
    "received_requests",
    "was_called_times",
    "and_retried",
    "and_parsed_successfully",
    "and_observed_parse_failure",
    "and_observed_failure",
    "and_failed_with",
    "emitted_provider",
    "and_called_tool",
    "and_called_tool_times",
    "has_last_user_message_containing",
    "has_system_message_containing",
    "offers_tool",
    "offers_exactly_tools",
    "has_json_schema_response_format",
    "has_model",
    "mcp_tool_called",
    "mcp_tools_listed",
    "no_unexpected_mcp_calls",
    "all_mcp_steps_used",
    "batch_held",
    "batch_lines_answered",
    "socket_received",
    "socket_sent",
    "socket_events_in_order",
    "answer_fault",
    "a2a_received",
    "a2a_task_canceled",
    "a2a_not_called",
    "all_a2a_steps_used",
];

impl Check {
    /// Reads a check from JSON data; a malformed one is `invalid_argument` naming the path.
    pub fn from_value(value: serde_json::Value) -> crate::error::Result<Check> {
        crate::input::deserialize_data(&value).map_err(|e| {
            Error::new(ErrorKind::InvalidArgument, format!("invalid check{}: {}", e.location(), e.message))
                .with_context("argument", "check")
        })
    }
}

/// Runs `checks` in order against the mock (and the observer's records, if given); the first that does not hold
/// is the failure.
pub fn run_checks(mock: &MockModel, observer: Option<&RecordingObserver>, checks: &[Check]) -> CheckResult<()> {
    checks.iter().try_for_each(|check| run_check(mock, observer, check))
}

/// Runs one check.
pub fn run_check(mock: &MockModel, observer: Option<&RecordingObserver>, check: &Check) -> CheckResult<()> {
    match check {
        Check::AllStepsUsed => all_steps_used(mock),
        Check::NoUnexpectedRequests => no_unexpected_requests(mock),
        Check::ScriptFullyUsed => script_fully_used(mock),
        Check::NoContractViolations => no_contract_violations(mock),
        Check::ReceivedRequests { times } => received_requests(mock, *times),
        Check::McpToolCalled { tool, server, times, arguments, input_responses } => {
            let wanted =
                super::mcp::CallWanted { arguments: arguments.as_ref(), input_responses: input_responses.as_ref() };
            super::mcp::tool_called(mock, server.as_deref(), tool, *times, wanted)
        }
        Check::McpToolsListed { server } => super::mcp::tools_listed(mock, server.as_deref()),
        Check::NoUnexpectedMcpCalls => super::mcp::no_unexpected_calls(mock),
        Check::AllMcpStepsUsed => super::mcp::all_steps_used(mock),
        Check::BatchHeld { requests, batch } => super::batches::held(mock, batch.as_deref(), *requests),
        Check::BatchLinesAnswered { batch } => super::batches::lines_answered(mock, batch.as_deref()),
        Check::SocketReceived { kind, fields, session, times } => {
            super::sockets::exchanged(mock, "client", kind, fields.as_ref(), session.as_deref(), *times)
        }
        Check::SocketSent { kind, fields, session, times } => {
            super::sockets::exchanged(mock, "server", kind, fields.as_ref(), session.as_deref(), *times)
        }
        Check::A2aReceived { agent, text, times } => {
            super::a2a::received(mock, agent.as_deref(), text.as_deref(), *times)
        }
        Check::A2aTaskCanceled { agent } => super::a2a::task_canceled(mock, agent.as_deref()),
        Check::A2aNotCalled { agent } => super::a2a::not_called(mock, agent),
        Check::AllA2aStepsUsed => super::a2a::all_steps_used(mock),
        Check::AnswerFault { kind, times, recovered } => super::faults::answer_fault(mock, *kind, *times, *recovered),
        Check::SocketEventsInOrder { types, direction, session } => {
            super::sockets::in_order(mock, types, direction.as_deref(), session.as_deref())
        }
        Check::WasCalledTimes { operation, .. }
        | Check::AndRetried { operation, .. }
        | Check::AndParsedSuccessfully { operation }
        | Check::AndObservedParseFailure { operation }
        | Check::AndObservedFailure { operation, .. }
        | Check::AndFailedWith { operation, .. }
        | Check::EmittedProvider { operation, .. }
        | Check::AndCalledTool { operation, .. }
        | Check::AndCalledToolTimes { operation, .. } => OperationView::new(mock, observer, operation).check(check),
        Check::HasLastUserMessageContaining { request, .. }
        | Check::HasSystemMessageContaining { request, .. }
        | Check::OffersTool { request, .. }
        | Check::OffersExactlyTools { request, .. }
        | Check::HasJsonSchemaResponseFormat { request, .. }
        | Check::HasModel { request, .. } => {
            let (label, request) = find_request(mock, *request)?;
            check_request(&request, &label, check)
        }
    }
}

pub(super) fn all_steps_used(mock: &MockModel) -> CheckResult<()> {
    let unused = mock.unused_steps();
    if unused.is_empty() {
        return Ok(());
    }
    Err(AssertionFailure {
        check: "all_steps_used()".into(),
        expected: "every scripted step to answer a request".into(),
        actual: format!("{} unused step{}", unused.len(), plural(unused.len())),
        history: format!("{}\n{}", unused_table(mock), headed_journal(mock)),
    })
}

pub(super) fn no_unexpected_requests(mock: &MockModel) -> CheckResult<()> {
    let count = mock.unexpected_count();
    if count == 0 {
        return Ok(());
    }
    Err(AssertionFailure {
        check: "no_unexpected_requests()".into(),
        expected: "no request beyond the script".into(),
        actual: format!("{count} unexpected request{}", plural(count as usize)),
        history: format!("{}\n{}", unexpected_table(mock), headed_journal(mock)),
    })
}

pub(super) fn no_contract_violations(mock: &MockModel) -> CheckResult<()> {
    let violations = mock.contract_violations();
    if violations.is_empty() {
        return Ok(());
    }
    let table: Vec<String> = violations
        .iter()
        .map(|(index, rule, message)| format!("  request #{} broke {rule}: {message}", index + 1))
        .collect();
    Err(AssertionFailure {
        check: "no_contract_violations()".into(),
        expected: "no request the real API would refuse".into(),
        actual: format!(
            "{} request{} that break{} the API's rules",
            violations.len(),
            plural(violations.len()),
            if violations.len() == 1 { "s" } else { "" }
        ),
        history: format!("{}\n{}", table.join("\n"), headed_journal(mock)),
    })
}

/// Both script checks at once, so a test that fails at its end hears about unused steps and unexpected requests
/// together.
pub(super) fn script_fully_used(mock: &MockModel) -> CheckResult<()> {
    let unused = mock.unused_steps().len();
    let unexpected = mock.unexpected_count() as usize;
    if unused == 0 && unexpected == 0 {
        return Ok(());
    }
    let mut actual = Vec::new();
    let mut history = Vec::new();
    if unused > 0 {
        actual.push(format!("{unused} unused step{}", plural(unused)));
        history.push(unused_table(mock));
    }
    if unexpected > 0 {
        actual.push(format!("{unexpected} unexpected request{}", plural(unexpected)));
        history.push(unexpected_table(mock));
    }
    history.push(headed_journal(mock));
    Err(AssertionFailure {
        check: "script_fully_used()".into(),
        expected: "every scripted step to answer a request, and no request beyond the script".into(),
        actual: actual.join(", "),
        history: history.join("\n"),
    })
}

pub(super) fn received_requests(mock: &MockModel, times: u64) -> CheckResult<()> {
    let count = mock.request_count();
    if count == times {
        return Ok(());
    }
    Err(AssertionFailure {
        check: format!("received_requests({times})"),
        expected: format!("{times} request{}", plural(times as usize)),
        actual: format!("{count} request{}", plural(count as usize)),
        history: headed_journal(mock),
    })
}

/// The whole journal under a heading: `requests (3):` and the table.
pub(super) fn headed_journal(mock: &MockModel) -> String {
    let entries = mock.entries();
    format!("requests ({}):\n{}", mock.request_count(), journal_table(&entries))
}

pub(super) fn unused_table(mock: &MockModel) -> String {
    let lines: Vec<String> = mock
        .unused_steps()
        .iter()
        .map(|u| format!("  route {} ({}) step {}: {}", u.route, u.route_match, u.step, u.step_description))
        .collect();
    format!("unused steps:\n{}", lines.join("\n"))
}

/// Each unexpected request with why and the last thing the user said, so the test's author sees at once which
/// call went beyond the script.
pub(super) fn unexpected_table(mock: &MockModel) -> String {
    let lines: Vec<String> = mock
        .unexpected_requests()
        .iter()
        .map(|e| {
            let user =
                e.request.last_user_message().map_or_else(|| "no user message".into(), |m| preview_at(&m.text(), 60));
            let operation = e.request.operation().map_or_else(String::new, |op| format!("operation {op:?}, "));
            format!(
                "  #{} ({operation}model {:?}) {}: last user message {user}",
                e.index,
                e.request.model,
                e.outcome.describe()
            )
        })
        .collect();
    format!("unexpected requests:\n{}", lines.join("\n"))
}

pub(super) fn find_request(mock: &MockModel, which: RequestRef) -> CheckResult<(String, ChatRequest)> {
    match which {
        RequestRef::Last => {
            mock.last_request().map(|r| ("last_request()".to_string(), r)).map_err(|e| AssertionFailure {
                check: "last_request()".into(),
                expected: "a request".into(),
                actual: e.message().to_string(),
                history: String::new(),
            })
        }
        RequestRef::Only => mock.request().map(|r| ("request()".to_string(), r)).map_err(|e| AssertionFailure {
            check: "request()".into(),
            expected: "exactly 1 request".into(),
            actual: e.message().to_string(),
            history: headed_journal(mock),
        }),
        RequestRef::At(index) => {
            let label = format!("request_at({index})");
            let entries = mock.entries();
            match entries.iter().find(|e| e.index == index) {
                Some(entry) => Ok((label, (*entry.request).clone())),
                None => Err(AssertionFailure {
                    check: label,
                    expected: format!("request #{} (index {index}) in the journal", index + 1),
                    actual: format!(
                        "the journal holds {} request{}",
                        mock.request_count(),
                        plural(mock.request_count() as usize)
                    ),
                    history: journal_table(&entries),
                }),
            }
        }
    }
}

/// The requests and call records of one operation, for the operation checks.
struct OperationView {
    operation: String,
    requests: Vec<JournalEntry>,
    records: Vec<CallRecord>,
    source: &'static str,
}

impl OperationView {
    fn new(mock: &MockModel, observer: Option<&RecordingObserver>, operation: &str) -> OperationView {
        let requests = mock.entries().into_iter().filter(|e| e.request.operation() == Some(operation)).collect();
        let (records, source) = match observer {
            Some(observer) => (observer.call_records(), "observer"),
            None => (mock.call_records(), "mock"),
        };
        let records = records.into_iter().filter(|r| r.context.operation.as_deref() == Some(operation)).collect();
        OperationView { operation: operation.to_string(), requests, records, source }
    }

    fn fail(&self, check: String, expected: String, actual: String) -> AssertionFailure {
        AssertionFailure {
            check: format!("when_called({:?}).{check}", self.operation),
            expected,
            actual,
            history: self.history(),
        }
    }

    /// The history table: the operation's requests, and its call records.
    fn history(&self) -> String {
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

    fn check(&self, check: &Check) -> CheckResult<()> {
        match check {
            Check::WasCalledTimes { times, .. } => self.was_called_times(*times),
            Check::AndRetried { times, .. } => self.and_retried(*times),
            Check::AndParsedSuccessfully { .. } => self.and_parsed_successfully(),
            Check::AndObservedParseFailure { .. } => self.and_observed_parse_failure(),
            Check::AndObservedFailure { kind, .. } => self.and_observed_failure(kind),
            Check::AndFailedWith { kind, .. } => self.and_failed_with(kind),
            Check::EmittedProvider { provider_id, .. } => self.emitted_provider(provider_id),
            Check::AndCalledTool { name, .. } => self.and_called_tool(name),
            Check::AndCalledToolTimes { name, times, .. } => self.and_called_tool_times(name, *times),
            other => Err(self.fail(format!("{other:?}"), "an operation check".into(), "another check".into())),
        }
    }

    fn was_called_times(&self, n: usize) -> CheckResult<()> {
        let actual = self.requests.len();
        if actual == n {
            return Ok(());
        }
        Err(self.fail(
            format!("was_called_times({n})"),
            format!("{n} request{}", plural(n)),
            format!("{actual} request{}", plural(actual)),
        ))
    }

    fn and_retried(&self, n: usize) -> CheckResult<()> {
        let actual = self.records.len() as i64 - 1;
        if actual == n as i64 {
            return Ok(());
        }
        Err(self.fail(
            format!("and_retried({n})"),
            format!("{n} retr{} ({} call records)", if n == 1 { "y" } else { "ies" }, n + 1),
            format!("{actual} ({} call records)", self.records.len()),
        ))
    }

    fn and_parsed_successfully(&self) -> CheckResult<()> {
        match self.records.last() {
            Some(record) if record.parse_success == Some(true) => Ok(()),
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

    fn and_observed_parse_failure(&self) -> CheckResult<()> {
        if self.records.iter().any(|r| r.parse_failure_summary.as_deref().is_some_and(|s| !s.trim().is_empty())) {
            return Ok(());
        }
        Err(self.fail(
            "and_observed_parse_failure()".into(),
            "a call record with a parse failure".into(),
            "no parse failure was observed".into(),
        ))
    }

    fn and_observed_failure(&self, kind: &str) -> CheckResult<()> {
        if self.records.iter().any(|r| r.failure.as_ref().is_some_and(|f| f.is(kind))) {
            return Ok(());
        }
        Err(self.fail(
            format!("and_observed_failure({kind:?})"),
            format!("a call record that failed with {kind}"),
            format!("failures observed: [{}]", self.failure_kinds().join(", ")),
        ))
    }

    fn and_failed_with(&self, kind: &str) -> CheckResult<()> {
        let last = self.records.last().and_then(|r| r.failure.as_ref());
        if last.is_some_and(|f| f.is(kind)) {
            return Ok(());
        }
        Err(self.fail(
            format!("and_failed_with({kind:?})"),
            format!("the last call record to have failed with {kind}"),
            match last {
                Some(other) => format!("it failed with {}", other.kind),
                None if self.records.is_empty() => "no call records".into(),
                None => "it did not fail".into(),
            },
        ))
    }

    fn emitted_provider(&self, id: &str) -> CheckResult<()> {
        let others: Vec<&str> =
            self.records.iter().map(|r| r.context.provider_id.as_str()).filter(|p| *p != id).collect();
        if others.is_empty() {
            return Ok(());
        }
        Err(self.fail(
            format!("emitted_provider({id:?})"),
            format!("every call record to have provider {id:?}"),
            format!("providers seen: [{}]", others.join(", ")),
        ))
    }

    /// How often the tool was called, judged from the assistant tool calls replayed inside the requests for the
    /// operation (Tramai's semantics: a call replayed in N later requests counts N times).
    fn tool_call_count(&self, name: &str) -> usize {
        self.tools_called().iter().filter(|called| *called == name).count()
    }

    fn and_called_tool(&self, name: &str) -> CheckResult<()> {
        if self.tool_call_count(name) > 0 {
            return Ok(());
        }
        Err(self.fail(
            format!("and_called_tool({name:?})"),
            format!("a call of tool {name:?} replayed in a later request"),
            format!("tools called: [{}]", self.tools_called().join(", ")),
        ))
    }

    fn and_called_tool_times(&self, name: &str, n: usize) -> CheckResult<()> {
        let actual = self.tool_call_count(name);
        if actual == n {
            return Ok(());
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

/// Runs a request check against `request`, labelled `label` (`last_request()`).
pub(super) fn check_request(request: &ChatRequest, label: &str, check: &Check) -> CheckResult<()> {
    let fail = |check: String, expected: String, actual: String| {
        let json = serde_json::to_string_pretty(request).unwrap_or_default();
        AssertionFailure { check: format!("{label}.{check}"), expected, actual, history: format!("request:\n{json}") }
    };
    match check {
        Check::HasLastUserMessageContaining { text, .. } => {
            let last = request.last_user_message().map(|m| m.text());
            if last.as_deref().is_some_and(|t| t.contains(text.as_str())) {
                return Ok(());
            }
            Err(fail(
                format!("has_last_user_message_containing({text:?})"),
                format!("the last user message to contain {text:?}"),
                last.map_or("no user message".into(), |t| preview_at(&t, 200)),
            ))
        }
        Check::HasSystemMessageContaining { text, .. } => {
            let system = request.system_text();
            if system.as_deref().is_some_and(|t| t.contains(text.as_str())) {
                return Ok(());
            }
            Err(fail(
                format!("has_system_message_containing({text:?})"),
                format!("a system message containing {text:?}"),
                system.map_or("no system message".into(), |t| preview_at(&t, 200)),
            ))
        }
        Check::OffersTool { name, .. } => {
            if request.tools.iter().any(|t| &t.name == name) {
                return Ok(());
            }
            let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
            Err(fail(
                format!("offers_tool({name:?})"),
                format!("tool {name:?} offered"),
                format!("tools offered: [{}]", names.join(", ")),
            ))
        }
        Check::OffersExactlyTools { names, .. } => {
            let mut offered: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
            let mut expected: Vec<&str> = names.iter().map(String::as_str).collect();
            offered.sort_unstable();
            expected.sort_unstable();
            if offered == expected {
                return Ok(());
            }
            Err(fail(
                format!("offers_exactly_tools({names:?})"),
                format!("tools [{}]", expected.join(", ")),
                format!("tools [{}]", offered.join(", ")),
            ))
        }
        Check::HasJsonSchemaResponseFormat { name, .. } => match request.response_format.as_deref() {
            Some(ResponseFormat::JsonSchema { name: actual, .. }) if name.is_none() || actual == name => Ok(()),
            other => Err(fail(
                format!(
                    "has_json_schema_response_format({})",
                    name.as_ref().map_or(String::new(), |n| format!("{n:?}"))
                ),
                match name {
                    Some(n) => format!("a json_schema response format named {n:?}"),
                    None => "a json_schema response format".into(),
                },
                describe_format(other),
            )),
        },
        Check::HasModel { model, .. } => {
            if &request.model == model {
                return Ok(());
            }
            Err(fail(format!("has_model({model:?})"), format!("model {model:?}"), format!("model {:?}", request.model)))
        }
        other => Err(fail(format!("{other:?}"), "a request check".into(), "another check".into())),
    }
}
