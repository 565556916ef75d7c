'use strict';
// An MCP `Transport` for the TypeScript SDK's `Client`, answered in process by a mock's scripted MCP server (the
// `mcp` section of its scenario): no socket, no child process. Each message is POSTed to the mock's `/mcp` (or
// `/mcp/{server}`) through `createFetch`, the same wire face as `cuecard serve`, so sessions, progress, errors and
// the journal are the server's.

const { createFetch, BASE_URL } = require('./fetch.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');

const ACCEPT = 'application/json, text/event-stream';

/** The JSON-RPC messages of an SSE body, as each event's `data` comes. */
async function* sseMessages(body) {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).join('\n');
      if (data.trim()) yield JSON.parse(data);
    }
  }
}

class McpTransport {
  #fetch;
  #url;
  #closed = false;

  /**
   * A transport to `mock`'s MCP server `options.server` (the first when absent); `options.instant` skips the scripted
   * delays (by default the mock's setting).
   */
  constructor(mock, options = {}) {
    if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
    const { server, instant } = options;
    if (server !== undefined && typeof server !== 'string') throw wrongType('options.server', 'a string', server);
    this.#url = `${BASE_URL}/mcp${server === undefined ? '' : `/${encodeURIComponent(server)}`}`;
    this.#fetch = createFetch(mock, instant === undefined ? {} : { instant });
    /** The session `initialize` opened. */
    this.sessionId = undefined;
    this.onmessage = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
  }

  async start() {}

  /** Sends one JSON-RPC message; what answers it arrives through `onmessage`. */
  async send(message) {
    if (this.#closed) throw new Error('the cuecard MCP transport is closed');
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    let response;
    try {
      response = await this.#fetch(this.#url, { method: 'POST', headers, body: JSON.stringify(message) });
    } catch (error) {
      // A step dropped the connection: as over a socket, the transport closes and pending requests fail.
      this.onerror?.(error);
      await this.close();
      return;
    }
    const session = response.headers.get('mcp-session-id');
    if (session) this.sessionId = session;
    if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      // Not awaited, as the SDK's own HTTP transport does: progress reaches the client while the answer is pending.
      this.#deliver(sseMessages(response.body)).catch((error) => this.onerror?.(error));
      return;
    }
    const text = await response.text();
    if (text.trim()) this.onmessage?.(JSON.parse(text));
  }

  async #deliver(messages) {
    for await (const message of messages) this.onmessage?.(message);
  }

  /** Ends the session (a DELETE, as a client leaving does) and closes. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.sessionId !== undefined) {
      await this.#fetch(this.#url, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId } }).catch(() => {});
    }
    this.onclose?.();
  }
}

module.exports = { McpTransport };
