// The runners of the shared vectors (tests/vectors/), one per file, written once for every JS host: under
// node:test with the napi addon or the wasm module (vectors.test.mjs), and in a browser page (test/browser).
// Each takes the file's vectors and a host `h` ({api: the package, native, nativeOf, finishAsync, assert,
// bytesFromBase64}) and returns how many it ran, after asserting it ran them all.

export const VECTOR_FILES = ['tokenizer.json', 'tokenizer-reference.json', 'scenarios.json', 'errors.json', 'verify.json', 'wire.json'];

function tokenizer(vectors, h) {
  const { tokenize, countTokens } = h.api;
  let ran = 0;
  for (const vector of vectors) {
    h.assert.deepEqual(tokenize(vector.input), vector.expected, vector.id);
    h.assert.equal(countTokens(vector.input), vector.expected.length, vector.id);
    ran += 1;
  }
  h.assert.ok(ran === vectors.length && ran >= 30, 'every tokenizer vector ran');
  return ran;
}

function providerFailure(error) {
  const failure = { kind: error.kind, message: error.message, retryable: error.retryable, status: error.status };
  if (error.retryAfterMs !== null) failure.retry_after_ms = error.retryAfterMs;
  if (error.errorType !== null) failure.error_type = error.errorType;
  if (error.errorCode !== null) failure.error_code = error.errorCode;
  return failure;
}

function runScenario(input, api) {
  const { MockModel, ProviderError, CuecardError } = api;
  const mock = MockModel.fromScenario(input.scenario);
  const calls = [];
  for (const call of input.calls) {
    try {
      if (call.mode === 'stream') calls.push({ events: mock.streamEventsSync(call.request) });
      else calls.push({ response: mock.chatSync(call.request) });
    } catch (error) {
      if (error instanceof ProviderError) calls.push({ provider_error: providerFailure(error) });
      else if (error instanceof CuecardError) calls.push({ error: { code: error.code } });
      else throw error;
    }
  }
  const journal = mock.entries().map((entry) => {
    const row = { index: entry.index, route: entry.route, step: entry.step, at_ms: entry.at_ms, outcome: entry.outcome };
    for (const key of ['kind', 'status', 'message', 'reason', 'chaos']) if (key in entry) row[key] = entry[key];
    return row;
  });
  return { calls, journal, unused_steps: mock.unusedSteps().length };
}

/** Each scenario vector twice: through the blocking forms, then the async ones with timers skipped. */
async function scenarios(vectors, h) {
  const { MockModel, ProviderError } = h.api;
  let ran = 0;
  for (const vector of vectors) {
    h.assert.deepEqual(runScenario(vector.input, h.api), vector.expected, vector.id);
    const mock = MockModel.fromScenario(vector.input.scenario, { instant: true });
    const calls = [];
    for (const call of vector.input.calls) {
      try {
        if (call.mode === 'stream') {
          const events = [];
          for await (const event of mock.stream(call.request)) events.push(event);
          calls.push({ events });
        } else {
          calls.push({ response: await mock.chat(call.request) });
        }
      } catch (error) {
        if (error instanceof ProviderError) calls.push({ provider_error: providerFailure(error) });
        else calls.push({ error: { code: error.code } });
      }
    }
    h.assert.deepEqual(calls, vector.expected.calls, `${vector.id} (async)`);
    ran += 1;
  }
  h.assert.ok(ran === vectors.length && ran >= 20, 'every scenario vector ran');
  return ran;
}

function errors(vectors, h) {
  const { MockModel, CuecardError, errorClassFor } = h.api;
  const catalogue = new Map(h.native.errorCatalogue().map(([code, number, description]) => [code, [number, description]]));
  let ran = 0;
  for (const vector of vectors) {
    const given = vector.input;
    if ('kind_number' in given) {
      const expected = vector.expected;
      h.assert.deepEqual(catalogue.get(expected.code), [expected.number, expected.description], vector.id);
      h.assert.equal(errorClassFor(expected.code).code, expected.code, vector.id);
    } else {
      let raised;
      try {
        if ('scenario_json' in given) MockModel.fromScenario(given.scenario_json);
        else if ('scenario_yaml' in given) MockModel.fromScenario(given.scenario_yaml);
        else MockModel.thatResponds('x').chatSync(JSON.parse(given.request_json));
      } catch (error) {
        raised = error;
      }
      h.assert.ok(raised instanceof CuecardError, `${vector.id}: ${raised}`);
      h.assert.equal(raised.code, vector.error.code, vector.id);
      if ('message' in vector.error) h.assert.equal(raised.message, vector.error.message, vector.id);
      if ('paths' in vector.error) h.assert.deepEqual(raised.issues.map((i) => i.path), vector.error.paths, vector.id);
    }
    ran += 1;
  }
  h.assert.equal(ran, vectors.length, 'every error vector ran');
  h.assert.equal(catalogue.size, vectors.filter((v) => 'kind_number' in v.input).length, 'the catalogue is complete');
  return ran;
}

/** A JS error whose class and base classes carry the vector's type names, as an engine would report it. */
function errorNamed(names, message) {
  let base = Error;
  for (const name of [...names].reverse()) base = { [name]: class extends base {} }[name];
  return new base(message);
}

function report(call, event) {
  switch (event.event) {
    case 'provider_response': return call.onProviderResponse(event.response);
    case 'provider_failure': {
      const { failure } = event;
      return call.onProviderFailure(errorNamed(failure.type_names, failure.message),
        { status: failure.status ?? undefined, retryable: failure.retryable ?? undefined });
    }
    case 'structured_parse_failure': return call.onStructuredParseFailure('<raw>', event.summary);
    case 'engine_event': return call.onEngineEvent(event.name, event.attributes);
    case 'call_completed': return call.onCallCompleted(event.parse_success ?? undefined);
    default: throw new Error(`unknown observer event ${event.event}`);
  }
}

function verify(vectors, h) {
  const { MockModel, RecordingObserver, runCheck, ProviderError, CuecardError, AssertionFailedError } = h.api;
  const sockets = h.native.servesSockets();
  const agents = h.native.servesAgents();
  let ran = 0;
  let passedOver = 0;
  for (const vector of vectors) {
    const input = vector.input;
    const wire = input.calls.filter((c) => c.mode === 'http').map((c) => c.request);
    if ((!sockets && drivesSockets(wire)) || (!agents && drivesAgents(wire))) {
      passedOver += input.checks.length;
      continue;
    }
    const mock = MockModel.fromScenario(input.scenario);
    for (const call of input.calls) {
      if (call.mode === 'http') {
        // A wire request (what the contract checks read).
        const { method, path, headers = [], body = '' } = call.request;
        const lines = headers.map(([name, value]) => `${name}:${value}\n`).join('');
        const answered = h.nativeOf(mock).handleHttp(method, path, lines, body, 'never');
        if (typeof answered !== 'string') throw new Error('a wire request of a verify vector is never computed');
        continue;
      }
      try {
        if (call.mode === 'stream') mock.streamEventsSync(call.request);
        else mock.chatSync(call.request);
      } catch (error) {
        if (!(error instanceof ProviderError || error instanceof CuecardError)) throw error;
      }
    }
    let observer;
    if ('observer' in input) {
      observer = new RecordingObserver();
      for (const record of input.observer) {
        const { context } = record;
        const call = observer.onCallStarted({
          operation: context.operation, providerId: context.provider_id, model: context.model, attempt: context.attempt ?? 0,
        });
        for (const event of record.events) report(call, event);
      }
    }
    input.checks.forEach((check, i) => {
      const expected = vector.expected[i];
      try {
        runCheck(mock, check, observer);
        h.assert.deepEqual(expected, { pass: true }, `${vector.id} ${JSON.stringify(check)}`);
      } catch (failure) {
        if (!(failure instanceof AssertionFailedError)) throw failure;
        h.assert.deepEqual(expected, { message: failure.message }, `${vector.id} ${JSON.stringify(check)}`);
      }
      ran += 1;
    });
  }
  h.assert.ok(ran + passedOver === vectors.reduce((n, v) => n + v.input.checks.length, 0) && vectors.length >= 7, 'every check ran');
  h.assert.ok(sockets && agents ? passedOver === 0 : passedOver > 0,
    'only the socket and A2A vectors are passed over, and only without sockets and agents');
  return ran;
}

/** A vector that drives realtime sockets (an upgrade, or a `WS` message): the wasm module serves none
 * (core/src/wire/sockets/absent.rs), so its runners pass them over, counting them. */
function drivesSockets(requests) {
  return requests.some((r) => r.method === 'WS' || (r.headers ?? []).some(([name, value]) => name === 'upgrade' && value === 'websocket'));
}

/** A vector that talks to A2A agents: the wasm module serves none (core/src/a2a/absent.rs). */
function drivesAgents(requests) {
  return requests.some((r) => r.path === '/a2a' || r.path.startsWith('/a2a/') || r.path.startsWith('/.well-known/agent'));
}

async function wire(vectors, h) {
  const { MockModel } = h.api;
  const sockets = h.native.servesSockets();
  const agents = h.native.servesAgents();
  let ran = 0;
  let passedOver = 0;
  for (const vector of vectors) {
    if ((!sockets && drivesSockets(vector.input.requests)) || (!agents && drivesAgents(vector.input.requests))) {
      passedOver += vector.input.requests.length;
      continue;
    }
    const mock = MockModel.fromScenario(vector.input.scenario);
    for (const [i, request] of vector.input.requests.entries()) {
      const body = 'body' in request ? request.body : h.bytesFromBase64(request.body_base64 ?? '');
      const headers = (request.headers ?? []).map(([name, value]) => `${name}:${value}\n`).join('');
      // The addon's form: a line of JSON, then the body (frames stay in the JSON with collapse 'never').
      const answered = h.nativeOf(mock).handleHttp(request.method, request.path, headers, body, 'never');
      const text = typeof answered === 'string' ? answered : await h.finishAsync(answered);
      const newline = text.indexOf('\n');
      const reply = JSON.parse(text.slice(0, newline));
      if (reply.kind === 'full') reply.body = text.slice(newline + 1);
      else h.assert.equal(text.slice(newline + 1), '', 'no body after the JSON of a stream in frames or an abort');
      h.assert.deepEqual(reply, vector.expected[i], `${vector.id} ${request.method} ${request.path}`);
      ran += 1;
    }
  }
  const total = vectors.reduce((n, v) => n + v.input.requests.length, 0);
  h.assert.ok(ran + passedOver === total && vectors.length >= 18, 'every HTTP request ran');
  h.assert.ok(sockets && agents ? passedOver === 0 : passedOver > 0 && ran > 0,
    'only the socket and A2A vectors are passed over, and only without sockets and agents');
  return ran;
}

export const RUNNERS = {
  'tokenizer.json': tokenizer,
  'tokenizer-reference.json': tokenizer,
  'scenarios.json': scenarios,
  'errors.json': errors,
  'verify.json': verify,
  'wire.json': wire,
};
