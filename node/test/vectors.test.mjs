// The shared vectors of tests/vectors/, run through the Node package; each runner asserts every vector ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  MockModel, RecordingObserver, runCheck, tokenize, countTokens, ProviderError, CuecardError, AssertionFailedError,
  errorClassFor,
} from 'cuecard';

const require = createRequire(import.meta.url);
const native = require('../lib/native.js'); // the backend in use: the napi addon, or wasm (CUECARD_BACKEND)
const VECTORS = new URL('../../tests/vectors/', import.meta.url);
const load = (name) => JSON.parse(readFileSync(new URL(name, VECTORS), 'utf8')).vectors;

for (const name of ['tokenizer.json', 'tokenizer-reference.json']) {
  test(`tokenizer vectors: ${name}`, () => {
    const vectors = load(name);
    let ran = 0;
    for (const vector of vectors) {
      assert.deepEqual(tokenize(vector.input), vector.expected, vector.id);
      assert.equal(countTokens(vector.input), vector.expected.length, vector.id);
      ran += 1;
    }
    assert.ok(ran === vectors.length && ran >= 30);
  });
}

function providerFailure(error) {
  const failure = { kind: error.kind, message: error.message, retryable: error.retryable, status: error.status };
  if (error.retryAfterMs !== null) failure.retry_after_ms = error.retryAfterMs;
  if (error.errorType !== null) failure.error_type = error.errorType;
  if (error.errorCode !== null) failure.error_code = error.errorCode;
  return failure;
}

function runScenario(input) {
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
    for (const key of ['kind', 'status', 'message', 'reason']) if (key in entry) row[key] = entry[key];
    return row;
  });
  return { calls, journal, unused_steps: mock.unusedSteps().length };
}

test('scenario vectors', () => {
  const vectors = load('scenarios.json');
  let ran = 0;
  for (const vector of vectors) {
    assert.deepEqual(runScenario(vector.input), vector.expected, vector.id);
    ran += 1;
  }
  assert.ok(ran === vectors.length && ran >= 20);
});

test('scenario vectors, through the async API with timers skipped', async () => {
  const vectors = load('scenarios.json');
  let ran = 0;
  for (const vector of vectors) {
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
    assert.deepEqual(calls, vector.expected.calls, vector.id);
    ran += 1;
  }
  assert.equal(ran, vectors.length);
});

test('error vectors', () => {
  const vectors = load('errors.json');
  const catalogue = new Map(native.errorCatalogue().map(([code, number, description]) => [code, [number, description]]));
  let ran = 0;
  for (const vector of vectors) {
    const given = vector.input;
    if ('kind_number' in given) {
      const expected = vector.expected;
      assert.deepEqual(catalogue.get(expected.code), [expected.number, expected.description], vector.id);
      assert.equal(errorClassFor(expected.code).code, expected.code, vector.id);
    } else {
      let raised;
      try {
        if ('scenario_json' in given) MockModel.fromScenario(given.scenario_json);
        else if ('scenario_yaml' in given) MockModel.fromScenario(given.scenario_yaml);
        else MockModel.thatResponds('x').chatSync(JSON.parse(given.request_json));
      } catch (error) {
        raised = error;
      }
      assert.ok(raised instanceof CuecardError, `${vector.id}: ${raised}`);
      assert.equal(raised.code, vector.error.code, vector.id);
      if ('message' in vector.error) assert.equal(raised.message, vector.error.message, vector.id);
      if ('paths' in vector.error) assert.deepEqual(raised.issues.map((i) => i.path), vector.error.paths, vector.id);
    }
    ran += 1;
  }
  assert.equal(ran, vectors.length);
  assert.equal(catalogue.size, vectors.filter((v) => 'kind_number' in v.input).length);
});

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

test('verify vectors', () => {
  const vectors = load('verify.json');
  let ran = 0;
  for (const vector of vectors) {
    const input = vector.input;
    const mock = MockModel.fromScenario(input.scenario);
    for (const call of input.calls) {
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
        assert.deepEqual(expected, { pass: true }, `${vector.id} ${JSON.stringify(check)}`);
      } catch (failure) {
        if (!(failure instanceof AssertionFailedError)) throw failure;
        assert.deepEqual(expected, { message: failure.message }, `${vector.id} ${JSON.stringify(check)}`);
      }
      ran += 1;
    });
  }
  assert.ok(ran === vectors.reduce((n, v) => n + v.input.checks.length, 0) && vectors.length >= 7);
});

test('wire vectors', async () => {
  const { nativeOf } = require('../lib/mock.js');
  const computed = require('../lib/computed.js');
  const settleText = async (answered) => (typeof answered === 'string' ? answered : computed.finishAsync(answered));
  const vectors = load('wire.json');
  let ran = 0;
  for (const vector of vectors) {
    const mock = MockModel.fromScenario(vector.input.scenario);
    for (const [i, request] of vector.input.requests.entries()) {
      const body = 'body' in request ? request.body : Buffer.from(request.body_base64 ?? '', 'base64');
      const headers = (request.headers ?? []).map(([name, value]) => `${name}:${value}\n`).join('');
      // The addon's form: a line of JSON, then the body (frames stay in the JSON with collapse 'never').
      const text = await settleText(nativeOf(mock).handleHttp(request.method, request.path, headers, body, 'never'));
      const newline = text.indexOf('\n');
      const reply = JSON.parse(text.slice(0, newline));
      if (reply.kind === 'full') reply.body = text.slice(newline + 1);
      else assert.equal(text.slice(newline + 1), '', 'no body after the JSON of a stream in frames or an abort');
      assert.deepEqual(reply, vector.expected[i], `${vector.id} ${request.method} ${request.path}`);
      ran += 1;
    }
  }
  assert.ok(ran === vectors.reduce((n, v) => n + v.input.requests.length, 0) && vectors.length >= 18);
});
