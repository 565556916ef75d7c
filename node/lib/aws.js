'use strict';
// `awsRequestHandler(mock)`: a request handler for the AWS SDK for JavaScript v3 (`requestHandler:` of any client,
// `BedrockRuntimeClient` first), answered in-process by a MockModel through the same wire encoders as the server,
// so the SDK's own serializers, event-stream decoder, error classes and retries run, without a socket.

const { createFetch } = require('./fetch.js');
const { wrongType } = require('./errors.js');
const keys = require('./keys.js');

/** The URL of a smithy `HttpRequest` (`protocol`, `hostname`, `port`, `path`, `query`). */
function urlOf(request) {
  const url = new URL(`${request.protocol ?? 'https:'}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path ?? '/'}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) if (one !== null && one !== undefined) url.searchParams.append(name, one);
  }
  return url;
}

/** A body the SDK reads: Node's Readable where there is one (what NodeHttpHandler gives), else the web stream. */
function bodyOf(response) {
  if (response.body === null) return undefined;
  try {
    const { Readable } = require('node:stream');
    return Readable.fromWeb(response.body);
  } catch {
    return response.body;
  }
}

/** An AWS SDK v3 request handler answered by `mock` (`options.instant` as for `createFetch`). */
function awsRequestHandler(mock, options = {}) {
  if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
  const fetch = createFetch(mock, options);
  return {
    // HTTP/1.1: with 'h2' the SDK adds HTTP/2 pseudo-headers (`:authority`), which no fetch takes.
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(request, { abortSignal } = {}) {
      const response = await fetch(urlOf(request), {
        method: request.method,
        headers: Object.fromEntries(Object.entries(request.headers ?? {}).filter(([name]) => !name.startsWith(':'))),
        body: request.body,
        signal: abortSignal,
      });
      const headers = {};
      response.headers.forEach((value, name) => { headers[name] = value; });
      return { response: { statusCode: response.status, reason: response.statusText, headers, body: bodyOf(response) } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}

module.exports = { awsRequestHandler };
