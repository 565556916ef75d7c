'use strict';
// `Server`: the loopback HTTP server over a mock, speaking the OpenAI and Anthropic wire protocols, on the
// addon's own threads (it never keeps Node alive at exit). Computed answers run on this JS thread.

const native = require('./native.js');
const keys = require('./keys.js');
const { nativeOf } = require('./mock.js');
const { wrongType } = require('./errors.js');

/** The loopback server. `stop()` is idempotent; `await using server = ...` stops it too. */
class Server {
  #native;
  /** Serves `mock` on 127.0.0.1 (`{port?: 0, host?, instant?}`; port 0 picks a free one). */
  constructor(mock, options = {}) {
    if (!keys.isPlainObject(options)) throw wrongType('options', 'a server options object', options);
    this.mock = mock;
    this.#native = new native.NativeServer(nativeOf(mock), options);
  }

  /** `http://127.0.0.1:PORT`. */
  get baseURL() {
    return this.#native.baseUrl;
  }

  /** For `new OpenAI({ baseURL })` (ends in `/v1`). */
  get openaiBaseURL() {
    return this.#native.openaiBaseUrl;
  }

  /** For `new Anthropic({ baseURL })`. */
  get anthropicBaseURL() {
    return this.#native.anthropicBaseUrl;
  }

  get port() {
    return this.#native.port;
  }

  /** Stops the server; requests in flight finish. */
  stop() {
    this.#native.stop();
  }

  [Symbol.dispose]() {
    this.stop();
  }

  async [Symbol.asyncDispose]() {
    this.stop();
  }
}

module.exports = { Server };
