//! The panicking fluent API for Rust tests: [`expect_that`], the same checks as [`super::assert_that`].

use crate::mock::MockModel;
use crate::observe::RecordingObserver;

use super::assertion::*;
use super::*;

/// Panicking assertions for Rust tests: the same checks as [`assert_that`], panicking with the failure message.
pub fn expect_that(mock: &MockModel) -> Expect<'_> {
    Expect { inner: assert_that(mock) }
}

/// See [`expect_that`].
pub struct Expect<'a> {
    inner: Verification<'a>,
}

pub(super) fn or_panic<T>(check: CheckResult<T>) -> T {
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
    pub fn when_called(&self, operation: &str) -> ExpectMethod<'a> {
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

    /// Panics if a wire request broke a rule of the real API.
    pub fn no_contract_violations(&self) -> &Self {
        or_panic(self.inner.no_contract_violations());
        self
    }

    /// Panics unless the MCP tool was called at least once.
    pub fn mcp_tool_called(&self, tool: &str) -> &Self {
        or_panic(self.inner.mcp_tool_called(tool));
        self
    }

    /// Panics unless the MCP tool was called exactly `n` times.
    pub fn mcp_tool_called_times(&self, tool: &str, n: u64) -> &Self {
        or_panic(self.inner.mcp_tool_called_times(tool, n));
        self
    }

    /// Panics unless the MCP tool was called with arguments containing `arguments`.
    pub fn mcp_tool_called_with(&self, tool: &str, arguments: serde_json::Value) -> &Self {
        or_panic(self.inner.mcp_tool_called_with(tool, arguments));
        self
    }

    /// Panics unless a client listed an MCP server's tools.
    pub fn mcp_tools_listed(&self) -> &Self {
        or_panic(self.inner.mcp_tools_listed());
        self
    }

    /// Panics if an MCP message went beyond the scenario.
    pub fn no_unexpected_mcp_calls(&self) -> &Self {
        or_panic(self.inner.no_unexpected_mcp_calls());
        self
    }

    /// Panics unless every MCP tool step answered a call.
    pub fn all_mcp_steps_used(&self) -> &Self {
        or_panic(self.inner.all_mcp_steps_used());
        self
    }

    /// Panics unless the latest batch made held exactly `n` requests.
    pub fn batch_held(&self, n: u64) -> &Self {
        or_panic(self.inner.batch_held(n));
        self
    }

    /// Panics unless every line of the latest batch made was answered by a step.
    pub fn batch_lines_answered(&self) -> &Self {
        or_panic(self.inner.batch_lines_answered());
        self
    }

    /// Panics unless a realtime session received a client message of `kind` containing `fields`.
    pub fn socket_received(&self, kind: &str, fields: serde_json::Value) -> &Self {
        or_panic(self.inner.socket_received(kind, fields));
        self
    }

    /// Panics unless a realtime session sent a server message of `kind` containing `fields`.
    pub fn socket_sent(&self, kind: &str, fields: serde_json::Value) -> &Self {
        or_panic(self.inner.socket_sent(kind, fields));
        self
    }

    /// Panics unless socket messages of these types crossed in this order.
    pub fn socket_events_in_order(&self, types: &[&str]) -> &Self {
        or_panic(self.inner.socket_events_in_order(types));
        self
    }

    /// Panics unless answers were made faulty with `kind` and the code went on past each to a clean answer.
    pub fn recovered_from_answer_fault(&self, kind: crate::faults::FaultKind) -> &Self {
        or_panic(self.inner.recovered_from_answer_fault(kind));
        self
    }

    /// Panics unless exactly `times` answers were made faulty, of `kind` when given.
    pub fn answer_faults(&self, kind: Option<crate::faults::FaultKind>, times: u64) -> &Self {
        or_panic(self.inner.answer_faults(kind, times));
        self
    }

    /// Panics unless the mock received exactly `n` requests.
    pub fn received_requests(&self, n: u64) -> &Self {
        or_panic(self.inner.received_requests(n));
        self
    }

    /// Checks about the last request (panics when there is none).
    pub fn last_request(&self) -> ExpectRequest<'a> {
        ExpectRequest { inner: or_panic(self.inner.last_request()) }
    }
}

/// Panicking form of [`MethodCheck`].
pub struct ExpectMethod<'a> {
    inner: MethodCheck<'a>,
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

impl ExpectMethod<'_> {
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
pub struct ExpectRequest<'a> {
    inner: RequestCheck<'a>,
}

impl ExpectRequest<'_> {
    panicking! {
        has_last_user_message_containing(text: &str);
        has_system_message_containing(text: &str);
        offers_tool(name: &str);
        offers_exactly_tools(names: &[&str]);
        has_json_schema_response_format(name: Option<&str>);
        has_model(model: &str);
    }
}
