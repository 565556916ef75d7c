'use strict';
// `MockTool`: a tool double recording every invocation, answering fixed, computed (a JS function, sync or
// async), failing or slowly; Cogitator's fixture tools come from the core by name.

const native = require('./native.js');
const keys = require('./keys.js');
const computed = require('./computed.js');
const { wait } = require('./mock.js');
const { callErrorOf, wrongType } = require('./errors.js');

function outcomeOf(json) {
  const outcome = JSON.parse(json);
  return outcome;
}

/** A tool double. `invoke` waits out a slow tool's delay on a timer; `invokeSync` answers at once. */
class MockTool {
  #native;
  #responder;

  /** `{name, description?, parameters?, result? | responder? | fails?, delayMs?}`: a tool answering `result`
   * always, computed by `responder(arguments)`, or failing with the message `fails`; with none of them it
   * answers `{}`. */
  constructor(options) {
    if (options instanceof native.NativeTool) {
      this.#native = options;
      return;
    }
    if (!keys.isPlainObject(options)) throw wrongType('options', 'a tool options object', options);
    const { responder, ...rest } = keys.tool(options);
    if (responder !== undefined && typeof responder !== 'function') {
      throw wrongType('responder', 'a function of the arguments', responder);
    }
    this.#responder = responder;
    this.#native = new native.NativeTool(rest, responder !== undefined);
  }

  /** A tool that always answers `result` (Tramai's `MockTool.fixed`). */
  static fixed(name, description, result) {
    return new MockTool({ name, description, result });
  }

  /** One of Cogitator's fixture tools: `calculator`, `weather`, `failing` (`{message}`), `slow` (`{delayMs}`). */
  static fixture(name, options = {}) {
    return new MockTool(native.NativeTool.fixture(name, options.message, options.delayMs ?? options.delay_ms));
  }

  get name() {
    return this.#native.name;
  }

  get description() {
    return this.#native.description;
  }

  /** The definition to offer in a request (`{name, description, parameters}`). */
  definition() {
    return JSON.parse(this.#native.definition());
  }

  async #answer(args) {
    if (this.#responder === undefined) return outcomeOf(this.#native.invoke(args));
    const parsed = typeof args === 'string' ? JSON.parse(args) : args;
    let value;
    try {
      value = await this.#responder(parsed);
    } catch (error) {
      this.#native.recordComputed(parsed, null, computed.describe(error));
      throw error;
    }
    return outcomeOf(this.#native.recordComputed(parsed, value ?? null));
  }

  /** Calls the tool (arguments as an object, or as the JSON text a model produced) and answers after the
   * tool's delay; a failing tool rejects with `ToolFailedError`. */
  async invoke(args, options = {}) {
    const outcome = await this.#answer(args);
    await wait(outcome.delay_ms, false, options.signal);
    if (outcome.error) throw callErrorOf(outcome.error);
    return outcome.result;
  }

  /** Calls the tool and answers at once (a computed tool's function must be synchronous). */
  invokeSync(args) {
    let outcome;
    if (this.#responder === undefined) {
      outcome = outcomeOf(this.#native.invoke(args));
    } else {
      const parsed = typeof args === 'string' ? JSON.parse(args) : args;
      let value;
      try {
        value = this.#responder(parsed);
      } catch (error) {
        this.#native.recordComputed(parsed, null, computed.describe(error));
        throw error;
      }
      if (computed.isThenable(value)) throw wrongType('responder', 'a synchronous function for invokeSync', value);
      outcome = outcomeOf(this.#native.recordComputed(parsed, value ?? null));
    }
    if (outcome.error) throw callErrorOf(outcome.error);
    return outcome.result;
  }

  /** The arguments of every invocation, in order (Tramai's `calls`). */
  calls() {
    return this.invocations().map((invocation) => invocation.arguments);
  }

  /** Every invocation: `{index, arguments, result | error, delay_ms}`. */
  invocations() {
    return JSON.parse(this.#native.invocations());
  }

  /** How often it was called. */
  get callCount() {
    return this.#native.callCount();
  }

  /** Forgets the invocations. */
  reset() {
    this.#native.reset();
  }
}

module.exports = { MockTool };
