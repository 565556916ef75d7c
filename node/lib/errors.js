'use strict';
// cuecard's errors. Every cuecard error has a stable `.code` (the same in every language), `.number`, `.issues`
// (problems found at paths of a document) and `.context` (the argument, the path, ...). Each code has its class,
// and each class is also the natural builtin: `InvalidArgumentError` is a `TypeError`, `AssertionFailedError` is
// node:assert's `AssertionError`. `instanceof CuecardError` holds for all of them. A scripted provider failure is
// a `ProviderError` with `.kind`, `.status`, `.retryable`, `.retryAfterMs`.

const { AssertionError } = require('node:assert');

const BRAND = Symbol.for('cuecard.error');

// Each code's stable number, from the core, read from the backend in use (napi or wasm) at the first error (the
// backend is read when first needed: in a browser bundle it exists only once the entry has loaded the module).
let numbers = null;
function numberOf(code) {
  numbers ??= Object.fromEntries(require('./addon.js').errorCatalogue().map(([c, number]) => [c, number]));
  return numbers[code];
}

function brand(error, data) {
  error.name = error.constructor.name;
  error.code = data.code ?? error.constructor.code;
  error.number = data.number ?? numberOf(error.code) ?? 0;
  error.issues = data.issues ?? [];
  error.context = data.context ?? {};
  Object.defineProperty(error, BRAND, { value: true });
  return error;
}

/** Base class of cuecard's own errors. */
class CuecardError extends Error {
  static code = 'internal';
  constructor(message, data = {}) {
    super(message);
    brand(this, data);
  }
  // Every cuecard error is a CuecardError, also those whose builtin base is TypeError or AssertionError.
  static [Symbol.hasInstance](value) {
    if (this === CuecardError) return value != null && value[BRAND] === true;
    return Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

function errorClass(name, code, Base = CuecardError) {
  return {
    [name]: class extends Base {
      static code = code;
      constructor(message, data = {}) {
        if (Base === CuecardError || Object.prototype.isPrototypeOf.call(CuecardError.prototype, Base.prototype)) {
          super(message, data);
        } else {
          super(message);
          brand(this, data);
        }
      }
    },
  }[name];
}

const InvalidScenarioError = errorClass('InvalidScenarioError', 'invalid_scenario');
const InvalidRequestError = errorClass('InvalidRequestError', 'invalid_request');
const ScriptExhaustedError = errorClass('ScriptExhaustedError', 'script_exhausted');
const NoRouteMatchedError = errorClass('NoRouteMatchedError', 'no_route_matched');
const InvalidArgumentError = errorClass('InvalidArgumentError', 'invalid_argument', TypeError);
const InvalidStateError = errorClass('InvalidStateError', 'invalid_state');
const RequestCountMismatchError = errorClass('RequestCountMismatchError', 'request_count_mismatch');
const CallbackFailedError = errorClass('CallbackFailedError', 'callback_failed');
const InvalidUtf8Error = errorClass('InvalidUtf8Error', 'invalid_utf8', TypeError);
const CuecardIOError = errorClass('CuecardIOError', 'io');
const ToolFailedError = errorClass('ToolFailedError', 'tool_failed');
const InternalError = errorClass('InternalError', 'internal');
const NotFoundError = errorClass('NotFoundError', 'not_found');
const RequestTooLargeError = errorClass('RequestTooLargeError', 'request_too_large', RangeError);
/** A request matches none of a recording's requests: also a NoRouteMatchedError. */
const NoRecordingError = errorClass('NoRecordingError', 'no_recording', NoRouteMatchedError);
/** A callback of another language failed (a JS function's own error is thrown as itself). */
const HostCallbackError = errorClass('HostCallbackError', 'host_error');

/** A failed check: node:assert's AssertionError, with the core's message (expected, actual, history). */
class AssertionFailedError extends AssertionError {
  static code = 'assertion_failed';
  constructor(message, data = {}) {
    super({ message });
    brand(this, data);
    // AssertionError's own fields, for runners that print them.
    if (data.context && 'expected' in data.context) this.expected = data.context.expected;
    if (data.context && 'actual' in data.context) this.actual = data.context.actual;
    this.generatedMessage = false;
  }
}

const BY_CODE = Object.freeze(Object.fromEntries([
  InvalidScenarioError, InvalidRequestError, ScriptExhaustedError, NoRouteMatchedError, InvalidArgumentError,
  InvalidStateError, RequestCountMismatchError, AssertionFailedError, CallbackFailedError, InvalidUtf8Error,
  CuecardIOError, ToolFailedError, InternalError, NotFoundError, RequestTooLargeError, HostCallbackError,
  NoRecordingError,
].map((cls) => [cls.code, cls])));

/** The class for a code; an unknown code (from a newer core) falls back to the base class. */
function errorClassFor(code) {
  return BY_CODE[code] ?? CuecardError;
}

/** A simulated provider failure (a 429, a 529, a reset connection, ...), as the script says. */
class ProviderError extends Error {
  constructor(kind, message, options = {}) {
    super(message);
    this.name = 'ProviderError';
    this.kind = kind;
    this.status = options.status ?? null;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.errorType = options.errorType ?? null;
    this.errorCode = options.errorCode ?? null;
  }
}

/** The error of core's error JSON (`{code, number, message, issues, context}`). */
function cuecardErrorOf(data) {
  const cls = errorClassFor(data.code);
  return new cls(data.message, data);
}

/** The error of a scripted failure's JSON. */
function providerErrorOf(data) {
  return new ProviderError(data.kind, data.message, {
    status: data.status, retryable: data.retryable, retryAfterMs: data.retry_after_ms,
    errorType: data.error_type, errorCode: data.error_code,
  });
}

/** The factory the addon calls to throw: family `cuecard` or `provider`, and the error's JSON text. */
function makeError(family, json) {
  const data = JSON.parse(json);
  return family === 'provider' ? providerErrorOf(data) : cuecardErrorOf(data);
}

/** The error of a call outcome's `error` (`{family, error | message}`). */
function callErrorOf(outcome) {
  if (outcome.family === 'provider') return providerErrorOf(outcome.error);
  if (outcome.family === 'cuecard') return cuecardErrorOf(outcome.error);
  return new HostCallbackError(outcome.message);
}

/** A TypeError naming an argument of the wrong JS type (before it reaches the addon). */
function wrongType(argument, expected, value) {
  const found = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return new InvalidArgumentError(`invalid ${argument}: expected ${expected}, found ${found}`, {
    context: { argument },
  });
}

module.exports = {
  CuecardError, InvalidScenarioError, InvalidRequestError, ScriptExhaustedError, NoRouteMatchedError,
  InvalidArgumentError, InvalidStateError, RequestCountMismatchError, AssertionFailedError, CallbackFailedError,
  InvalidUtf8Error, CuecardIOError, ToolFailedError, InternalError, NotFoundError, RequestTooLargeError,
  HostCallbackError, NoRecordingError, ProviderError, errorClassFor, makeError, callErrorOf, cuecardErrorOf, providerErrorOf,
  wrongType, BY_CODE,
};
