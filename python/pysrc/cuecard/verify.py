"""Fluent assertions with Tramai's semantics. Each method is one check of the core (`verify::Check`), run by the
core: a failure raises `AssertionFailedError` (an `AssertionError`) whose message shows expected, actual and the
recorded history. A failure kind may be given as a kind name (`"rate_limited"`) or an exception class."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from . import _cuecard

Kind = Union[str, type]


def _kind(kind: Kind) -> str:
    return kind.__name__ if isinstance(kind, type) else kind


class Verification:
    """Checks about a mock, with an observer's records when given."""

    def __init__(self, mock: "_cuecard.MockModel", observer: "Optional[_cuecard.RecordingObserver]" = None):
        self._mock, self._observer = mock, observer

    def _run(self, check: str, **arguments: Any) -> "Verification":
        _cuecard.run_check(self._mock, {"check": check, **arguments}, self._observer)
        return self

    def with_observer(self, observer: "_cuecard.RecordingObserver") -> "Verification":
        """Judge retries, parse outcomes and failures from an engine's reports, not the mock's own records."""
        return Verification(self._mock, observer)

    def when_called(self, operation: str) -> "MethodCheck":
        """Checks about the calls for one operation."""
        return MethodCheck(self, operation)

    def all_steps_used(self) -> "Verification":
        return self._run("all_steps_used")

    def no_unexpected_requests(self) -> "Verification":
        return self._run("no_unexpected_requests")

    def no_contract_violations(self) -> "Verification":
        """No wire request broke a rule of the real API (the `contracts` setting: `warn` or `strict`)."""
        return self._run("no_contract_violations")

    def script_fully_used(self) -> "Verification":
        """Every step used and no request beyond the script."""
        return self._run("script_fully_used")

    def received_requests(self, times: int) -> "Verification":
        return self._run("received_requests", times=times)

    def mcp_tool_called(self, tool: str, *, server: Optional[str] = None, times: Optional[int] = None,
                        arguments: Optional[dict] = None, input_responses: Optional[dict] = None) -> "Verification":
        """The MCP tool was called: `times` times exactly when given (else at least once), counting only calls whose
        arguments contain `arguments` when given, retries whose answers to an `input_required` step contain
        `input_responses` when given, on `server` when given."""
        given = {"server": server, "times": times, "arguments": arguments, "input_responses": input_responses}
        return self._run("mcp_tool_called", tool=tool, **{k: v for k, v in given.items() if v is not None})

    def mcp_tools_listed(self, server: Optional[str] = None) -> "Verification":
        """A client listed an MCP server's tools (`server`'s, when given)."""
        return self._run("mcp_tools_listed", **({"server": server} if server is not None else {}))

    def no_unexpected_mcp_calls(self) -> "Verification":
        """No MCP message went beyond the scenario (an unknown tool or method, a tool past its steps, a refused one)."""
        return self._run("no_unexpected_mcp_calls")

    def all_mcp_steps_used(self) -> "Verification":
        """Every MCP tool step answered a call."""
        return self._run("all_mcp_steps_used")

    def batch_held(self, requests: int, *, batch: Optional[str] = None) -> "Verification":
        """A batch (the latest one made, unless `batch` names one) held exactly `requests` requests."""
        return self._run("batch_held", requests=requests, **({"batch": batch} if batch is not None else {}))

    def batch_lines_answered(self, batch: Optional[str] = None) -> "Verification":
        """Every line of a batch (the latest one made, unless `batch` names one) was answered by a step."""
        return self._run("batch_lines_answered", **({"batch": batch} if batch is not None else {}))

    def socket_received(self, type: str, fields: Optional[dict] = None, *, session: Optional[str] = None,
                        times: Optional[int] = None) -> "Verification":
        """A realtime session received a client message of `type` whose JSON contains `fields`: `times` of them
        exactly when given, else at least one; on `session` (`ws_1`) when given."""
        given = {"fields": fields, "session": session, "times": times}
        return self._run("socket_received", type=type, **{k: v for k, v in given.items() if v is not None})

    def socket_sent(self, type: str, fields: Optional[dict] = None, *, session: Optional[str] = None,
                    times: Optional[int] = None) -> "Verification":
        """A realtime session sent a server message of `type` whose JSON contains `fields` (`socket_sent(
        "response.done", {"response": {"status": "cancelled"}})`: a response was cancelled)."""
        given = {"fields": fields, "session": session, "times": times}
        return self._run("socket_sent", type=type, **{k: v for k, v in given.items() if v is not None})

    def socket_events_in_order(self, types: list, *, direction: Optional[str] = None,
                               session: Optional[str] = None) -> "Verification":
        """Socket messages of these types crossed in this order (others may come between), of one `direction`
        (`client` or `server`) and `session` when given."""
        given = {"direction": direction, "session": session}
        return self._run("socket_events_in_order", types=list(types), **{k: v for k, v in given.items() if v is not None})

    def answer_fault(self, kind: Optional[str] = None, *, times: Optional[int] = None,
                     recovered: bool = False) -> "Verification":
        """Answers were made faulty (the `answer_faults` setting drew a fault, or a step named one): of `kind`
        (`"invalid_arguments"`, ...) when given, `times` of them exactly when given, else at least one; with
        `recovered=True`, each was followed by a request answered without a fault (the code went on past it)."""
        given = {"kind": kind, "times": times, "recovered": recovered or None}
        return self._run("answer_fault", **{k: v for k, v in given.items() if v is not None})

    def a2a_received(self, text: Optional[str] = None, *, agent: Optional[str] = None,
                     times: Optional[int] = None) -> "Verification":
        """An A2A agent (`agent` when given) received messages whose text contains `text`: `times` of them exactly
        when given, else at least one."""
        given = {"text": text, "agent": agent, "times": times}
        return self._run("a2a_received", **{k: v for k, v in given.items() if v is not None})

    def a2a_task_canceled(self, agent: Optional[str] = None) -> "Verification":
        """A client cancelled a task of an A2A agent (`agent` when given)."""
        return self._run("a2a_task_canceled", **({"agent": agent} if agent is not None else {}))

    def a2a_not_called(self, agent: str) -> "Verification":
        """No JSON-RPC request reached the A2A agent (reading its card is not a call)."""
        return self._run("a2a_not_called", agent=agent)

    def all_a2a_steps_used(self) -> "Verification":
        """Every A2A agent step answered a message."""
        return self._run("all_a2a_steps_used")

    def last_request(self) -> "RequestCheck":
        return RequestCheck(self, "last")

    def request(self) -> "RequestCheck":
        """Checks about the only request (they fail when there are none or several)."""
        return RequestCheck(self, "only")

    def request_at(self, index: int) -> "RequestCheck":
        return RequestCheck(self, index)


class MethodCheck:
    """Checks about the calls for one operation; each returns the chain."""

    def __init__(self, verification: Verification, operation: str):
        self._verification, self._operation = verification, operation

    def _run(self, check: str, **arguments: Any) -> "MethodCheck":
        self._verification._run(check, operation=self._operation, **arguments)
        return self

    def was_called_times(self, times: int) -> "MethodCheck":
        return self._run("was_called_times", times=times)

    def and_retried(self, times: int) -> "MethodCheck":
        return self._run("and_retried", times=times)

    def and_parsed_successfully(self) -> "MethodCheck":
        return self._run("and_parsed_successfully")

    def and_observed_parse_failure(self) -> "MethodCheck":
        return self._run("and_observed_parse_failure")

    def and_observed_failure(self, kind: Kind) -> "MethodCheck":
        return self._run("and_observed_failure", kind=_kind(kind))

    def and_failed_with(self, kind: Kind) -> "MethodCheck":
        return self._run("and_failed_with", kind=_kind(kind))

    def emitted_provider(self, provider_id: str) -> "MethodCheck":
        return self._run("emitted_provider", provider_id=provider_id)

    def and_called_tool(self, name: str) -> "MethodCheck":
        return self._run("and_called_tool", name=name)

    def and_called_tool_times(self, name: str, times: int) -> "MethodCheck":
        return self._run("and_called_tool_times", name=name, times=times)


class RequestCheck:
    """Checks about one journaled request: the last, the only one, or the one at an index."""

    def __init__(self, verification: Verification, request: Union[str, int]):
        self._verification, self._request = verification, request

    def _run(self, check: str, **arguments: Any) -> "RequestCheck":
        self._verification._run(check, request=self._request, **arguments)
        return self

    def has_last_user_message_containing(self, text: str) -> "RequestCheck":
        return self._run("has_last_user_message_containing", text=text)

    def has_system_message_containing(self, text: str) -> "RequestCheck":
        return self._run("has_system_message_containing", text=text)

    def offers_tool(self, name: str) -> "RequestCheck":
        return self._run("offers_tool", name=name)

    def offers_exactly_tools(self, names: Sequence[str]) -> "RequestCheck":
        return self._run("offers_exactly_tools", names=list(names))

    def has_json_schema_response_format(self, name: Optional[str] = None) -> "RequestCheck":
        return self._run("has_json_schema_response_format", **({"name": name} if name is not None else {}))

    def has_model(self, model: str) -> "RequestCheck":
        return self._run("has_model", model=model)


def assert_that(mock: "_cuecard.MockModel") -> Verification:
    """Starts checks over `mock`."""
    return Verification(mock)
