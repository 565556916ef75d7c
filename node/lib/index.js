'use strict';
// The package `cuecard`: see the book, docs/start/node.md.

const native = require('./native.js');
const errors = require('./errors.js');
const { MockModel, MockStream } = require('./mock.js');
const { assertThat, verify, runCheck } = require('./verify.js');
const { RecordingObserver } = require('./observer.js');
const { MockTool } = require('./tools.js');
const { MockMemory } = require('./memory.js');
const { Server } = require('./server.js');
const { createFetch, openaiOptions, anthropicOptions, BASE_URL } = require('./fetch.js');
const { createWebSocket } = require('./socket.js');
const { awsRequestHandler } = require('./aws.js');
const { cuecardMock, cuecardRecording } = require('./per-test.js');
const { Recording } = require('./recording.js');
const { McpTransport } = require('./mcp.js');

/** Splits text into word-like tokens. */
function tokenize(text) {
  if (typeof text !== 'string') throw errors.wrongType('text', 'a string', text);
  return native.tokenize(text);
}

/** The drift report of a recording (cuecard's, or a vcrpy cassette), as `cuecard drift --json` gives it: `drifted`,
 * and per recorded exchange the `differences` between what the real API sent and what cuecard sends for the same
 * answer (fields, types, kind names, stream events, status, the headers SDKs read) and `only_cuecard`. */
function drift(path) {
  if (typeof path !== 'string') throw errors.wrongType('path', 'a string', path);
  return JSON.parse(native.driftReport(path));
}

/** Counts the word-like tokens of a text. */
function countTokens(text) {
  if (typeof text !== 'string') throw errors.wrongType('text', 'a string', text);
  return native.countTokens(text);
}

module.exports = {
  MockModel,
  MockStream,
  assertThat,
  verify,
  runCheck,
  RecordingObserver,
  MockTool,
  MockMemory,
  Server,
  createFetch,
  createWebSocket,
  McpTransport,
  awsRequestHandler,
  openaiOptions,
  anthropicOptions,
  BASE_URL,
  cuecardMock,
  Recording,
  cuecardRecording,
  tokenize,
  countTokens,
  drift,
  checkNames: native.checkNames,
  VERSION: native.version(),
  // The same, as `require('cuecard').version` (the release's one version: Cargo.toml, package.json, the wheel, the jar).
  version: native.version(),
  CuecardError: errors.CuecardError,
  InvalidScenarioError: errors.InvalidScenarioError,
  InvalidRequestError: errors.InvalidRequestError,
  ScriptExhaustedError: errors.ScriptExhaustedError,
  NoRouteMatchedError: errors.NoRouteMatchedError,
  InvalidArgumentError: errors.InvalidArgumentError,
  InvalidStateError: errors.InvalidStateError,
  RequestCountMismatchError: errors.RequestCountMismatchError,
  AssertionFailedError: errors.AssertionFailedError,
  CallbackFailedError: errors.CallbackFailedError,
  InvalidUtf8Error: errors.InvalidUtf8Error,
  CuecardIOError: errors.CuecardIOError,
  ToolFailedError: errors.ToolFailedError,
  InternalError: errors.InternalError,
  NotFoundError: errors.NotFoundError,
  RequestTooLargeError: errors.RequestTooLargeError,
  HostCallbackError: errors.HostCallbackError,
  NoRecordingError: errors.NoRecordingError,
  ProviderError: errors.ProviderError,
  errorClassFor: errors.errorClassFor,
};
