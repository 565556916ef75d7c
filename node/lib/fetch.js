'use strict';
// An in-process `fetch`: the official SDKs (`new OpenAI({ fetch })`, `new Anthropic({ fetch })`, the AI SDK's
// `createOpenAI({ fetch })`) talk to a MockModel without a socket, answered by the same wire encoders as the
// server, so streaming, provider errors and the SDKs' own retries behave as on the wire.

const { nativeOf, settle, wait } = require('./mock.js');
const keys = require('./keys.js');
const { wrongType } = require('./errors.js');

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

function headerPairs(headers) {
  const pairs = [];
  new Headers(headers).forEach((value, name) => pairs.push([name, value]));
  return pairs;
}

async function bodyOf(input, init) {
  const body = init?.body ?? null;
  if (body === null || body === undefined) {
    return input instanceof Request ? new Uint8Array(await input.arrayBuffer()) : '';
  }
  if (typeof body === 'string') return body;
  // Buffers, typed arrays, Blobs, FormData, streams: let the platform read them.
  return new Uint8Array(await new Response(body).arrayBuffer());
}

function streamBody(reply, instant, signal) {
  const frames = reply.frames;
  const cut = reply.end === 'cut';
  const waits = !instant && (reply.stall_ms > 0 || frames.some((frame) => frame.delay_ms > 0));
  if (!waits) {
    // Nothing to wait for: one chunk, so the SDK's reader does the least work.
    const whole = encoder.encode(frames.map((frame) => frame.data).join(''));
    let sent = false;
    return new ReadableStream({
      pull(controller) {
        // A cut errors the body on the read after the data: erroring at once would discard the queued data.
        if (sent) return controller.error(terminated());
        sent = true;
        if (whole.length > 0) controller.enqueue(whole);
        if (!cut) controller.close();
      },
    });
  }
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
          controller.enqueue(encoder.encode(frame.data));
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

/** A `fetch` answered by `mock` (`options.instant` skips the scripted delays; by default the mock's setting). */
function createFetch(mock, options = {}) {
  const handle = nativeOf(mock);
  if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
  return async function cuecardFetch(input, init) {
    const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    signal?.throwIfAborted();
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = headerPairs(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const body = await bodyOf(input, init);
    const reply = await settle(handle.handleHttp(method.toUpperCase(), url.pathname + url.search, headers, body));
    const instant = options.instant ?? mock.instant;
    if (reply.kind === 'abort') {
      await wait(reply.delay_ms, instant, signal);
      throw connectionReset();
    }
    if (reply.kind === 'full') {
      await wait(reply.delay_ms, instant, signal);
      return new Response(reply.body, { status: reply.status, headers: reply.headers });
    }
    return new Response(streamBody(reply, instant, signal), { status: reply.status, headers: reply.headers });
  };
}

/** Options for `new OpenAI(...)`: an API key, the base URL and the in-process fetch (plus `extra`). */
function openaiOptions(mock, extra = {}) {
  return { apiKey: 'test-key', baseURL: `${BASE_URL}/v1`, fetch: createFetch(mock, extra.fetchOptions), ...withoutFetchOptions(extra) };
}

/** Options for `new Anthropic(...)`: an API key, the base URL and the in-process fetch (plus `extra`). */
function anthropicOptions(mock, extra = {}) {
  return { apiKey: 'test-key', baseURL: BASE_URL, fetch: createFetch(mock, extra.fetchOptions), ...withoutFetchOptions(extra) };
}

function withoutFetchOptions(extra) {
  const { fetchOptions, ...rest } = extra;
  return rest;
}

module.exports = { createFetch, openaiOptions, anthropicOptions, BASE_URL };
