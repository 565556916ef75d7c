// The Node API over the core: scripting verbs, computed answers (sync and async), streams on timers, errors
// and hostile input, the journal, tools, memory, the observer and the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  MockModel, MockTool, MockMemory, RecordingObserver, Server, assertThat, ProviderError, CuecardError,
  InvalidArgumentError, InvalidUtf8Error, CallbackFailedError, ScriptExhaustedError, ToolFailedError, NotFoundError,
  AssertionFailedError, RequestCountMismatchError, errorClassFor, tokenize, countTokens,
} from 'cuecard';
import cjs from '../lib/index.js';

const require = createRequire(import.meta.url);
const native = require('../lib/native.js'); // the backend in use: the napi addon, or wasm (CUECARD_BACKEND)

function nested(depth) {
  let value = {};
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

test('the ESM and CommonJS entries are one package: the same classes', () => {
  assert.equal(cjs.MockModel, MockModel);
  assert.equal(require('cuecard').ProviderError, ProviderError);
});

test('the package, the addon and the release say one version', () => {
  const { version } = require('../package.json');
  assert.equal(require('cuecard').version, version);
  assert.equal(cjs.VERSION, version);
});

test('a tool call then text stream in order, with tool-call ids counted per mock', async () => {
  const mock = MockModel.thatCallsTool('lookup', { id: 7 }).thenResponds('Found it.');
  const first = await mock.chat('find 7');
  assert.equal(first.finish_reason, 'tool_calls');
  assert.deepEqual(first.message.tool_calls, [{ id: 'call_1', name: 'lookup', arguments: '{"id":7}' }]);
  const events = mock.streamEventsSync('and?');
  assert.deepEqual(events.filter((e) => e.type === 'text_delta').map((e) => e.text), ['Found', ' it', '.']);
  assert.equal(events.at(-1).type, 'complete');
});

test('a function computes the answer, sync or async; its own error reaches the caller unchanged', async () => {
  class Refused extends Error {}
  const refusal = new Refused('no');
  const mock = MockModel.thatResponds((request) => `echo: ${request.messages.at(-1).content[0].text}`)
    .thenResponds(async (request) => ({ text: 'later', usage: { input_tokens: 1, output_tokens: 2 } }))
    .thenResponds(() => { throw refusal; })
    .thenResponds(async () => { throw refusal; });
  assert.equal((await mock.chat('hi')).message.text, 'echo: hi');
  const later = await mock.chat('x');
  assert.deepEqual([later.message.text, later.usage], ['later', { input_tokens: 1, output_tokens: 2, total_tokens: 3 }]);
  await assert.rejects(mock.chat('y'), (error) => error === refusal);
  await assert.rejects(mock.chat('z'), (error) => error === refusal);
  assert.deepEqual(mock.entries().map((e) => e.outcome), ['answered', 'answered', 'callback_failed', 'callback_failed']);
});

test('a pending computed answer keeps arrival order: the next request takes the next step', async () => {
  let release;
  const gate = new Promise((resolve) => { release = resolve; });
  const mock = MockModel.thatResponds(async () => { await gate; return 'first, computed slowly'; }).thenResponds('second');
  const first = mock.chat('one');
  const second = await mock.chat('two');
  assert.equal(second.message.text, 'second');
  assert.equal(mock.entries()[0].outcome, 'pending');
  release();
  assert.equal((await first).message.text, 'first, computed slowly');
  assert.deepEqual(mock.entries().map((e) => e.step), [0, 1]);
});

test('chatSync refuses an async function with a typed error and journals the failure', () => {
  const mock = MockModel.thatResponds(async () => 'late');
  assert.throws(() => mock.chatSync('hi'), (e) => e instanceof CallbackFailedError && /use the async form/.test(e.message));
  assert.equal(mock.entries()[0].outcome, 'callback_failed');
});

test('an unusable computed answer is callback_failed naming the problem', async () => {
  const mock = MockModel.thatResponds(() => 42).thenResponds(() => ({ text: Infinity }));
  await assert.rejects(mock.chat('a'), (e) => e instanceof CallbackFailedError
    && e.message.startsWith('a computed answer must be a text or a step object'));
  await assert.rejects(mock.chat('b'), (e) => e instanceof CallbackFailedError && /Infinity is not a JSON number|inf/.test(e.message));
});

test('scripted delays are waited on timers without blocking the event loop; a failure comes after its delay', async () => {
  const mock = MockModel.thatResponds({ text: 'slow', delay_ms: 60 }).thenFails('rate_limited', { status: 429 });
  mock.configure({ stepDefaults: { delayMs: 40 } });
  let ticks = 0;
  const ticker = setInterval(() => { ticks += 1; }, 5);
  // Cleared however the test ends: a live interval keeps the test file's process, and CI, waiting forever.
  try {
    const start = performance.now();
    const answer = await mock.chat('hi');
    const waited = performance.now() - start;
    assert.equal(answer.message.text, 'slow');
    assert.ok(waited >= 55, `waited ${waited} ms`);
    // A loop blocked for the wait runs no timer before the answer arrives; a busy machine may run fewer than the
    // dozen a 5 ms interval would give in 60 ms (a full run once saw fewer than three), so one is the proof.
    assert.ok(ticks >= 1, `the event loop kept running (${ticks} ticks)`);
    const failStart = performance.now();
    await assert.rejects(mock.chat('again'), (e) => e instanceof ProviderError && e.status === 429 && e.kind === 'rate_limited');
    assert.ok(performance.now() - failStart >= 35);
  } finally {
    clearInterval(ticker);
  }
  assert.equal(mock.clockMs, 100, 'the virtual clock advanced by both answers');
});

test('instant mode skips the waits but records virtual time', async () => {
  const mock = new MockModel({ instant: true }).thenResponds({ text: 'slow', delay_ms: 5000 });
  const start = performance.now();
  await mock.chat('hi');
  assert.ok(performance.now() - start < 1000);
  assert.equal(mock.clockMs, 5000);
});

test('a stream yields events after their delays; textStream throws the scripted failure where it happens', async () => {
  const mock = MockModel.thatStreams('a', 'b', 'c').andFails('connection_reset');
  mock.configure({ step_defaults: { token_delay_ms: 20 } });
  const seen = [];
  const start = performance.now();
  await assert.rejects(async () => {
    for await (const text of mock.stream('go').textStream()) seen.push(text);
  }, (e) => e instanceof ProviderError && e.kind === 'connection_reset');
  assert.deepEqual(seen, ['a', 'b', 'c']);
  assert.ok(performance.now() - start >= 35);
  const events = [];
  for await (const event of MockModel.thatResponds('Hi there').stream('x')) events.push(event.type);
  assert.deepEqual(events, ['text_delta', 'text_delta', 'complete']);
  assert.equal(await MockModel.thatResponds('Hello, world!').stream('x').text(), 'Hello, world!');
});

test('an AbortSignal stops a wait', async () => {
  const mock = MockModel.thatResponds({ text: 'never', delay_ms: 10_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 10);
  await assert.rejects(mock.chat('hi', { signal: controller.signal }), { name: 'AbortError' });
});

test('deep, cyclic and non-JSON data is a typed error, never a crash', () => {
  const deep = { model: 'm', messages: [{ role: 'user', content: 'x' }], metadata: { extra: nested(20_000) } };
  assert.throws(() => MockModel.thatResponds('x').chatSync(deep),
    (e) => e instanceof InvalidArgumentError && /nested deeper than 128 levels/.test(e.message) && e.context.argument === 'request');
  const loop = [];
  loop.push(loop);
  assert.throws(() => new MockModel().thenCallsTool('f', loop), { message: 'invalid arguments at [0]: the data contains itself (a cycle)' });
  const shared = { x: 1 };
  new MockModel().thenCallsTool('f', { a: shared, b: shared }); // the same object twice is not a cycle
  assert.throws(() => new MockModel().thenCallsTool('f', { x: NaN }), { message: 'invalid arguments at x: NaN is not a JSON number' });
  assert.throws(() => new MockModel().thenCallsTool('f', { x: new Map() }), /found Map/);
  assert.throws(() => new MockModel().thenCallsTool('f', { x: () => 1 }), /found function/);
  assert.throws(() => new MockModel().thenCallsTool('f', { x: 2n ** 70n }), /does not fit in 64 bits/);
  assert.throws(() => new MockModel().thenCallsTool('f', { x: Symbol('s') }), /found symbol/);
  const hostile = { get boom() { throw new Error('getter'); } };
  assert.throws(() => new MockModel().thenCallsTool('f', { x: hostile }), (e) => e instanceof InvalidArgumentError);
  // A BigInt that fits, undefined properties left out, a class instance read as its own fields.
  class Point { constructor() { this.x = 1; this.y = undefined; } }
  const mock = new MockModel().thenCallsTool('f', { n: 5n, p: new Point() });
  assert.equal(mock.chatSync('go').message.tool_calls[0].arguments, '{"n":5,"p":{"x":1}}');
});

test('lone surrogates are invalid UTF-8', () => {
  assert.throws(() => MockModel.thatResponds('x').chatSync('bad \ud800 text'), (e) => e instanceof InvalidUtf8Error);
});

test('wrong types are TypeErrors naming the argument and what was expected', () => {
  const typeError = (message) => (e) => e instanceof TypeError && e instanceof InvalidArgumentError
    && e instanceof CuecardError && e.code === 'invalid_argument' && message.test(e.message);
  assert.throws(() => MockModel.thatResponds(123),
    typeError(/^invalid answer: expected a string, a step object, or a function of the request, found number$/));
  assert.throws(() => MockModel.thatStreams('a', 5), typeError(/^invalid tokens\[1\]: expected a string, found number$/));
  assert.throws(() => new MockModel().thenFails('rate_limit'), typeError(/invalid failure at kind: unknown variant `rate_limit`/));
  assert.throws(() => new MockModel().thenFails('rate_limited', { retryAfterMs: 'soon' }), typeError(/invalid failure at retry_after_ms/));
  assert.throws(() => new MockModel().route({ onExhausted: 'sometimes' }), typeError(/invalid route at on_exhausted/));
  assert.throws(() => new MockModel({ instnat: true }), typeError(/invalid settings at instnat: unknown field `instnat`/));
  assert.throws(() => new MockModel().chatSync(42), typeError(/invalid request: expected a user text or a request object, found number/));
  assert.throws(() => new MockModel().thenCallsTool(7), typeError(/invalid name/));
  assert.throws(() => assertThat({}), typeError(/invalid mock: expected a MockModel/));
  assert.throws(() => tokenize(null), typeError(/invalid text: expected a string, found null/));
  assert.throws(() => new MockTool({ name: 't', responder: 'no' }), typeError(/invalid responder/));
  // An array where an object belongs is refused, not read field by field in declaration order.
  assert.throws(() => MockModel.thatResponds({ text: 'a', fail_after: ['rate_limited', 429] }),
    typeError(/fail_after: invalid type: sequence/));
});

test('every error code has its class, with code and number, and all are CuecardErrors', () => {
  for (const [code, number] of native.errorCatalogue()) {
    let thrown;
    try {
      native.testingError(code);
    } catch (error) {
      thrown = error;
    }
    assert.ok(thrown instanceof errorClassFor(code), code);
    assert.ok(thrown instanceof CuecardError, code);
    assert.equal(thrown.code, code);
    assert.equal(thrown.number, number);
    assert.equal(errorClassFor(code).code, code);
  }
  assert.ok(new AssertionFailedError('x') instanceof assert.AssertionError);
});

test('the journal: requests as snapshots, counts, unused steps, exhaustion, reset', async () => {
  const mock = MockModel.thatResponds('a').thenResponds('b').thenResponds('c');
  const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'first' }] };
  await mock.chat(request);
  request.messages.push({ role: 'user', content: 'pushed later' });
  assert.equal(mock.request().messages.length, 1, 'a snapshot, not the caller\'s live object');
  assert.equal(mock.userMessageText(), 'first');
  await mock.chat('second');
  assert.throws(() => mock.request(), RequestCountMismatchError);
  assert.equal(mock.lastRequest().messages[0].content[0].text, 'second');
  assert.equal(mock.requestCount, 2);
  assert.equal(mock.unusedSteps().length, 1);
  assert.ok(mock.wasCalledWith((r) => r.model === 'gpt-4o'));
  await mock.chat('third');
  await assert.rejects(mock.chat('fourth'), ScriptExhaustedError);
  assert.deepEqual(mock.counts().exhausted, 1);
  mock.reset();
  assert.equal(mock.requestCount, 0);
  assert.equal((await mock.chat('again')).id, 'chatcmpl-1');
});

test('routes answer by operation and model; a scenario sets the script', async () => {
  const mock = new MockModel()
    .route({ operation: 'classify', onExhausted: 'repeat_last' }).thenResponds('positive')
    .route({ model: 'gpt-4o-mini' }).thenResponds('small')
    .route().thenResponds('anything else');
  const classify = { model: 'm', messages: [{ role: 'user', content: 'x' }], metadata: { operation: 'classify' } };
  assert.equal((await mock.chat(classify)).message.text, 'positive');
  assert.equal((await mock.chat(classify)).message.text, 'positive');
  assert.equal((await mock.chat({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'y' }] })).message.text, 'small');
  assert.equal((await mock.chat('z')).message.text, 'anything else');
  const yaml = MockModel.fromScenario('cuecard: 1\nroutes:\n  - steps:\n      - text: from YAML\n');
  assert.equal(yaml.chatSync('q').message.text, 'from YAML');
  const file = MockModel.fromScenario(new URL('../../tests/scenarios/default.json', import.meta.url).pathname);
  assert.ok(file.settings().on_exhausted);
});

test('every check of the core has a method in the fluent chain, and a failure is an AssertionError', async () => {
  const chain = {
    all_steps_used: ['Verification', 'allStepsUsed'], no_unexpected_requests: ['Verification', 'noUnexpectedRequests'],
    script_fully_used: ['Verification', 'scriptFullyUsed'], received_requests: ['Verification', 'receivedRequests'],
    no_contract_violations: ['Verification', 'noContractViolations'],
    mcp_tool_called: ['Verification', 'mcpToolCalled'], mcp_tools_listed: ['Verification', 'mcpToolsListed'],
    no_unexpected_mcp_calls: ['Verification', 'noUnexpectedMcpCalls'], all_mcp_steps_used: ['Verification', 'allMcpStepsUsed'],
    batch_held: ['Verification', 'batchHeld'], batch_lines_answered: ['Verification', 'batchLinesAnswered'],
    socket_received: ['Verification', 'socketReceived'], socket_sent: ['Verification', 'socketSent'],
    socket_events_in_order: ['Verification', 'socketEventsInOrder'], answer_fault: ['Verification', 'answerFault'],
    a2a_received: ['Verification', 'a2aReceived'], a2a_task_canceled: ['Verification', 'a2aTaskCanceled'],
    a2a_not_called: ['Verification', 'a2aNotCalled'], all_a2a_steps_used: ['Verification', 'allA2aStepsUsed'],
    was_called_times: ['MethodCheck', 'wasCalledTimes'], and_retried: ['MethodCheck', 'andRetried'],
    and_parsed_successfully: ['MethodCheck', 'andParsedSuccessfully'],
    and_observed_parse_failure: ['MethodCheck', 'andObservedParseFailure'],
    and_observed_failure: ['MethodCheck', 'andObservedFailure'], and_failed_with: ['MethodCheck', 'andFailedWith'],
    emitted_provider: ['MethodCheck', 'emittedProvider'], and_called_tool: ['MethodCheck', 'andCalledTool'],
    and_called_tool_times: ['MethodCheck', 'andCalledToolTimes'],
    has_last_user_message_containing: ['RequestCheck', 'hasLastUserMessageContaining'],
    has_system_message_containing: ['RequestCheck', 'hasSystemMessageContaining'],
    offers_tool: ['RequestCheck', 'offersTool'], offers_exactly_tools: ['RequestCheck', 'offersExactlyTools'],
    has_json_schema_response_format: ['RequestCheck', 'hasJsonSchemaResponseFormat'], has_model: ['RequestCheck', 'hasModel'],
  };
  const classes = require('../lib/verify.js');
  assert.deepEqual(Object.keys(chain).sort(), native.checkNames().sort());
  for (const [cls, method] of Object.values(chain)) assert.equal(typeof classes[cls].prototype[method], 'function', method);

  const mock = MockModel.thatResponds('Paris').thenResponds('unused');
  await mock.chat({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Capital of France?' }],
    metadata: { operation: 'geo' } });
  assertThat(mock).receivedRequests(1).whenCalled('geo').wasCalledTimes(1).andRetried(0);
  assertThat(mock).request().hasModel('gpt-4o').hasSystemMessageContaining('terse').hasLastUserMessageContaining('France');
  assert.throws(() => assertThat(mock).allStepsUsed(), (e) => e instanceof AssertionFailedError
    && e instanceof assert.AssertionError && e.code === 'assertion_failed' && /step 1/.test(e.message));
  assert.throws(() => assertThat(mock).whenCalled('geo').andFailedWith(ProviderError), AssertionFailedError);
});

test('MockTool: fixed, computed (sync and async), failing, slow, fixtures; every invocation recorded', async () => {
  const fixed = MockTool.fixed('lookup', 'Looks up', { found: true });
  assert.deepEqual(await fixed.invoke({ q: 1 }), { found: true });
  assert.deepEqual(fixed.definition().name, 'lookup');
  const computed = new MockTool({ name: 'add', responder: async ({ a, b }) => ({ sum: a + b }) });
  assert.deepEqual(await computed.invoke('{"a": 2, "b": 3}'), { sum: 5 });
  assert.deepEqual(computed.invocations(), [{ index: 0, arguments: { a: 2, b: 3 }, result: { sum: 5 }, delay_ms: 0 }]);
  const boom = new Error('tool broke');
  const throwing = new MockTool({ name: 'bad', responder: () => { throw boom; } });
  await assert.rejects(throwing.invoke({}), (e) => e === boom);
  assert.equal(throwing.callCount, 1);
  const failing = MockTool.fixture('failing', { message: 'nope' });
  await assert.rejects(failing.invoke({}), (e) => e instanceof ToolFailedError && e.message === 'nope');
  const calculator = MockTool.fixture('calculator');
  assert.deepEqual(calculator.invokeSync({ expression: '6 * 7' }), { result: 42 });
  const slow = MockTool.fixture('slow', { delayMs: 40 });
  const start = performance.now();
  await slow.invoke({ x: 1 });
  assert.ok(performance.now() - start >= 35);
  await assert.rejects(fixed.invoke('{not json'), InvalidArgumentError);
  assert.throws(() => new MockTool({ name: 't', result: 1, fails: 'x' }), /at most one of result, responder or fails/);
});

test('MockMemory: threads, entries, the call log, not_found', () => {
  const memory = new MockMemory();
  memory.connect();
  const thread = memory.createThread('agent-1', { topic: 'x' });
  assert.equal(thread.id, 'thread_1');
  memory.addEntry({ thread_id: thread.id, message: { role: 'user', content: 'hi' } });
  memory.addEntry({ thread_id: thread.id, message: { role: 'assistant', content: 'hello' } });
  assert.deepEqual(memory.getEntries({ thread_id: thread.id, limit: 1 }).map((e) => e.message.content), ['hello']);
  assert.equal(memory.getThread('missing'), null);
  assert.throws(() => memory.updateThread('missing', {}), (e) => e instanceof NotFoundError && e.code === 'not_found');
  assert.deepEqual(memory.updateThread(thread.id, { more: 1 }).metadata, { topic: 'x', more: 1 });
  assert.equal(memory.calls('createThread').length, 1);
  assert.ok(memory.isConnected());
  memory.reset();
  assert.equal(memory.isConnected(), false);
});

test('RecordingObserver: an engine\'s reports feed the checks', () => {
  class RateLimitError extends ProviderError {}
  const mock = new MockModel();
  const observer = new RecordingObserver();
  const first = observer.onCallStarted({ operation: 'summarize', providerId: 'openai', model: 'gpt-4o' });
  first.onProviderFailure(new RateLimitError('rate_limited', 'slow down', { status: 429 }));
  const second = observer.onCallStarted({ operation: 'summarize', providerId: 'openai', model: 'gpt-4o', attempt: 1 });
  second.onProviderResponse({ message: { text: '{"ok":true}' }, finish_reason: 'stop' });
  second.onCallCompleted(true);
  assertThat(mock).withObserver(observer).whenCalled('summarize')
    .andRetried(1).andObservedFailure('rate_limited').andParsedSuccessfully().emittedProvider('openai');
  assertThat(mock).withObserver(observer).whenCalled('summarize').andObservedFailure(RateLimitError);
  assert.equal(observer.callRecords().length, 2);
});

const WASM = process.env.CUECARD_BACKEND === 'wasm';

test('the server answers on a real port, computed answers included, and stops twice', async () => {
  const mock = MockModel.thatResponds('over HTTP').thenResponds(async (request) => `computed for ${request.model}`);
  if (WASM) {
    // The wasm module has no sockets or threads: Server says so rather than failing later.
    assert.throws(() => new Server(mock), /Server needs the native addon/);
    return;
  }
  const server = new Server(mock, { instant: true });
  const post = () => fetch(`${server.openaiBaseURL}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.json());
  assert.equal((await post()).choices[0].message.content, 'over HTTP');
  assert.equal((await post()).choices[0].message.content, 'computed for gpt-4o');
  assert.equal((await post()).error.code, 'script_exhausted');
  assert.equal(mock.requestCount, 3);
  server.stop();
  server.stop();
  assert.ok(server.port > 0);
});

test('a server sends a span per mocked call to its OTLP endpoint', { skip: WASM && 'the wasm module has no server' }, async () => {
  const { createServer } = await import('node:http');
  const posts = [];
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on('data', (c) => chunks.push(c));
    request.on('end', () => {
      posts.push({ path: request.url, type: request.headers['content-type'], body: Buffer.concat(chunks) });
      response.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const server = new Server(MockModel.thatResponds('traced'), { instant: true, otlp_endpoint: `http://127.0.0.1:${receiver.address().port}` });
  const reply = await fetch(`${server.openaiBaseURL}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.json());
  assert.equal(reply.choices[0].message.content, 'traced');
  // Batched on the exporter's thread within a second; this event loop must stay free to receive it (stop() would
  // wait for that export from this thread).
  for (let i = 0; i < 250 && posts.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  server.stop();
  receiver.close();
  assert.deepEqual(posts.map((p) => [p.path, p.type]), [['/v1/traces', 'application/x-protobuf']]);
  assert.ok(posts[0].body.includes('chat gpt-4o') && posts[0].body.includes('gen_ai.provider.name'));
  assert.throws(() => new Server(MockModel.thatResponds('x'), { otlp_endpoint: 'https://collector:4318' }), /is not an http:\/\/ URL/);
});

test('tokenize and countTokens follow the word-like rule', () => {
  assert.deepEqual(tokenize('Hello, world!'), ['Hello', ',', ' world', '!']);
  assert.equal(countTokens('Hello, world!'), 4);
});
