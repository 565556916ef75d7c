'use strict';
// `MockModel`: the scripted provider with the seed systems' verbs (LangChain4j's `thatResponds` / `then...` /
// `andFails` / `thenRepeats`, Cogitator's defaults), answering with the scripted delays waited out on timers
// (never blocking the event loop; `instant` skips them), and the journal. Every rule is the core's; this file
// turns JS arguments into the core's data and the core's outcomes into values, errors and async iterables.

const { setTimeout: sleep } = require('node:timers/promises');
const native = require('./native.js');
const computed = require('./computed.js');
const keys = require('./keys.js');
const { callErrorOf, providerErrorOf, wrongType } = require('./errors.js');

const NATIVE = Symbol('cuecard.native');
const FUNCTIONS = Symbol('cuecard.functions');

/** A call's outcome JSON, finished (a pending computed step awaited) and parsed. */
async function settle(answered) {
  if (typeof answered === 'string') return JSON.parse(answered);
  return JSON.parse(await computed.finishAsync(answered));
}

function settleSync(answered) {
  if (typeof answered === 'string') return JSON.parse(answered);
  return JSON.parse(computed.finishSync(answered));
}

async function wait(ms, instant, signal) {
  if (ms > 0 && !instant) await sleep(ms, undefined, signal ? { signal } : undefined);
  else signal?.throwIfAborted();
}

function checkRequest(request) {
  if (typeof request === 'string' || keys.isPlainObject(request)) return request;
  throw wrongType('request', 'a user text or a request object', request);
}

const NOT_PLAIN = new Error('not plain JSON data');

/** `JSON.stringify`'s replacer that refuses every value the addon's walker reads differently from it (instances
 * of classes such as Date or Map, objects with `toJSON`, NaN and infinities, functions, symbols, BigInts); the
 * walker then reads the request and accepts it or names what is wrong. */
function plainDataOnly(key, value) {
  const original = this[key];
  switch (typeof original) {
    case 'object': {
      if (original === null || Array.isArray(original)) return value;
      const prototype = Object.getPrototypeOf(original);
      if ((prototype !== Object.prototype && prototype !== null) || typeof original.toJSON === 'function') throw NOT_PLAIN;
      return value;
    }
    case 'number':
      if (!Number.isFinite(original)) throw NOT_PLAIN;
      return value;
    case 'function':
    case 'symbol':
    case 'bigint':
      throw NOT_PLAIN;
    default:
      return value;
  }
}

/** The addon's answer to a request: serialized here and parsed by serde when that reads it exactly as the
 * addon's walker would (about 8 µs less per call; node/src/mock.rs, `request_of_json`), else read by the walker
 * (cycles, depth, lone surrogates, class instances: its checks and messages are the canonical ones). */
function ask(inner, request, stream) {
  checkRequest(request);
  let json;
  try {
    json = JSON.stringify(request, plainDataOnly);
  } catch {
    json = undefined; // a cycle, too deep for the JS stack, or a value refused above
  }
  if (json !== undefined) {
    const answered = stream ? inner.streamJson(json) : inner.chatJson(json);
    if (answered !== null) return answered;
  }
  return stream ? inner.stream(request) : inner.chat(request);
}

function failureSpec(kind, options, defaultKind) {
  if (kind !== undefined && typeof kind !== 'string') throw wrongType('kind', 'a failure kind name', kind);
  if (options !== undefined && !keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
  return { ...keys.failure(options ?? {}), kind: kind ?? defaultKind };
}

/** The events of one streamed answer, each after its scripted delay: `for await (const event of stream)`. */
class MockStream {
  #answered;
  #mock;
  #signal;
  #events = null;
  constructor(answered, mock, signal) {
    this.#answered = answered;
    this.#mock = mock;
    this.#signal = signal;
  }

  /** The events, at once, without waiting (after a computed step's function answered). */
  async events() {
    if (this.#events === null) {
      const outcome = await settle(this.#answered);
      if (outcome.error) throw callErrorOf(outcome.error);
      this.#events = outcome.events;
    }
    return this.#events;
  }

  async *[Symbol.asyncIterator]() {
    const instant = this.#mock.instant;
    for (const event of await this.events()) {
      if (event.delay_ms > 0 && !instant) await wait(event.delay_ms, false, this.#signal);
      else this.#signal?.throwIfAborted();
      yield event;
    }
  }

  /** The text deltas as they stream; a scripted failure is thrown where it happens (after the text before it). */
  async *textStream() {
    for await (const event of this) {
      if (event.type === 'text_delta') yield event.text;
      else if (event.type === 'error') throw providerErrorOf(event.error);
    }
  }

  /** The whole streamed text; a scripted failure is thrown after the stream reached it. */
  async text() {
    let text = '';
    for await (const piece of this.textStream()) text += piece;
    return text;
  }
}

/** A scripted model: each request takes the next step of the route it matches; every request is journaled. */
class MockModel {
  /** `settings`: `instant`, `usage`, `seed`, `providerId`, `capabilities`, `onExhausted`, `stepDefaults`,
   * `journalLimit` (camelCase or snake_case). */
  constructor(settings) {
    this[NATIVE] = new native.NativeMock();
    this[FUNCTIONS] = [];
    if (settings !== undefined) this.configure(settings);
  }

  /** A mock scripted by a scenario: an object, a JSON or YAML text, or the path of a JSON/YAML file; `settings`
   * override the scenario's. */
  static fromScenario(scenario, settings) {
    const mock = new this();
    mock[NATIVE].loadScenario(scenario);
    if (settings !== undefined) mock.configure(settings);
    return mock;
  }

  /** A mock whose first step is `answer` (see `thenResponds`). */
  static thatResponds(answer) {
    return new this().thenResponds(answer);
  }

  /** A mock whose first step streams exactly these tokens. */
  static thatStreams(...tokens) {
    return new this().thenStreams(...tokens);
  }

  /** A mock whose first step calls one tool. */
  static thatCallsTool(name, args) {
    return new this().thenCallsTool(name, args);
  }

  /** A mock whose first step calls several tools. */
  static thatCallsTools(calls) {
    return new this().thenCallsTools(calls);
  }

  /** A mock whose first step fails before anything is streamed (see `thenFails`). */
  static thatFails(kind, options) {
    return new this().thenFails(kind, options);
  }

  // ---- scripting: each verb returns the mock, to chain ---------------------------------------------------------

  /** Adds a step: a text (streamed in word-like tokens), a step object (`{text | tokens | thinking | toolCalls |
   * response | fail, failAfter?, finishReason?, usage?, delayMs?, ttftMs?, tokenDelayMs?, stallMs?}`), or a
   * function of the request returning either, sync or async (its errors reach the caller unchanged). */
  thenResponds(answer) {
    if (typeof answer === 'function') {
      this[NATIVE].thenComputes(computed.register(this, answer, this[FUNCTIONS]));
    } else if (typeof answer === 'string' || keys.isPlainObject(answer)) {
      this[NATIVE].thenResponds(keys.step(answer));
    } else {
      throw wrongType('answer', 'a string, a step object, or a function of the request', answer);
    }
    return this;
  }

  /** Adds a step streaming exactly these tokens. */
  thenStreams(...tokens) {
    const list = tokens.length === 1 && Array.isArray(tokens[0]) ? tokens[0] : tokens;
    list.forEach((token, i) => {
      if (typeof token !== 'string') throw wrongType(`tokens[${i}]`, 'a string', token);
    });
    this[NATIVE].thenStreams(list);
    return this;
  }

  /** Adds a step calling one tool; arguments as an object, or as raw JSON text (possibly invalid on purpose). */
  thenCallsTool(name, args) {
    if (typeof name !== 'string') throw wrongType('name', 'a tool name', name);
    this[NATIVE].thenCallsTool(name, args ?? null);
    return this;
  }

  /** Adds a step calling several tools (`[{name, arguments | argumentsJson, id?}]`). */
  thenCallsTools(calls) {
    if (!Array.isArray(calls)) throw wrongType('calls', 'an array of tool calls', calls);
    this[NATIVE].thenCallsTools(calls.map(keys.toolCall));
    return this;
  }

  /** Adds a step failing before anything is streamed: `kind` (`rate_limited`, `overloaded`, `timeout`, ...) and
   * `{status?, message?, retryable?, retryAfterMs?, errorType?, errorCode?}`. */
  thenFails(kind, options) {
    this[NATIVE].thenFails(failureSpec(kind, options, 'server_error'));
    return this;
  }

  /** Makes the last step fail after its thinking and text were streamed (options as for `thenFails`). */
  andFails(kind, options) {
    this[NATIVE].andFails(failureSpec(kind, options, 'connection_reset'));
    return this;
  }

  /** Answers every further request of the current route with its last step. */
  thenRepeats() {
    this[NATIVE].thenRepeats();
    return this;
  }

  /** Starts a route: the steps added next answer only requests matching every criterion given
   * (`{operation?, model?, endpoint?, onExhausted?}`); the first matching route wins. */
  route(options = {}) {
    if (!keys.isPlainObject(options)) throw wrongType('route', 'an options object', options);
    this[NATIVE].route(keys.route(options));
    return this;
  }

  /** Changes the settings given (see the constructor). */
  configure(settings) {
    if (!keys.isPlainObject(settings)) throw wrongType('settings', 'a settings object', settings);
    this[NATIVE].configure(keys.settings(settings));
    return this;
  }

  /** Every response reports this usage unless a step gives its own (LangChain4j's `withTokenUsage`). */
  withTokenUsage(inputTokens, outputTokens) {
    return this.configure({ usage: { input_tokens: inputTokens, output_tokens: outputTokens } });
  }

  /** Steps without a delay of their own wait `delayMs` before answering (Cogitator's `setDefaultDelay`). */
  withDefaultDelay(delayMs) {
    return this.configure({ step_defaults: { delay_ms: delayMs } });
  }

  /** Every setting in force (snake_case, as the core's data). */
  settings() {
    return JSON.parse(this[NATIVE].settings());
  }

  /** Whether the waiting forms skip the scripted delays. */
  get instant() {
    return this[NATIVE].instant;
  }

  // ---- answering -------------------------------------------------------------------------------------------------

  /** Answers a request (a user text, or an object in cuecard's neutral format) whole, after its scripted delay;
   * a scripted failure rejects with `ProviderError` after the delay. `options.signal` aborts the wait. */
  async chat(request, options = {}) {
    const answered = ask(this[NATIVE], request, false);
    // A scripted answer is at hand; only a computed one (and a real delay) is awaited.
    const outcome = typeof answered === 'string' ? JSON.parse(answered) : await settle(answered);
    if (outcome.delay_ms > 0 && !this.instant) await wait(outcome.delay_ms, false, options.signal);
    else options.signal?.throwIfAborted();
    if (outcome.error) throw callErrorOf(outcome.error);
    return outcome.response;
  }

  /** Answers at once, without waiting; a computed answer must be synchronous. */
  chatSync(request) {
    const outcome = settleSync(ask(this[NATIVE], request, false));
    if (outcome.error) throw callErrorOf(outcome.error);
    return outcome.response;
  }

  /** Answers as a stream: the request is journaled now; iterate the events (`for await`), or `text()`. */
  stream(request, options = {}) {
    return new MockStream(ask(this[NATIVE], request, true), this, options.signal);
  }

  /** The stream events at once, without waiting; a computed answer must be synchronous. */
  streamEventsSync(request) {
    const outcome = settleSync(ask(this[NATIVE], request, true));
    if (outcome.error) throw callErrorOf(outcome.error);
    return outcome.events;
  }

  // ---- the journal -----------------------------------------------------------------------------------------------

  /** The journal entries, oldest first. */
  entries() {
    return JSON.parse(this[NATIVE].entries());
  }

  /** The requests received, in arrival order. */
  requests() {
    return JSON.parse(this[NATIVE].requests());
  }

  /** The only request received; `RequestCountMismatchError` otherwise. */
  request() {
    return JSON.parse(this[NATIVE].request());
  }

  /** The last request received; `RequestCountMismatchError` when there is none. */
  lastRequest() {
    return JSON.parse(this[NATIVE].lastRequest());
  }

  /** The text of the only user message of the only request. */
  userMessageText() {
    return this[NATIVE].userMessageText();
  }

  /** Whether some request satisfies `predicate` (Cogitator's `wasCalledWith`). */
  wasCalledWith(predicate) {
    if (typeof predicate !== 'function') throw wrongType('predicate', 'a function of the request', predicate);
    return this.requests().some((request) => predicate(request));
  }

  /** Number of requests received. */
  get requestCount() {
    return this[NATIVE].requestCount();
  }

  /** Counters by outcome (`total`, `answered`, `failed`, `exhausted`, `unmatched`, `callback_failed`, ...). */
  counts() {
    return JSON.parse(this[NATIVE].counts());
  }

  /** Steps no request took. */
  unusedSteps() {
    return JSON.parse(this[NATIVE].unusedSteps());
  }

  /** The MCP journal: every message the scenario's MCP servers received, oldest first. */
  mcpEntries() {
    return JSON.parse(this[NATIVE].mcpEntries());
  }

  /** The realtime socket messages, both ways, in the order they crossed: `{index, session, protocol, direction,
   * type, event, ...}` (docs/concepts/realtime.md). */
  socketEvents() {
    return JSON.parse(this[NATIVE].socketEvents());
  }

  /** MCP tool steps no call took: `{server, tool, step}`. */
  mcpUnusedSteps() {
    return JSON.parse(this[NATIVE].mcpUnusedSteps());
  }

  /** The journal entries of requests the script did not expect. */
  unexpectedRequests() {
    return JSON.parse(this[NATIVE].unexpectedRequests());
  }

  /** Provider-side call records, one per request (what checks use without an observer). */
  callRecords() {
    return JSON.parse(this[NATIVE].callRecords());
  }

  /** Forgets every request and rewinds the script; ids restart. */
  reset() {
    this[NATIVE].reset();
  }

  /** Advances the virtual clock by `ms` (for waits outside the mock, such as a client's back-off). */
  advanceClock(ms) {
    if (typeof ms !== 'number') throw wrongType('ms', 'a number of milliseconds', ms);
    this[NATIVE].advanceClock(ms);
  }

  /** The virtual clock, in milliseconds since the mock was created. */
  get clockMs() {
    return this[NATIVE].clockMs();
  }
}

/** The addon's mock under a `MockModel` (for the package's own modules). */
function nativeOf(mock) {
  const inner = mock?.[NATIVE];
  if (inner === undefined) throw wrongType('mock', 'a MockModel', mock);
  return inner;
}

module.exports = { MockModel, MockStream, nativeOf, ask, settle, settleSync, wait };
