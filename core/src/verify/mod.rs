//! Assertions over a mock's journal and an observer's call records, with Tramai's semantics
//! (`docs/concepts/seeds.md`), as data: a [`Check`] names one assertion and its arguments, and [`run_checks`] runs a list
//! of them. Every binding's fluent chain builds `Check`s, so every language has every check and the same
//! failure message: what was expected, what was found, and the history that explains it.
//!
//! The Rust fluent API ([`assert_that`], returning `Result`, and [`expect_that`], panicking) is built on it too:
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

mod a2a;
mod assertion;
mod batches;
mod check;
mod expect;
mod faults;
mod mcp;
mod sockets;
mod tables;

pub use assertion::{AssertionFailure, CheckResult};
pub use check::{run_check, run_checks, Check, RequestRef, CHECK_NAMES};
pub use expect::{expect_that, Expect, ExpectMethod, ExpectRequest};
pub use tables::{journal_table, records_table};

use crate::mock::MockModel;
use crate::observe::RecordingObserver;

use check::*;

// ---- the fluent Rust API, built on `Check` --------------------------------------------------------------------

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

    /// Runs a check given as data.
    pub fn check(&self, check: &Check) -> CheckResult<&Self> {
        run_check(self.mock, self.observer, check).map(|()| self)
    }

    /// Checks about the calls for one operation.
    pub fn when_called(&self, operation: &str) -> MethodCheck<'a> {
        MethodCheck { verification: *self, operation: operation.to_string() }
    }

    /// Every step of every route was taken.
    pub fn all_steps_used(&self) -> CheckResult<&Self> {
        self.check(&Check::AllStepsUsed)
    }

    /// No request arrived after its route's script ran out or matched no route.
    pub fn no_unexpected_requests(&self) -> CheckResult<&Self> {
        self.check(&Check::NoUnexpectedRequests)
    }

    /// Both script checks: all steps used and no unexpected request.
    pub fn script_fully_used(&self) -> CheckResult<&Self> {
        self.check(&Check::ScriptFullyUsed)
    }

    /// No wire request broke a rule of the real API (the `contracts` setting).
    pub fn no_contract_violations(&self) -> CheckResult<&Self> {
        self.check(&Check::NoContractViolations)
    }

    /// The MCP tool was called (on any server) at least once; [`Check::McpToolCalled`] as data says how often and
    /// with what.
    pub fn mcp_tool_called(&self, tool: &str) -> CheckResult<&Self> {
        self.check(&Check::McpToolCalled {
            tool: tool.into(),
            server: None,
            times: None,
            arguments: None,
            input_responses: None,
        })
    }

    /// The MCP tool was called exactly `n` times.
    pub fn mcp_tool_called_times(&self, tool: &str, n: u64) -> CheckResult<&Self> {
        self.check(&Check::McpToolCalled {
            tool: tool.into(),
            server: None,
            times: Some(n),
            arguments: None,
            input_responses: None,
        })
    }

    /// The MCP tool was called with arguments containing `arguments`.
    pub fn mcp_tool_called_with(&self, tool: &str, arguments: serde_json::Value) -> CheckResult<&Self> {
        self.check(&Check::McpToolCalled {
            tool: tool.into(),
            server: None,
            times: None,
            arguments: Some(arguments),
            input_responses: None,
        })
    }

    /// A client listed an MCP server's tools.
    pub fn mcp_tools_listed(&self) -> CheckResult<&Self> {
        self.check(&Check::McpToolsListed { server: None })
    }

    /// No MCP message went beyond the scenario.
    pub fn no_unexpected_mcp_calls(&self) -> CheckResult<&Self> {
        self.check(&Check::NoUnexpectedMcpCalls)
    }

    /// Every MCP tool step answered a call.
    pub fn all_mcp_steps_used(&self) -> CheckResult<&Self> {
        self.check(&Check::AllMcpStepsUsed)
    }

    /// The latest batch made held exactly `n` requests.
    pub fn batch_held(&self, n: u64) -> CheckResult<&Self> {
        self.check(&Check::BatchHeld { requests: n, batch: None })
    }

    /// Every line of the latest batch made was answered by a step.
    pub fn batch_lines_answered(&self) -> CheckResult<&Self> {
        self.check(&Check::BatchLinesAnswered { batch: None })
    }

    /// A realtime session received a client message of `kind` whose JSON contains `fields` (`json!({})` for any);
    /// [`Check::SocketReceived`] as data also says how often and on which session.
    pub fn socket_received(&self, kind: &str, fields: serde_json::Value) -> CheckResult<&Self> {
        self.check(&Check::SocketReceived { kind: kind.into(), fields: Some(fields), session: None, times: None })
    }

    /// A realtime session sent a server message of `kind` whose JSON contains `fields`.
    pub fn socket_sent(&self, kind: &str, fields: serde_json::Value) -> CheckResult<&Self> {
        self.check(&Check::SocketSent { kind: kind.into(), fields: Some(fields), session: None, times: None })
    }

    /// Socket messages of these types crossed in this order, either way.
    pub fn socket_events_in_order(&self, types: &[&str]) -> CheckResult<&Self> {
        let types = types.iter().map(|t| t.to_string()).collect();
        self.check(&Check::SocketEventsInOrder { types, direction: None, session: None })
    }

    /// An answer was made faulty with `kind` (`answer_faults` drew it or a step named it), and the code went on
    /// past each such fault to a clean answer; [`Check::AnswerFault`] as data also counts them.
    pub fn recovered_from_answer_fault(&self, kind: crate::faults::FaultKind) -> CheckResult<&Self> {
        self.check(&Check::AnswerFault { kind: Some(kind), times: None, recovered: true })
    }

    /// Exactly `times` answers were made faulty, of `kind` when given.
    pub fn answer_faults(&self, kind: Option<crate::faults::FaultKind>, times: u64) -> CheckResult<&Self> {
        self.check(&Check::AnswerFault { kind, times: Some(times), recovered: false })
    }

    /// The mock received exactly `n` requests.
    pub fn received_requests(&self, n: u64) -> CheckResult<&Self> {
        self.check(&Check::ReceivedRequests { times: n })
    }

    /// Checks about the last request.
    pub fn last_request(&self) -> CheckResult<RequestCheck<'a>> {
        find_request(self.mock, RequestRef::Last)?;
        Ok(RequestCheck { verification: *self, request: RequestRef::Last })
    }

    /// Checks about the only request (fails when there are none or several).
    pub fn request(&self) -> CheckResult<RequestCheck<'a>> {
        find_request(self.mock, RequestRef::Only)?;
        Ok(RequestCheck { verification: *self, request: RequestRef::Only })
    }

    /// Checks about the request with journal index `index`.
    pub fn request_at(&self, index: u64) -> CheckResult<RequestCheck<'a>> {
        find_request(self.mock, RequestRef::At(index))?;
        Ok(RequestCheck { verification: *self, request: RequestRef::At(index) })
    }
}

/// Checks about the calls for one operation. Each returns `Ok(&self)` to chain, or the failure.
#[derive(Clone, Debug)]
pub struct MethodCheck<'a> {
    verification: Verification<'a>,
    operation: String,
}

impl MethodCheck<'_> {
    fn run(&self, check: Check) -> CheckResult<&Self> {
        self.verification.check(&check).map(|_| self)
    }

    /// The mock received exactly `n` requests for the operation (failed ones included).
    pub fn was_called_times(&self, n: usize) -> CheckResult<&Self> {
        self.run(Check::WasCalledTimes { operation: self.operation.clone(), times: n })
    }

    /// There were `n` retries: the number of call records minus one.
    pub fn and_retried(&self, n: usize) -> CheckResult<&Self> {
        self.run(Check::AndRetried { operation: self.operation.clone(), times: n })
    }

    /// The last call record parsed successfully (`parse_success == true`).
    pub fn and_parsed_successfully(&self) -> CheckResult<&Self> {
        self.run(Check::AndParsedSuccessfully { operation: self.operation.clone() })
    }

    /// Some call record observed a structured-output parse failure.
    pub fn and_observed_parse_failure(&self) -> CheckResult<&Self> {
        self.run(Check::AndObservedParseFailure { operation: self.operation.clone() })
    }

    /// Some call record observed a provider failure of `kind` (`rate_limited`, or a host class name).
    pub fn and_observed_failure(&self, kind: &str) -> CheckResult<&Self> {
        self.run(Check::AndObservedFailure { operation: self.operation.clone(), kind: kind.to_string() })
    }

    /// The last call record failed with `kind` (so it fails after a recovery).
    pub fn and_failed_with(&self, kind: &str) -> CheckResult<&Self> {
        self.run(Check::AndFailedWith { operation: self.operation.clone(), kind: kind.to_string() })
    }

    /// Every call record went to provider `id` (vacuously true without records, as in Tramai).
    pub fn emitted_provider(&self, id: &str) -> CheckResult<&Self> {
        self.run(Check::EmittedProvider { operation: self.operation.clone(), provider_id: id.to_string() })
    }

    /// The tool was called at least once.
    pub fn and_called_tool(&self, name: &str) -> CheckResult<&Self> {
        self.run(Check::AndCalledTool { operation: self.operation.clone(), name: name.to_string() })
    }

    /// The tool was called exactly `n` times.
    pub fn and_called_tool_times(&self, name: &str, n: usize) -> CheckResult<&Self> {
        self.run(Check::AndCalledToolTimes { operation: self.operation.clone(), name: name.to_string(), times: n })
    }
}

/// Checks about one journaled request.
#[derive(Clone, Debug)]
pub struct RequestCheck<'a> {
    verification: Verification<'a>,
    request: RequestRef,
}

impl RequestCheck<'_> {
    fn run(&self, check: Check) -> CheckResult<&Self> {
        self.verification.check(&check).map(|_| self)
    }

    /// The last user message contains `text`.
    pub fn has_last_user_message_containing(&self, text: &str) -> CheckResult<&Self> {
        self.run(Check::HasLastUserMessageContaining { request: self.request, text: text.to_string() })
    }

    /// A system (or developer) message contains `text`.
    pub fn has_system_message_containing(&self, text: &str) -> CheckResult<&Self> {
        self.run(Check::HasSystemMessageContaining { request: self.request, text: text.to_string() })
    }

    /// The request offers a tool named `name`.
    pub fn offers_tool(&self, name: &str) -> CheckResult<&Self> {
        self.run(Check::OffersTool { request: self.request, name: name.to_string() })
    }

    /// The request offers exactly these tools (in any order).
    pub fn offers_exactly_tools(&self, names: &[&str]) -> CheckResult<&Self> {
        let names = names.iter().map(|n| n.to_string()).collect();
        self.run(Check::OffersExactlyTools { request: self.request, names })
    }

    /// The request asks for a JSON-schema response format (optionally with this schema name).
    pub fn has_json_schema_response_format(&self, name: Option<&str>) -> CheckResult<&Self> {
        self.run(Check::HasJsonSchemaResponseFormat { request: self.request, name: name.map(str::to_string) })
    }

    /// The request is for `model`.
    pub fn has_model(&self, model: &str) -> CheckResult<&Self> {
        self.run(Check::HasModel { request: self.request, model: model.to_string() })
    }
}

#[cfg(test)]
mod tests;
