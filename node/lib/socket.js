'use strict';
// An in-process WebSocket: the WHATWG `WebSocket` interface (what browsers, Node 22+ and the realtime SDKs' socket
// factories take) answered by a MockModel's realtime sessions, with no server. Each message goes through the same
// face as the server's sockets (`handleHttp` with method `WS`, docs/concepts/realtime.md), so the events, the
// journal and the checks are those of `cuecard serve`.
//
//   const transport = new OpenAIRealtimeWebSocket({ createWebSocket: ({ url }) => createWebSocket(mock)(url) });

const { nativeOf, wait } = require('./mock.js');
const computed = require('./computed.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/** A reply of the addon's `handleHttp` for a socket: one line of JSON (node/src, `http_reply_text`). */
function replyOf(text) {
  const newline = text.indexOf('\n');
  const reply = JSON.parse(newline < 0 ? text : text.slice(0, newline));
  if (reply.kind === 'full') reply.body = text.slice(newline + 1);
  return reply;
}

/** An event with these fields (Node before 23 has no global `CloseEvent`, and `MessageEvent` differs by version). */
function event(type, fields) {
  const made = new Event(type);
  for (const [name, value] of Object.entries(fields)) Object.defineProperty(made, name, { value, enumerable: true });
  return made;
}

class CuecardWebSocket extends EventTarget {
  static CONNECTING = CONNECTING;
  static OPEN = OPEN;
  static CLOSING = CLOSING;
  static CLOSED = CLOSED;

  #handle;
  #instant;
  #target;
  #socket = null;
  /** Messages of the last answer not sent yet, and its size (what a message cutting in tells the core). */
  #queue = [];
  #lastAnswer = 0;
  #end = 'open';
  #sending = false;
  /** Sends take turns: each waits for the answer to the one before it. */
  #turns = Promise.resolve();

  constructor(handle, url, protocols, instant) {
    super();
    this.#handle = handle;
    this.#instant = instant;
    this.url = String(url);
    const parsed = new URL(this.url);
    this.#target = parsed.pathname + parsed.search;
    this.readyState = CONNECTING;
    this.protocol = '';
    this.extensions = '';
    this.binaryType = 'blob';
    this.bufferedAmount = 0;
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    this.onerror = null;
    const offered = protocols === undefined ? [] : Array.isArray(protocols) ? protocols : [protocols];
    // Opened after the caller has attached its listeners, as a real socket opens.
    setTimeout(() => this.#open(offered.map(String)), 0);
  }

  #emit(type, fields = {}) {
    const made = event(type, fields);
    this.dispatchEvent(made);
    const handler = this[`on${type}`];
    if (typeof handler === 'function') handler.call(this, made);
  }

  async #ask(method, extra, body) {
    let headers = `${extra}`;
    if (this.#socket !== null) headers = `x-cuecard-socket:${this.#socket}\n${headers}`;
    const answered = this.#handle.handleHttp(method, this.#target, headers, body, 'never');
    return replyOf(typeof answered === 'string' ? answered : await computed.finishAsync(answered));
  }

  async #open(offered) {
    const lines = `upgrade:websocket\n${offered.length ? `sec-websocket-protocol:${offered.join(', ')}\n` : ''}`;
    const reply = await this.#ask('GET', lines, '');
    if (reply.kind !== 'socket' || reply.status !== 101) {
      // A refused upgrade: what `ws` and browsers do, an error then a close that was not clean.
      this.readyState = CLOSED;
      this.#emit('error', { message: `Unexpected server response: ${reply.status}`, error: new Error(reply.body ?? '') });
      this.#emit('close', { code: 1006, reason: '', wasClean: false });
      return;
    }
    this.#socket = reply.socket;
    this.protocol = (reply.headers.find(([name]) => name === 'sec-websocket-protocol') ?? [])[1] ?? '';
    this.readyState = OPEN;
    this.#emit('open');
    this.#take(reply);
  }

  /** Queues an answer's messages (after the unsent ones, unless it interrupts them) and sends them in turn. */
  #take(reply) {
    if (reply.interrupt) this.#queue = [];
    this.#queue.push(...reply.frames);
    this.#lastAnswer = reply.frames.length;
    this.#end = reply.end;
    if (!this.#sending) this.#drain();
  }

  async #drain() {
    this.#sending = true;
    while (this.#queue.length > 0 && this.readyState === OPEN) {
      const frame = this.#queue[0];
      await wait(frame.delay_ms, this.#instant);
      if (this.#queue[0] !== frame || this.readyState !== OPEN) continue; // interrupted while waiting
      this.#queue.shift();
      this.#emit('message', { data: frame.data, origin: new URL(this.url).origin });
    }
    this.#sending = false;
    if (this.readyState !== OPEN || this.#queue.length > 0) return;
    if (this.#end === 'cut') {
      this.readyState = CLOSED;
      this.#emit('error', { message: 'the connection was cut (cuecard: as scripted)' });
      this.#emit('close', { code: 1006, reason: '', wasClean: false });
    } else if (this.#end !== 'open' && this.#end.close) {
      this.readyState = CLOSED;
      this.#emit('close', { code: this.#end.close.code, reason: this.#end.close.reason, wasClean: true });
    }
  }

  send(data) {
    if (this.readyState === CONNECTING) throw new DOMException('WebSocket is not open: readyState 0 (CONNECTING)', 'InvalidStateError');
    if (this.readyState !== OPEN) return;
    const body = typeof data === 'string' ? data : ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : data instanceof ArrayBuffer ? new Uint8Array(data) : String(data);
    this.#turns = this.#turns.then(async () => {
      const unsent = Math.min(this.#queue.length, this.#lastAnswer);
      const delivered = unsent > 0 ? `x-cuecard-delivered:${this.#lastAnswer - unsent}\n` : '';
      const reply = await this.#ask('WS', delivered, body);
      if (this.readyState === OPEN) this.#take(reply);
    }).catch((error) => this.#emit('error', { message: String(error?.message ?? error), error }));
  }

  close(code = 1000, reason = '') {
    if (this.readyState === CLOSING || this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.#turns = this.#turns.then(async () => {
      if (this.#socket !== null) await this.#ask('WS', `x-cuecard-socket-closed:${code}\n`, String(reason));
      this.readyState = CLOSED;
      this.#emit('close', { code, reason: String(reason), wasClean: true });
    });
  }
}

/** A WebSocket constructor answered by `mock` (`options.instant` skips the scripted delays; by default the mock's
 * setting): `createWebSocket(mock)(url, protocols)` is what `new WebSocket(url, protocols)` is on the wire. */
function createWebSocket(mock, options = {}) {
  const handle = nativeOf(mock);
  if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
  return (url, protocols) => new CuecardWebSocket(handle, url, protocols, options.instant ?? mock.instant);
}

module.exports = { createWebSocket, CuecardWebSocket };
