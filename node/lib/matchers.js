'use strict';
// Test-runner matchers over the core's checks (vitest's and jest's `expect.extend` take the same shape). Each
// matcher runs one check as data; its message is the core's (expected, actual, the history table), so a failing
// `expect(mock)` reads like a failing `assertThat(mock)`.

const { runCheck } = require('./verify.js');
const { MockModel } = require('./mock.js');
const { AssertionFailedError } = require('./errors.js');

function outcome(mock, check, observer) {
  try {
    runCheck(mock, check, observer);
    return { pass: true, message: `${check.check} held` };
  } catch (error) {
    if (error instanceof AssertionFailedError) return { pass: false, message: error.message };
    throw error;
  }
}

/** A matcher result for `expect`, with `.not` reading naturally. */
function result(context, mock, check, what) {
  const { pass, message } = outcome(mock, check);
  return {
    pass,
    message: () => (pass ? `expected the mock not to have ${what}, but it has` : message),
  };
}

function requireMock(received, matcher) {
  if (!(received instanceof MockModel)) {
    throw new TypeError(`${matcher}: expected a cuecard MockModel, found ${received === null ? 'null' : typeof received}`);
  }
}

/** The requests a mock or the calls a vi.fn()/jest.fn() received (so the usual matcher keeps working on spies). */
function callCount(received) {
  if (received instanceof MockModel) return received.requestCount;
  if (received && received.mock && Array.isArray(received.mock.calls)) return received.mock.calls.length;
  return null;
}

const matchers = {
  /** `expect(mock).toHaveBeenCalledTimes(n)`: the mock received `n` requests (spies keep their usual meaning). */
  toHaveBeenCalledTimes(received, times) {
    if (received instanceof MockModel) return result(this, received, { check: 'received_requests', times }, `received ${times} requests`);
    const count = callCount(received);
    if (count === null) throw new TypeError('toHaveBeenCalledTimes: expected a cuecard MockModel or a mock function');
    return { pass: count === times, message: () => `expected ${times} calls, received ${count}` };
  },
  toHaveReceivedRequests(received, times) {
    requireMock(received, 'toHaveReceivedRequests');
    return result(this, received, { check: 'received_requests', times }, `received ${times} requests`);
  },
  /** The last request's last user message contains `text` (`{request}`: `'only'` or a journal index instead). */
  toHaveReceivedUserMessageContaining(received, text, options = {}) {
    requireMock(received, 'toHaveReceivedUserMessageContaining');
    const check = { check: 'has_last_user_message_containing', request: options.request ?? 'last', text };
    return result(this, received, check, `received a user message containing ${JSON.stringify(text)}`);
  },
  toHaveReceivedSystemMessageContaining(received, text, options = {}) {
    requireMock(received, 'toHaveReceivedSystemMessageContaining');
    const check = { check: 'has_system_message_containing', request: options.request ?? 'last', text };
    return result(this, received, check, `received a system message containing ${JSON.stringify(text)}`);
  },
  toHaveOfferedTool(received, name, options = {}) {
    requireMock(received, 'toHaveOfferedTool');
    return result(this, received, { check: 'offers_tool', request: options.request ?? 'last', name }, `offered the tool ${name}`);
  },
  toHaveUsedAllSteps(received) {
    requireMock(received, 'toHaveUsedAllSteps');
    return result(this, received, { check: 'all_steps_used' }, 'used all steps');
  },
  toHaveNoUnexpectedRequests(received) {
    requireMock(received, 'toHaveNoUnexpectedRequests');
    return result(this, received, { check: 'no_unexpected_requests' }, 'no unexpected requests');
  },
  /** No wire request broke a rule of the real API (the `contracts` setting). */
  toHaveNoContractViolations(received) {
    requireMock(received, 'toHaveNoContractViolations');
    return result(this, received, { check: 'no_contract_violations' }, 'no contract violations');
  },
  /** Every step used and no request beyond the script. */
  toHaveUsedScriptFully(received) {
    requireMock(received, 'toHaveUsedScriptFully');
    return result(this, received, { check: 'script_fully_used' }, 'used the script fully');
  },
  /** The operation was retried `times` times (requests for it, minus one). */
  toHaveRetried(received, operation, times) {
    requireMock(received, 'toHaveRetried');
    return result(this, received, { check: 'and_retried', operation, times }, `retried ${operation} ${times} times`);
  },
  /** The MCP tool was called (`options`: `times`, `server`, `arguments` the counted calls contain, `inputResponses`
   * their answers to an `input_required` step contain). */
  toHaveCalledMcpTool(received, tool, options = {}) {
    requireMock(received, 'toHaveCalledMcpTool');
    const { server, times, arguments: args, inputResponses } = options;
    const check = { check: 'mcp_tool_called', tool, ...(server !== undefined && { server }),
      ...(times !== undefined && { times }), ...(args !== undefined && { arguments: args }),
      ...(inputResponses !== undefined && { input_responses: inputResponses }) };
    return result(this, received, check, `called the MCP tool ${tool}`);
  },
  /** No MCP message went beyond the scenario. */
  toHaveNoUnexpectedMcpCalls(received) {
    requireMock(received, 'toHaveNoUnexpectedMcpCalls');
    return result(this, received, { check: 'no_unexpected_mcp_calls' }, 'no unexpected MCP calls');
  },
  /** A batch (the latest one made, unless `batch` names one) held exactly `requests` requests. */
  toHaveBatchHeld(received, requests, batch) {
    requireMock(received, 'toHaveBatchHeld');
    const check = { check: 'batch_held', requests, ...(batch !== undefined && { batch }) };
    return result(this, received, check, `a batch holding ${requests} requests`);
  },
  /** Every line of a batch (the latest one made, unless `batch` names one) was answered by a step. */
  toHaveAnsweredEveryBatchLine(received, batch) {
    requireMock(received, 'toHaveAnsweredEveryBatchLine');
    const check = { check: 'batch_lines_answered', ...(batch !== undefined && { batch }) };
    return result(this, received, check, 'every batch line answered by a step');
  },
  /** A realtime session received a client message of `type` whose JSON contains `fields`. */
  toHaveReceivedSocketEvent(received, type, fields) {
    requireMock(received, 'toHaveReceivedSocketEvent');
    const check = { check: 'socket_received', type, ...(fields !== undefined && { fields }) };
    return result(this, received, check, `a socket received ${type}`);
  },
  /** A realtime session sent a server message of `type` whose JSON contains `fields`. */
  toHaveSentSocketEvent(received, type, fields) {
    requireMock(received, 'toHaveSentSocketEvent');
    const check = { check: 'socket_sent', type, ...(fields !== undefined && { fields }) };
    return result(this, received, check, `a socket sent ${type}`);
  },
  /** Answers were made faulty with `kind` (any when omitted), and the code went on past each to a clean answer. */
  toHaveRecoveredFromAnswerFault(received, kind) {
    requireMock(received, 'toHaveRecoveredFromAnswerFault');
    const check = { check: 'answer_fault', recovered: true, ...(kind !== undefined && { kind }) };
    return result(this, received, check, `recovered from ${kind ?? 'an answer fault'}`);
  },
  /** Any check of the core as data: `expect(mock).toPassCheck({check: 'has_model', model: 'gpt-4o'})`. */
  toPassCheck(received, check) {
    requireMock(received, 'toPassCheck');
    return result(this, received, check, `passed ${JSON.stringify(check)}`);
  },
};

module.exports = { matchers, outcome };
