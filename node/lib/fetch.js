'use strict';
// An in-process `fetch`: the official SDKs (`new OpenAI({ fetch })`, `new Anthropic({ fetch })`, the AI SDK's
// `createOpenAI({ fetch })`) talk to a MockModel without a socket, answered by the same wire encoders as the
// server, so streaming, provider errors and the SDKs' own retries behave as on the wire.

const { nativeOf, wait } = require('./mock.js');
const computed = require('./computed.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');
const { Recording } = require('./recording.js');

/** The base URL the SDK options below use; any URL works, only its path is read. */
const BASE_URL = 'http://cuecard.invalid';

const encoder = new TextEncoder();

/** What undici throws when a connection closes before a response: SDKs treat it as a connection error. */
function connectionReset() {
  const cause = Object.assign(new Error('other side closed (cuecard: connection reset as scripted)'), { code: 'ECONNRESET' });
  return new TypeError('fetch failed', { cause });
}

/** What undici throws when a body breaks off mid-way. */
function terminated() {
  const cause = Object.assign(new Error('other side closed (cuecard: stream cut as scripted)'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('terminated', { cause });
}

/** The request's headers as `name:value` lines (the addon's form), names lower-cased and values checked by
 * `Headers` (a `Headers` the SDK built already is, so it is not copied). */
function headerLines(headers) {
  let text = '';
  (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, name) => {
    text += `${name}:${value}\n`;
  });
  return text;
}

/** The request body: a string at once (what the SDKs send), anything else read by the platform (a Promise). */
function bodyOf(input, init) {
  const body = init?.body ?? null;
  if (typeof body === 'string') return body;
  if (body === null) {
    return input instanceof Request ? input.arrayBuffer().then((b) => new Uint8Array(b)) : '';
  }
  // Buffers, typed arrays, Blobs, FormData, streams: let the platform read them, with the content type it gives them
  // (a FormData's `multipart/form-data; boundary=...`, which fetch sends when the caller set none).
  const read = new Response(body);
  const type = read.headers.get('content-type');
  return read.arrayBuffer().then((b) => ({ bytes: new Uint8Array(b), type }));
}

/** A reply of the addon's `handleHttp`: one line of JSON, then the body as it is (node/src/outcome.rs). */
function replyOf(text) {
  const newline = text.indexOf('\n');
  const reply = JSON.parse(text.slice(0, newline));
  reply.body = text.slice(newline + 1);
  return reply;
}

/** A stream the addon collapsed into one body (nothing to wait for): one chunk, so the SDK's reader does the
 * least work. A cut errors the body on the read after the data: erroring at once would discard the queued data. */
function wholeBody(reply) {
  const whole = encoder.encode(reply.body);
  const cut = reply.end === 'cut';
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(terminated());
      sent = true;
      if (whole.length > 0) controller.enqueue(whole);
      if (!cut) controller.close();
    },
  });
}

/** A frame's bytes: its text, or for a binary stream (AWS event-stream messages) its base64 decoded. */
function frameBytes(reply, frame) {
  if (!reply.base64) return encoder.encode(frame.data);
  const text = atob(frame.data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** A stream whose frames each wait their delay (after the stall). */
function streamBody(reply, signal) {
  const frames = reply.frames;
  const cut = reply.end === 'cut';
  let next = 0;
  let stalled = false;
  return new ReadableStream({
    async pull(controller) {
      try {
        if (!stalled) {
          stalled = true;
          await wait(reply.stall_ms, false, signal);
        }
        if (next < frames.length) {
          const frame = frames[next++];
          await wait(frame.delay_ms, false, signal);
          controller.enqueue(frameBytes(reply, frame));
        } else if (cut) {
          controller.error(terminated());
        } else {
          controller.close();
        }
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

/** A `fetch` answered by `mock` (`options.instant` skips the scripted delays; by default the mock's setting), or
 * by a `Recording`: replayed from its file, and in a record mode forwarded and recorded where the file lacks it. */
function createFetch(mock, options = {}) {
  const recording = mock instanceof Recording ? mock : null;
  if (recording !== null) mock = recording.mock;
  const handle = nativeOf(mock);
  if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
  // Unless `options.instant` says, the mock's own setting decides, read by the core at each call (a test may change it).
  const collapse = options.instant === undefined ? 'as_mock' : options.instant ? 'always' : 'unless_waits';
  return async function cuecardFetch(input, init) {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    signal?.throwIfAborted();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    let headers = headerLines(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    // Each await costs a turn of the microtask queue: only what is really asynchronous is awaited.
    let body = bodyOf(input, init);
    if (typeof body !== 'string') {
      const read = await body;
      if (read instanceof Uint8Array) {
        body = read;
      } else {
        body = read.bytes;
        if (read.type !== null && !/^content-type:/m.test(headers)) headers += `content-type:${read.type}\n`;
      }
    }
    const target = url.pathname + url.search;
    if (recording !== null && !recording.replays) return recording.forward(method.toUpperCase(), target, headers, body, signal);
    const answered = handle.handleHttp(method.toUpperCase(), target, headers, body, collapse);
    const reply = replyOf(typeof answered === 'string' ? answered : await computed.finishAsync(answered));
    if (recording?.forwardsReply(reply)) return recording.forward(method.toUpperCase(), target, headers, body, signal);
    // In instant mode the reply carries no delay: each wait below is the scripted one, or none.
    if (reply.kind === 'abort') {
      await wait(reply.delay_ms, false, signal);
      throw connectionReset();
    }
    if (reply.kind === 'full') {
      if (reply.delay_ms > 0) await wait(reply.delay_ms, false, signal);
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    }
    const stream = reply.whole ? wholeBody(reply) : streamBody(reply, signal);
    return new Response(stream, { status: reply.status, headers: reply.headers });
  };
}

/** Options for `new OpenAI(...)`: an API key, the base URL and the in-process fetch (plus `extra`). A recording
 * that records sends the SDK's own key (from its environment) unless `extra` gives one. */
function openaiOptions(mock, extra = {}) {
  return { ...testKey(mock), baseURL: `${BASE_URL}/v1`, fetch: createFetch(mock, extra.fetchOptions), ...withoutFetchOptions(extra) };
}

/** Options for `new Anthropic(...)`: an API key, the base URL and the in-process fetch (plus `extra`). */
function anthropicOptions(mock, extra = {}) {
  return { ...testKey(mock), baseURL: BASE_URL, fetch: createFetch(mock, extra.fetchOptions), ...withoutFetchOptions(extra) };
}

function testKey(mock) {
  return mock instanceof Recording && mock.records ? {} : { apiKey: 'test-key' };
}

function withoutFetchOptions(extra) {
  const { fetchOptions, ...rest } = extra;
  return rest;
}

module.exports = { createFetch, openaiOptions, anthropicOptions, BASE_URL };
