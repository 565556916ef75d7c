'use strict';
// One server for a whole test run, each test on its own `/t/{id}/` prefix (its own copy of the scenario, cursors
// and journal; see core's `isolation`): the vitest `globalSetup` starts it once (in process, on the addon's
// threads), each worker's tests reach it over HTTP. `CUECARD_URL` names a server started elsewhere (a
// docker-compose service, another CI job's) instead.

const { createHash } = require('node:crypto');
const { MockModel } = require('./mock.js');
const { Server } = require('./server.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');

/** The shared server's URL a run was given: `CUECARD_URL`, else `undefined`. */
function givenUrl() {
  const url = process.env.CUECARD_URL;
  return url ? url.replace(/\/+$/, '') : undefined;
}

/** Starts the run's server (`options` as for `Server`, `instant` by default); `{ url, stop }`. */
function startSharedServer(options = {}) {
  const server = new Server(new MockModel(), { instant: true, ...options });
  return { url: server.baseURL, stop: () => server.stop() };
}

/** A test's id on the shared server: a digest of its file and names, stable across runs and valid as a path. */
function sharedTestId(file, names) {
  return 't' + createHash('sha256').update(`${file}\u0000${names.join('\u0000')}`).digest('hex').slice(0, 24);
}

/** One test's part of the shared server: its base URLs, its scenario, its journal, its checks. */
class SharedTest {
  #serverUrl;
  /** Whether `load` gave it a scenario of its own. */
  loaded = false;

  constructor(serverUrl, id) {
    this.#serverUrl = serverUrl;
    this.id = id;
    /** The test's base URL; SDKs take it with their usual suffix (`openaiBaseURL` adds `/v1`). */
    this.baseURL = `${serverUrl}/t/${id}`;
    this.openaiBaseURL = `${this.baseURL}/v1`;
    this.anthropicBaseURL = this.baseURL;
  }

  async #admin(method, path, body) {
    const response = await fetch(`${this.#serverUrl}/_cuecard/t/${this.id}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`cuecard: ${method} ${path}: ${text}`);
    return JSON.parse(text);
  }

  /** Gives this test its own scenario (an object, or JSON/YAML text); its journal starts empty. */
  async load(scenario) {
    await this.#admin('PUT', '/scenario', typeof scenario === 'string' ? scenario : JSON.stringify(scenario));
    this.loaded = true;
  }

  /** This test's journal document (`count`, `counts`, `entries`, `unused_steps`, and `mcp` with MCP servers). */
  journal() {
    return this.#admin('GET', '/journal');
  }

  async entries() {
    return (await this.journal()).entries;
  }

  /** Runs checks as data on the server (`{ check: 'script_fully_used' }`); the first that fails throws an
   * `AssertionError`-named error with core's message. */
  async check(...checks) {
    const result = await this.#admin('POST', '/checks', JSON.stringify(checks));
    if (!result.ok) {
      const error = new Error(result.failure.message);
      error.name = 'AssertionError';
      throw error;
    }
  }

  /** The end-of-test check: every loaded step used and no unexpected request (only the latter when nothing was
   * loaded: the server's own scenario may hold steps this test never meant to use). */
  verify() {
    return this.check({ check: this.loaded ? 'script_fully_used' : 'no_unexpected_requests' });
  }

  /** Drops this test from the server. */
  async drop() {
    await this.#admin('DELETE', '');
  }
}

/** The shared server's URL for a test: what the vitest `globalSetup` provided, else `CUECARD_URL`. */
function sharedUrl(provided) {
  const url = provided ?? process.env.CUECARD_URL;
  if (!url) {
    throw new Error("cuecard: no shared server for this run: add globalSetup: ['cuecard/vitest-setup'] (vitest) or " +
      "globalSetup: 'cuecard/jest-setup' (jest) to the config, or set CUECARD_URL to a running cuecard serve");
  }
  return url.replace(/\/+$/, '');
}

/** A test's part of the shared server, checked (unless `strict: false`) and dropped by `finish(failed)`. */
function createShared(testFile, names, provided, options = {}) {
  if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object ({strict})', options);
  const { strict = true } = options;
  const test = new SharedTest(sharedUrl(provided), sharedTestId(testFile, names));
  const finish = async (failed) => {
    try {
      if (strict && !failed) await test.verify();
    } finally {
      await test.drop();
    }
  };
  return { test, finish };
}

/** vitest: this test's part of the run's shared server, checked and dropped when the test finishes. */
function vitestShared(expect, onTestFinished, inject, options) {
  const { testPath, currentTestName } = expect.getState();
  if (typeof testPath !== 'string') throw new Error('cuecardShared(): call it inside a running test');
  const { test, finish } = createShared(testPath, currentTestName.split(' > '), inject('cuecardUrl'), options);
  onTestFinished(({ task }) => finish(task.result?.state === 'fail'));
  return test;
}

module.exports = { SharedTest, sharedTestId, startSharedServer, givenUrl, createShared, vitestShared };
