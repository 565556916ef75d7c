'use strict';
// `RecordingObserver`: Tramai's observer protocol for engines written in JS. An engine reports each provider
// call; the records feed `assertThat(mock).withObserver(observer)`. Reading a JS error (its kind, status and
// class names) is this file's job; recording is the core's.

const native = require('./native.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');

/** The class names of an error, most derived first, without `Object` and `Error`. */
function classNames(error) {
  const names = [];
  for (let proto = Object.getPrototypeOf(error); proto && proto !== Error.prototype && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)) {
    const name = proto.constructor?.name;
    if (typeof name === 'string' && name !== '') names.push(name);
  }
  return names;
}

/** What a JS failure says about itself: a ProviderError's kind, an SDK error's status, its class names. */
function failureInfo(failure, options = {}) {
  if (typeof failure === 'string') {
    return { kind: failure, status: options.status ?? null, retryable: options.retryable ?? false, message: '', type_names: [] };
  }
  if (failure === null || typeof failure !== 'object') throw wrongType('failure', 'an error or a kind name', failure);
  const typeNames = classNames(failure);
  const kind = typeof failure.kind === 'string' ? failure.kind : (typeNames[0] ?? 'Error');
  // cuecard's ProviderError and the SDKs' APIError say `status`; some errors say `statusCode`.
  const found = Number.isInteger(failure.status) ? failure.status : Number.isInteger(failure.statusCode) ? failure.statusCode : null;
  return {
    kind,
    status: options.status ?? found,
    retryable: options.retryable ?? (typeof failure.retryable === 'boolean' ? failure.retryable : false),
    message: String(failure.message ?? failure),
    type_names: typeNames,
  };
}

/** What an engine reports to for one provider call. */
class CallObservation {
  #observer;
  constructor(observer, index) {
    this.#observer = observer;
    this.index = index;
  }

  #report(event) {
    this.#observer._native.report(this.index, event);
  }

  /** The provider answered (a response in cuecard's neutral format). */
  onProviderResponse(response) {
    this.#report({ event: 'provider_response', response });
  }

  /** The provider failed: an error (a ProviderError records its kind; another error its class name and every
   * class it is an instance of), or a kind given as text. */
  onProviderFailure(failure, options) {
    this.#report({ event: 'provider_failure', failure: failureInfo(failure, options) });
  }

  /** Structured parsing failed; like Tramai, the raw response is not kept. */
  onStructuredParseFailure(rawResponse, errorSummary) {
    this.#report({ event: 'structured_parse_failure', summary: String(errorSummary) });
  }

  /** A named engine event with attributes. */
  onEngineEvent(name, attributes = {}) {
    this.#report({ event: 'engine_event', name: String(name), attributes });
  }

  /** The call is over; `parseSuccess` is undefined for raw operations. */
  onCallCompleted(parseSuccess) {
    this.#report({ event: 'call_completed', parse_success: parseSuccess ?? null });
  }

  /** The call was cancelled. */
  onCallCancelled() {
    this.#report({ event: 'call_cancelled' });
  }
}

/** Records every provider call an engine reports, in order. */
class RecordingObserver {
  constructor() {
    Object.defineProperty(this, '_native', { value: new native.NativeObserver() });
  }

  /** A provider call starts (`{operation?, providerId?, model?, attempt?, service?}`); report the rest of it to
   * the returned observation. */
  onCallStarted(context = {}) {
    if (typeof context === 'string') context = { operation: context };
    if (!keys.isPlainObject(context)) throw wrongType('context', 'a call context object', context);
    return new CallObservation(this, this._native.start(keys.context(context)));
  }

  /** Every call record. */
  callRecords() {
    return JSON.parse(this._native.callRecords());
  }

  /** Forgets every record. */
  clear() {
    this._native.clear();
  }
}

module.exports = { RecordingObserver, CallObservation, failureInfo };
