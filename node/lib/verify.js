'use strict';
// Fluent checks with Tramai's semantics. Each method is one check of the core (`verify::Check`, as data), run
// by the core: a failure throws `AssertionFailedError` (node:assert's `AssertionError`) whose message shows
// expected, actual and the recorded history. A failure kind may be a kind name (`'rate_limited'`) or an error
// class (its name is used).

const { nativeOf } = require('./mock.js');
const { cuecardErrorOf, wrongType } = require('./errors.js');

function kindName(kind) {
  if (typeof kind === 'function' && typeof kind.name === 'string') return kind.name;
  if (typeof kind === 'string') return kind;
  throw wrongType('kind', 'a failure kind name or an error class', kind);
}

function text(argument, value) {
  if (typeof value !== 'string') throw wrongType(argument, 'a string', value);
  return value;
}

function count(argument, value) {
  if (!Number.isInteger(value) || value < 0) throw wrongType(argument, 'a whole number >= 0', value);
  return value;
}

/** Runs one check (`{check: 'was_called_times', operation, times}`) against a mock and, if given, an
 * observer's records; throws `AssertionFailedError` when it does not hold. */
function runCheck(mock, check, observer) {
  const failure = nativeOf(mock).runCheck(check, observer ? observer._native : undefined);
  if (failure !== null) {
    const error = cuecardErrorOf(JSON.parse(failure));
    Error.captureStackTrace?.(error, runCheck);
    throw error;
  }
}

/** Checks about a mock, with an observer's records when given. */
class Verification {
  #mock;
  #observer;
  constructor(mock, observer) {
    nativeOf(mock);
    this.#mock = mock;
    this.#observer = observer;
  }

  _run(check) {
    runCheck(this.#mock, check, this.#observer);
    return this;
  }

  /** Judge retries, parse outcomes and failures from an engine's reports, not the mock's own records. */
  withObserver(observer) {
    return new Verification(this.#mock, observer);
  }

  /** Checks about the calls for one operation. */
  whenCalled(operation) {
    return new MethodCheck(this, text('operation', operation));
  }

  allStepsUsed() {
    return this._run({ check: 'all_steps_used' });
  }

  noUnexpectedRequests() {
    return this._run({ check: 'no_unexpected_requests' });
  }

  /** No wire request broke a rule of the real API (the `contracts` setting: `warn` or `strict`). */
  noContractViolations() {
    return this._run({ check: 'no_contract_violations' });
  }

  /**
   * The MCP tool was called: `times` times exactly when given (else at least once), counting only calls whose
   * arguments contain `arguments` when given, retries whose answers to an `input_required` step contain
   * `inputResponses` when given, on `server` when given.
   */
  mcpToolCalled(tool, options = {}) {
    const { server, times, arguments: args, inputResponses } = options;
    return this._run({ check: 'mcp_tool_called', tool, ...(server !== undefined && { server }),
      ...(times !== undefined && { times }), ...(args !== undefined && { arguments: args }),
      ...(inputResponses !== undefined && { input_responses: inputResponses }) });
  }

  /** A client listed an MCP server's tools (`server`'s, when given). */
  mcpToolsListed(server) {
    return this._run({ check: 'mcp_tools_listed', ...(server !== undefined && { server }) });
  }

  /** No MCP message went beyond the scenario (an unknown tool or method, a tool past its steps, a refused one). */
  noUnexpectedMcpCalls() {
    return this._run({ check: 'no_unexpected_mcp_calls' });
  }

  /** Every MCP tool step answered a call. */
  allMcpStepsUsed() {
    return this._run({ check: 'all_mcp_steps_used' });
  }

  /** A batch (the latest one made, unless `batch` names one) held exactly `requests` requests. */
  batchHeld(requests, batch) {
    return this._run({ check: 'batch_held', requests, ...(batch !== undefined && { batch }) });
  }

  /** Every line of a batch (the latest one made, unless `batch` names one) was answered by a step. */
  batchLinesAnswered(batch) {
    return this._run({ check: 'batch_lines_answered', ...(batch !== undefined && { batch }) });
  }

  /** A realtime session received a client message of `type` whose JSON contains `fields` (`times` exactly, on
   * `session`, when given). */
  socketReceived(type, fields, options = {}) {
    return this._run(socketCheck('socket_received', type, fields, options));
  }

  /** A realtime session sent a server message of `type` whose JSON contains `fields`. */
  socketSent(type, fields, options = {}) {
    return this._run(socketCheck('socket_sent', type, fields, options));
  }

  /** Socket messages of these types crossed in this order (of one `direction` and `session` when given). */
  socketEventsInOrder(types, options = {}) {
    const { direction, session } = options;
    return this._run({ check: 'socket_events_in_order', types: [...types],
      ...(direction !== undefined && { direction }), ...(session !== undefined && { session }) });
  }

  /** Answers were made faulty (`answerFaults` drew a fault, or a step named one): of `kind` when given, `times` of
   * them exactly when given (else at least one); with `recovered`, each followed by a request answered without one. */
  answerFault(kind, options = {}) {
    const { times, recovered } = options;
    return this._run({ check: 'answer_fault', ...(kind !== undefined && kind !== null && { kind }),
      ...(times !== undefined && { times }), ...(recovered && { recovered: true }) });
  }

  /** An A2A agent (`agent` when given) received messages whose text contains `text` (`times` exactly when given). */
  a2aReceived(text, options = {}) {
    const { agent, times } = options;
    return this._run({ check: 'a2a_received', ...(text !== undefined && text !== null && { text }),
      ...(agent !== undefined && { agent }), ...(times !== undefined && { times }) });
  }

  /** A client cancelled a task of an A2A agent (`agent` when given). */
  a2aTaskCanceled(agent) {
    return this._run({ check: 'a2a_task_canceled', ...(agent !== undefined && { agent }) });
  }

  /** No JSON-RPC request reached the A2A agent (reading its card is not a call). */
  a2aNotCalled(agent) {
    return this._run({ check: 'a2a_not_called', agent });
  }

  /** Every A2A agent step answered a message. */
  allA2aStepsUsed() {
    return this._run({ check: 'all_a2a_steps_used' });
  }

  /** Every step used and no request beyond the script. */
  scriptFullyUsed() {
    return this._run({ check: 'script_fully_used' });
  }

  receivedRequests(times) {
    return this._run({ check: 'received_requests', times: count('times', times) });
  }

  /** Checks about the last request. */
  lastRequest() {
    return new RequestCheck(this, 'last');
  }

  /** Checks about the only request (they fail when there are none or several). */
  request() {
    return new RequestCheck(this, 'only');
  }

  /** Checks about the request at a journal index. */
  requestAt(index) {
    return new RequestCheck(this, count('index', index));
  }
}

/** Checks about the calls for one operation; each returns the chain. */
class MethodCheck {
  #verification;
  #operation;
  constructor(verification, operation) {
    this.#verification = verification;
    this.#operation = operation;
  }

  _run(check) {
    this.#verification._run({ ...check, operation: this.#operation });
    return this;
  }

  wasCalledTimes(times) {
    return this._run({ check: 'was_called_times', times: count('times', times) });
  }

  andRetried(times) {
    return this._run({ check: 'and_retried', times: count('times', times) });
  }

  andParsedSuccessfully() {
    return this._run({ check: 'and_parsed_successfully' });
  }

  andObservedParseFailure() {
    return this._run({ check: 'and_observed_parse_failure' });
  }

  andObservedFailure(kind) {
    return this._run({ check: 'and_observed_failure', kind: kindName(kind) });
  }

  andFailedWith(kind) {
    return this._run({ check: 'and_failed_with', kind: kindName(kind) });
  }

  emittedProvider(providerId) {
    return this._run({ check: 'emitted_provider', provider_id: text('providerId', providerId) });
  }

  andCalledTool(name) {
    return this._run({ check: 'and_called_tool', name: text('name', name) });
  }

  andCalledToolTimes(name, times) {
    return this._run({ check: 'and_called_tool_times', name: text('name', name), times: count('times', times) });
  }
}

/** Checks about one journaled request: the last, the only one, or the one at an index. */
class RequestCheck {
  #verification;
  #request;
  constructor(verification, request) {
    this.#verification = verification;
    this.#request = request;
  }

  _run(check) {
    this.#verification._run({ ...check, request: this.#request });
    return this;
  }

  hasLastUserMessageContaining(value) {
    return this._run({ check: 'has_last_user_message_containing', text: text('text', value) });
  }

  hasSystemMessageContaining(value) {
    return this._run({ check: 'has_system_message_containing', text: text('text', value) });
  }

  offersTool(name) {
    return this._run({ check: 'offers_tool', name: text('name', name) });
  }

  offersExactlyTools(names) {
    if (!Array.isArray(names)) throw wrongType('names', 'an array of tool names', names);
    return this._run({ check: 'offers_exactly_tools', names: names.map((n, i) => text(`names[${i}]`, n)) });
  }

  hasJsonSchemaResponseFormat(name) {
    return this._run({ check: 'has_json_schema_response_format', ...(name === undefined ? {} : { name: text('name', name) }) });
  }

  hasModel(model) {
    return this._run({ check: 'has_model', model: text('model', model) });
  }
}

/** Starts checks over `mock`. */
function assertThat(mock) {
  return new Verification(mock);
}

/** A `socket_received`/`socket_sent` check as data. */
function socketCheck(check, type, fields, { session, times } = {}) {
  return { check, type, ...(fields !== undefined && { fields }), ...(session !== undefined && { session }),
    ...(times !== undefined && { times }) };
}

module.exports = { assertThat, verify: assertThat, runCheck, Verification, MethodCheck, RequestCheck };
