'use strict';
// Recordings in-process: `new Recording(path, { mode })` is answered through `createFetch(recording)` (and the
// SDK option helpers) from a recording file and, in a record mode, forwards what the file lacks to the real API
// (or any upstream) with the platform's `fetch`, passing each chunk on to the SDK as it arrives and recording the
// exchange when its body ends. The rules (the modes, the CI refusal, each protocol's upstream, redaction, the
// file's format) are core's (`cuecard::record::RecordingFile`); this only moves bytes.

const native = require('./native.js');
const keys = require('./keys.js');
const { MockModel } = require('./mock.js');
const { wrongType } = require('./errors.js');

/** `[name, value]` pairs as the addon's `name:value` lines. */
function lines(pairs) {
  let text = '';
  for (const [name, value] of pairs) text += `${name}:${value}\n`;
  return text;
}

/** A recording file in a record mode: `none` (replay only, the default), `once` (record when the file is
 * missing), `new` (replay, and record what is missing), `all` (record anew). `mock` replays the file (empty when
 * nothing is replayed): assert on its journal. Options: `mode`, `upstream` (a URL, or a list of `URL` and
 * `PROTOCOL=URL`; the providers' public APIs by default), `redact`, `redactFields`, `allowInCi`, `description`,
 * and `fetch` (what forwards; the global `fetch` by default). */
class Recording {
  #native;
  #fetch;

  constructor(path, options = {}) {
    if (typeof path !== 'string') throw wrongType('path', 'a string (the recording file)', path);
    if (!keys.isPlainObject(options)) throw wrongType('options', 'a recording options object', options);
    const { fetch: forwarding, ...given } = options;
    if (forwarding !== undefined && typeof forwarding !== 'function') throw wrongType('fetch', 'a function', forwarding);
    const settings = keys.recording(given);
    if (typeof settings.upstream === 'string') settings.upstream = [settings.upstream];
    this.#native = new native.NativeRecordingFile(path, settings);
    this.#fetch = forwarding ?? globalThis.fetch;
    this.path = path;
    this.mock = this.#native.replays ? MockModel.fromScenario(path) : new MockModel();
    // A recording older than its max_age_days is still replayed, with a warning naming it.
    const stale = this.#native.ageWarning;
    if (stale) process.emitWarning(stale, { type: 'RecordingWarning', code: 'CUECARD_RECORDING_AGE' });
    /** What could not be recorded, in order. */
    this.failures = [];
  }

  get mode() {
    return this.#native.mode;
  }

  /** Whether requests are answered from the file first. */
  get replays() {
    return this.#native.replays;
  }

  /** Whether requests the file lacks are forwarded and recorded. */
  get records() {
    return this.#native.records;
  }

  /** How many exchanges were recorded since the file was opened. */
  get recorded() {
    return this.#native.recorded;
  }

  /** Whether a replayed reply (the addon's form) is a miss this recording forwards instead. */
  forwardsReply(reply) {
    return this.records && native.NativeRecordingFile.isMiss(lines(reply.headers));
  }

  /** Forwards one request to its upstream and answers with the upstream's reply, recording it as it arrives. */
  async forward(method, target, headerLines, body, signal) {
    const { url, headers: sent } = JSON.parse(this.#native.forwarding(method, target, headerLines));
    const started = performance.now();
    const upstream = await this.#fetch(url, { method, headers: sent, body: method === 'GET' || method === 'HEAD' ? undefined : body, signal });
    const replyHeaders = [...upstream.headers];
    const exchange = {
      request: [method, target, headerLines, body],
      status: upstream.status,
      headers: lines(replyHeaders),
      headersMs: performance.now() - started,
      chunks: [],
      times: [],
    };
    const finish = (cut) => this.#record(exchange, cut);
    const reader = upstream.body?.getReader();
    if (reader === undefined) {
      finish(false);
      return new Response(null, { status: upstream.status, headers: replyHeaders });
    }
    const relayed = new ReadableStream({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            finish(false);
            controller.close();
            return;
          }
          exchange.chunks.push(Buffer.from(value));
          exchange.times.push(performance.now() - started);
          controller.enqueue(value);
        } catch (error) {
          finish(true);
          controller.error(error);
        }
      },
      cancel(reason) {
        // The client stopped reading: the recording holds what arrived, marked cut.
        finish(true);
        return reader.cancel(reason);
      },
    });
    // The body is decoded by fetch already: the length and encoding of the wire no longer describe it.
    const headers = replyHeaders.filter(([name]) => name !== 'content-encoding' && name !== 'content-length');
    return new Response(relayed, { status: upstream.status, headers });
  }

  #record(exchange, cut) {
    if (exchange.done) return;
    exchange.done = true;
    const [method, target, headerLines, body] = exchange.request;
    try {
      this.#native.record(method, target, headerLines, typeof body === 'string' ? body : Buffer.from(body), exchange.status,
        exchange.headers, exchange.headersMs, exchange.chunks, exchange.times, cut);
    } catch (error) {
      this.failures.push(`not recorded in ${this.path}: ${error.message}`);
    }
  }
}

module.exports = { Recording };
