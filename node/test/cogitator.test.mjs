// cuecard/cogitator: the behaviours @cogitator-ai/test-utils documents (seed 003, spec/seed-systems.md §3.3-3.6),
// with cuecard's deterministic ids and request snapshots. C1..C11 name the spec's behaviours.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { assertThat, InvalidArgumentError } from 'cuecard';
import {
  MockLLMBackend, createMockLLMBackend, MockMemoryAdapter, createMockMemoryAdapter, createTestAgentConfig,
  createTestAgent, createUserMessage, createAssistantMessage, createSystemMessage, createToolMessage,
  createMultimodalMessage, createImageUrlMessage, createConversation, createToolCall, createToolResult,
  createMockRunResult, createRunResultWithToolCalls, createRunResultWithMessages, createTestTool,
  createCalculatorTool, createWeatherTool, createFailingTool, createSlowTool, createToolSchema,
  collectStreamContent, collectStreamChunks, collectStreamToolCalls, createMockReadableStream, waitFor, eventually,
  delay, withTimeout, resetFixtureIds,
} from 'cuecard/cogitator';

const request = (content = 'Hello') => ({ model: 'test-model', messages: [{ role: 'user', content }] });

/** The loop of Cogitator's runtime (spec §3.5), enough to drive the mock as `Cogitator.run` does: the live
 * messages array, tools run in order, a failing tool becomes an error result, the duplicate-call guard. */
async function runAgent(backend, { input, tools = [], maxIterations = 10 }) {
  const messages = [{ role: 'system', content: 'You are a test agent.' }, { role: 'user', content: input }];
  const toolCalls = [];
  let previous = null;
  let output = '';
  for (let i = 0; i < maxIterations; i++) {
    const response = await backend.chat({ model: 'test-model', messages, tools: tools.map(({ name, description, parameters }) => ({ name, description, parameters })) });
    messages.push({ role: 'assistant', content: response.content, toolCalls: response.toolCalls });
    output = response.content;
    if (response.finishReason !== 'tool_calls' || !response.toolCalls?.length) break;
    const signature = response.toolCalls.map((c) => `${c.name}:${JSON.stringify(c.arguments)}`).join('|');
    if (signature === previous) {
      for (const call of response.toolCalls) messages.push({ role: 'tool', content: JSON.stringify({ error: 'Duplicate tool call detected. Try a different approach.' }), toolCallId: call.id, name: call.name });
      previous = null;
      continue;
    }
    previous = signature;
    for (const call of response.toolCalls) {
      toolCalls.push(call);
      const tool = tools.find((t) => t.name === call.name);
      let result;
      try {
        result = tool ? await tool.execute(call.arguments) : { error: `Tool not found: ${call.name}` };
      } catch (error) {
        result = { error: error.message };
      }
      messages.push({ role: 'tool', content: JSON.stringify(result ?? null), toolCallId: call.id, name: call.name });
    }
  }
  return { output, toolCalls, messages };
}

describe('MockLLMBackend (the seed test file, ported)', () => {
  test('C1: returns the set response; responses in sequence, the last sticky; default empty response', async () => {
    const mock = new MockLLMBackend().setResponse({ content: 'Hello, world!' });
    const first = await mock.chat(request());
    assert.equal(first.content, 'Hello, world!');
    assert.equal(first.finishReason, 'stop');
    assert.match(first.id, /^mock_\d{8}$/);

    const sequence = createMockLLMBackend().setResponses([{ content: 'First response' }, { content: 'Second response' }]);
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await sequence.chat(request())).content);
    assert.deepEqual(texts, ['First response', 'Second response', 'Second response']);

    const empty = await new MockLLMBackend().chat(request());
    assert.deepEqual([empty.content, empty.finishReason], ['', 'stop']);
    assert.match(empty.id, /^mock_/);
  });

  test('C2: tool calls; finishReason derived from toolCalls (an empty array counts), setToolCallResponse replaces', async () => {
    const call = createToolCall('calculator', { expression: '2 + 2' });
    const mock = new MockLLMBackend().setResponses([{ content: 'ignored' }]).setToolCallResponse([call]);
    const response = await mock.chat(request());
    assert.equal(response.finishReason, 'tool_calls');
    assert.deepEqual(response.toolCalls, [call]);
    assert.equal(response.content, '');
    const emptyCalls = await new MockLLMBackend().setResponse({ content: 'x', toolCalls: [] }).chat(request());
    assert.deepEqual([emptyCalls.finishReason, emptyCalls.toolCalls], ['tool_calls', []]);
    const explicit = await new MockLLMBackend().setResponse({ content: 'cut', finishReason: 'length' }).chat(request());
    assert.equal(explicit.finishReason, 'length');
    const errorReason = await new MockLLMBackend().setResponse({ content: 'x', finishReason: 'error' }).chat(request());
    assert.equal(errorReason.finishReason, 'error');
  });

  test('C3: an error answer rejects with that exact error; the call is still recorded and the cursor advances', async () => {
    const error = new Error('API rate limit exceeded');
    const mock = new MockLLMBackend().setResponses([{ error, delay: 5_000 }, { content: 'recovered' }]);
    const started = Date.now();
    await assert.rejects(mock.chat(request()), (e) => e === error);
    assert.ok(Date.now() - started < 1_000, 'the error is thrown before the delay');
    assert.equal(mock.getCallCount(), 1);
    assert.equal((await mock.chat(request())).content, 'recovered');
  });

  test('C4: usage is estimated with the invariant total = input + output; a given usage is spread over it', async () => {
    const mock = new MockLLMBackend().setResponses([{ content: 'This is a test response with some content' }, { content: 'x', usage: { inputTokens: 7 } }, { content: 'y', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 99 } }]);
    const { usage } = await mock.chat(request('How many tokens is this message?'));
    assert.ok(usage.inputTokens > 0 && usage.outputTokens > 0);
    assert.equal(usage.totalTokens, usage.inputTokens + usage.outputTokens);
    assert.equal((await mock.chat(request())).usage.inputTokens, 7);
    assert.deepEqual((await mock.chat(request())).usage, { inputTokens: 1, outputTokens: 2, totalTokens: 99 });
  });

  test('C4: the estimate is Cogitator\'s: ceil(chars / 4) per string message and for the answer, input at least 1', async () => {
    const mock = new MockLLMBackend().setResponse({ content: 'Hi there!' });
    assert.deepEqual((await mock.chat(request('Hello, world!'))).usage, { inputTokens: 4, outputTokens: 3, totalTokens: 7 });
    const two = { model: 'm', messages: [{ role: 'system', content: 'abcde' }, { role: 'user', content: 'x' }] };
    assert.deepEqual((await mock.chat(two)).usage, { inputTokens: 3, outputTokens: 3, totalTokens: 6 });
    // No messages, or only multimodal ones (arrays count 0): input is still 1; an empty answer is 0.
    const empty = new MockLLMBackend().setResponse({ content: '' });
    assert.deepEqual((await empty.chat({ model: 'm', messages: [] })).usage, { inputTokens: 1, outputTokens: 0, totalTokens: 1 });
    const image = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a long text part' }] }] };
    assert.deepEqual((await empty.chat(image)).usage, { inputTokens: 1, outputTokens: 0, totalTokens: 1 });
    // UTF-16 units, as JS counts a string's length: '😀😀' is 4 units, 1 token.
    assert.deepEqual((await mock.chat(request('😀😀'))).usage.inputTokens, 1);
    const streamed = new MockLLMBackend().setStreamChunks([{ content: 'Hello' }, { content: ', ' }, { content: 'world!' }]);
    const chunks = await collectStreamChunks(streamed.chatStream(request('Hello, world!')));
    assert.deepEqual(chunks.at(-1).usage, { inputTokens: 4, outputTokens: 4, totalTokens: 8 });
    const unmessaged = await collectStreamChunks(streamed.chatStream({ model: 'm', messages: [] }));
    assert.deepEqual(unmessaged.at(-1).usage, { inputTokens: 1, outputTokens: 4, totalTokens: 5 });
  });

  test('C5: delay and the default delay are honoured with real timers', async () => {
    const mock = new MockLLMBackend().setResponse({ content: 'slow', delay: 50 });
    let started = Date.now();
    await mock.chat(request());
    assert.ok(Date.now() - started >= 45);
    const byDefault = new MockLLMBackend().setDefaultDelay(40).setResponse({ content: 'default' });
    started = Date.now();
    await byDefault.chat(request());
    assert.ok(Date.now() - started >= 35);
    byDefault.reset();
    started = Date.now();
    await byDefault.chat(request());
    assert.ok(Date.now() - started >= 35, 'reset keeps the default delay');
  });

  test('C6: streams: content concatenates, toolCalls pass through, finishReason and usage only on the last chunk', async () => {
    const mock = new MockLLMBackend().setStreamChunks([{ content: 'Hello' }, { content: ', ' }, { content: 'world!' }]);
    const chunks = await collectStreamChunks(mock.chatStream(request()));
    assert.equal(chunks.map((c) => c.delta.content).join(''), 'Hello, world!');
    assert.match(chunks[0].id, /^mock_stream_\d{8}$/);
    assert.ok(chunks.every((c) => c.id === chunks[0].id));
    assert.deepEqual(chunks.slice(0, -1).map((c) => [c.finishReason, c.usage]), [[undefined, undefined], [undefined, undefined]]);
    const last = chunks.at(-1);
    assert.equal(last.finishReason, 'stop');
    assert.equal(last.usage.totalTokens, last.usage.inputTokens + last.usage.outputTokens);

    const calls = new MockLLMBackend().setMultipleStreamChunks([
      [{ toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }], finishReason: 'tool_calls' }],
      [{ content: 'It is cold in Oslo.' }],
    ]);
    assert.deepEqual(await collectStreamToolCalls(calls.chatStream(request())), [{ name: 'get_weather', arguments: { city: 'Oslo' } }]);
    assert.equal(await collectStreamContent(calls.chatStream(request())), 'It is cold in Oslo.');
    assert.equal(await collectStreamContent(calls.chatStream(request())), 'It is cold in Oslo.', 'the last list repeats');

    const none = await collectStreamChunks(new MockLLMBackend().chatStream(request()));
    assert.deepEqual(none.map((c) => [c.delta, c.finishReason, c.usage]), [[{ content: '' }, 'stop', { inputTokens: 0, outputTokens: 0, totalTokens: 0 }]]);
    // chatStream never uses the chat() answers
    const separate = new MockLLMBackend().setResponse({ content: 'whole' }).setStreamChunks([{ content: 'streamed' }]);
    assert.equal(await collectStreamContent(separate.chatStream(request())), 'streamed');
    assert.equal((await separate.chat(request())).content, 'whole');
  });

  test('C7: the call log (getCalls, getLastCall, getCallCount, wasCalledWith); reset empties it', async () => {
    const mock = new MockLLMBackend().setResponse({ content: 'ok' });
    await mock.chat(request('first'));
    await collectStreamChunks(mock.chatStream(request('second')));
    assert.equal(mock.getCallCount(), 2);
    assert.deepEqual(mock.getCalls().map((c) => c.messages[0].content), ['first', 'second']);
    assert.equal(mock.getLastCall().messages[0].content, 'second');
    assert.ok(mock.wasCalledWith((r) => r.messages[0].content === 'first'));
    assert.ok(!mock.wasCalledWith((r) => r.model === 'other'));
    mock.reset();
    assert.deepEqual([mock.getCallCount(), mock.getLastCall()], [0, undefined]);
    assert.equal((await mock.chat(request())).content, '', 'reset forgets the answers too');
  });

  test('C8: the seed example: a tool loop against the sticky mock; snapshots; the core checks on backend.model', async () => {
    const mock = new MockLLMBackend().setResponses([
      { toolCalls: [createToolCall('get_weather', { city: 'Tokyo' })] },
      { content: 'It is 22°C in Tokyo.' },
    ]);
    const result = await runAgent(mock, { input: 'Weather in Tokyo?', tools: [createWeatherTool()] });
    assert.equal(result.output, 'It is 22°C in Tokyo.');
    assert.deepEqual(result.toolCalls.map((c) => c.name), ['get_weather']);
    assert.equal(mock.getCallCount(), 2);
    assert.equal(mock.getLastCall().model, 'test-model');
    assert.equal(mock.getCalls()[0].messages.length, 2, 'a snapshot: the first call does not show later messages');
    assert.equal(mock.getCalls()[1].messages.at(-1).role, 'tool');
    assert.deepEqual(mock.getCalls()[0].tools.map((t) => t.name), ['get_weather']);
    assertThat(mock.model).receivedRequests(2).requestAt(1).offersTool('get_weather');
    assert.deepEqual(JSON.parse(mock.model.requests()[1].messages.at(-1).content[0].text), { city: 'Tokyo', temperature: 22, condition: 'sunny', units: 'celsius' });

    const failing = new MockLLMBackend().setResponses([{ toolCalls: [createToolCall('failing_tool')] }, { content: 'handled' }]);
    const handled = await runAgent(failing, { input: 'x', tools: [createFailingTool('boom')] });
    assert.equal(handled.output, 'handled');
    assert.equal(handled.messages.at(-2).content, '{"error":"boom"}');

    const looping = new MockLLMBackend().setToolCallResponse([createToolCall('calculator', { expression: '1 + 1' })]);
    const capped = await runAgent(looping, { input: 'loop', tools: [createCalculatorTool()], maxIterations: 3 });
    assert.equal(looping.getCallCount(), 3, 'a sticky tool-calling answer keeps calling until maxIterations');
    assert.ok(capped.toolCalls.length <= 3);
    assert.equal(capped.output, '');
  });

  test('bad input: TypeErrors naming the argument; hostile requests are refused with a typed error', async () => {
    const mock = new MockLLMBackend();
    assert.throws(() => mock.setResponses('nope'), (e) => e instanceof TypeError && /responses/.test(e.message));
    assert.throws(() => mock.setResponses([{ error: 'not an Error' }]), /responses\[0\]\.error/);
    assert.throws(() => mock.setStreamChunks([1]), /chunkLists\[0\]\[0\]/);
    assert.throws(() => mock.setDefaultDelay(-1), TypeError);
    await assert.rejects(mock.chat('hi'), TypeError);
    const cyclic = request();
    cyclic.self = cyclic;
    await assert.rejects(mock.chat(cyclic), InvalidArgumentError);
    assert.equal(mock.getCallCount(), 0);
  });
});

describe('MockMemoryAdapter (C9)', () => {
  test('threads: ids, metadata merge, null for a missing thread, a failure result for updating one', async () => {
    const memory = createMockMemoryAdapter();
    assert.equal(memory.provider, 'memory');
    await memory.connect();
    assert.ok(memory.isConnected());
    const created = await memory.createThread('agent-1', { topic: 'weather' });
    assert.equal(created.success, true);
    assert.match(created.data.id, /^thread_/);
    assert.ok(created.data.createdAt instanceof Date);
    const updated = await memory.updateThread(created.data.id, { mood: 'good' });
    assert.deepEqual(updated.data.metadata, { topic: 'weather', mood: 'good' });
    assert.ok(updated.data.updatedAt > created.data.createdAt);
    assert.deepEqual(await memory.getThread('missing'), { success: true, data: null });
    assert.deepEqual(await memory.updateThread('missing', {}), { success: false, error: 'Thread missing not found' });
    await memory.disconnect();
    assert.ok(!memory.isConnected());
    assert.equal((await memory.getThread(created.data.id)).data.id, created.data.id, 'disconnect keeps the data');
  });

  test('entries: last-N limit, strict date filters, extra fields dropped, the call log', async () => {
    const memory = new MockMemoryAdapter();
    await memory.createThread('agent-1', {}, 't1');
    const added = [];
    for (const text of ['one', 'two', 'three']) added.push((await memory.addEntry({ threadId: 't1', message: createUserMessage(text), extra: 'dropped' })).data);
    assert.match(added[0].id, /^entry_/);
    assert.equal(added[0].tokenCount, 0);
    assert.ok(!('extra' in added[0]));
    const lastTwo = await memory.getEntries({ threadId: 't1', limit: 2 });
    assert.deepEqual(lastTwo.data.map((e) => e.message.content), ['two', 'three']);
    assert.equal((await memory.getEntries({ threadId: 't1', limit: 0 })).data.length, 3, 'limit 0 means no limit');
    const after = await memory.getEntries({ threadId: 't1', after: added[0].createdAt });
    assert.deepEqual(after.data.map((e) => e.message.content), ['two', 'three'], 'strict: the entry at that time is not after it');
    const before = await memory.getEntries({ threadId: 't1', before: added[2].createdAt });
    assert.deepEqual(before.data.map((e) => e.message.content), ['one', 'two']);
    assert.deepEqual((await memory.getEntries({ threadId: 'unknown' })).data, []);
    assert.equal((await memory.getEntry(added[1].id)).data.message.content, 'two');
    await memory.deleteEntry(added[1].id);
    assert.equal((await memory.getEntry(added[1].id)).data, null);
    await memory.clearThread('t1');
    assert.deepEqual((await memory.getEntries({ threadId: 't1' })).data, []);
    assert.equal(memory.getCallsFor('addEntry').length, 3);
    assert.deepEqual(memory.getCallsFor('createThread')[0].args, ['agent-1', {}, 't1']);
    assert.equal(memory.getCallsFor('addEntry')[0].args[0].threadId, 't1');
    memory.reset();
    assert.deepEqual([memory.getCalls().length, memory.isConnected()], [0, false]);
  });

  test('the call log keeps the arguments as given: no defaults added, Dates as Dates, limit 0 kept, undefined kept', async () => {
    const memory = new MockMemoryAdapter();
    const before = new Date(1767225600500);
    const query = { threadId: 't1', before, limit: 0 };
    await memory.createThread('agent-1');
    await memory.getEntries(query);
    await memory.addEntry({ threadId: 't1', message: createUserMessage('hi'), extra: 'kept in the log' });
    const calls = memory.getCalls();
    assert.deepEqual(calls[0], { method: 'createThread', args: ['agent-1', undefined, undefined] });
    assert.equal(calls[1].method, 'getEntries');
    assert.equal(calls[1].args[0], query, 'the very object given');
    assert.deepEqual(Object.keys(calls[1].args[0]), ['threadId', 'before', 'limit']);
    assert.ok(calls[1].args[0].before instanceof Date);
    assert.equal(calls[2].args[0].extra, 'kept in the log');
    calls.pop();
    assert.equal(memory.getCalls().length, 3, 'getCalls is a copy');
  });
});

describe('fixtures and helpers (C10, C11)', () => {
  test('fixture shapes, defaults and deterministic ids', async () => {
    resetFixtureIds();
    const config = createTestAgentConfig({ temperature: 0.1 });
    assert.deepEqual(config, {
      id: 'agent_00000001', name: 'test-agent', model: 'mock/test-model', instructions: 'You are a helpful test assistant.',
      temperature: 0.1, maxIterations: 10, timeout: 30000, tools: [],
    });
    assert.equal(createTestAgentConfig({ model: undefined }).model, undefined, 'an explicit undefined clobbers');
    const agent = createTestAgent({ tools: [createToolSchema('lookup')] });
    const clone = agent.clone({ name: 'copy' });
    assert.notEqual(clone.id, agent.id);
    assert.equal(clone.name, 'copy');
    assert.deepEqual(agent.serialize().config.tools, ['lookup']);
    assert.equal(agent.serialize().metadata.serializedAt, '2026-01-01T00:00:00.000Z');

    assert.deepEqual(createUserMessage('hi'), { role: 'user', content: 'hi' });
    assert.deepEqual(createAssistantMessage('a'), { role: 'assistant', content: 'a' });
    assert.deepEqual(createSystemMessage('s'), { role: 'system', content: 's' });
    const toolMessage = createToolMessage('call_1', '{}');
    assert.ok('name' in toolMessage && toolMessage.name === undefined);
    assert.deepEqual(createImageUrlMessage('look', 'https://x/y.png'), createMultimodalMessage([{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }]));
    assert.deepEqual(createConversation({ role: 'user', content: 'q' }, { role: 'bot', content: 'a' }).map((m) => m.role), ['user', 'assistant']);
    const call = createToolCall('calc');
    assert.deepEqual(call, { id: 'call_00000001', name: 'calc', arguments: {} });
    assert.deepEqual(createToolResult(call, 4), { callId: 'call_00000001', name: 'calc', result: 4, error: undefined });
    const run = createMockRunResult('out', { output: 'override' });
    assert.equal(run.output, 'override', 'options come last, as in Cogitator');
    assert.match(run.trace.traceId, /^trace_\d{12}$/);
    assert.deepEqual(run.usage, { inputTokens: 100, outputTokens: 50, totalTokens: 150, cost: 0.001, duration: 100 });
    assert.deepEqual(createRunResultWithToolCalls('o', [call]).toolCalls, [call]);
    assert.deepEqual(createRunResultWithMessages('o', [toolMessage]).messages, [toolMessage]);
  });

  test('tools: calculator, weather, failing, slow, test tool, schema', async () => {
    const calculator = createCalculatorTool();
    assert.deepEqual(await calculator.execute({ expression: '6 * 7' }), { result: 42 });
    assert.deepEqual(await calculator.execute({ expression: '1.5 + 1' }), { error: 'Invalid expression' });
    assert.deepEqual(await calculator.execute({ expression: '1 / 0' }), { result: Infinity });
    const weather = createWeatherTool();
    assert.deepEqual(await weather.execute({ city: 'Oslo' }), { city: 'Oslo', temperature: 22, condition: 'sunny', units: 'celsius' });
    assert.equal((await weather.execute({ city: 'Oslo', units: 'kelvin' })).temperature, 72);
    await assert.rejects(createFailingTool().execute({}), /Tool execution failed/);
    const started = Date.now();
    assert.deepEqual(await createSlowTool(30).execute({ a: 1 }), { result: 'completed', delay: 30, args: { a: 1 } });
    assert.ok(Date.now() - started >= 25);
    const testTool = createTestTool();
    assert.match(testTool.name, /^test_tool_\d{4}$/);
    assert.equal((await testTool.execute({ input: 'x' })).result, `Executed ${testTool.name} with {"input":"x"}`);
    assert.deepEqual(createToolSchema('lookup'), { name: 'lookup', description: 'Schema for lookup', parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } });
  });

  test('stream helpers: collectStreamToolCalls does not merge partials; readable streams; async helpers', async () => {
    async function* partials() {
      yield { id: 's', delta: { toolCalls: [{ id: 'c1', name: 'f' }] } };
      yield { id: 's', delta: { toolCalls: [{ id: 'c1', arguments: { a: 1 } }] } };
      yield { id: 's', delta: { toolCalls: [{ id: 'c2', name: 'g', arguments: { b: 2 } }] } };
    }
    assert.deepEqual(await collectStreamToolCalls(partials()), [{ name: 'g', arguments: { b: 2 } }]);
    const reader = createMockReadableStream(['data: 1\n\n', 'data: 2\n\n']).getReader();
    const decoded = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) decoded.push(new TextDecoder().decode(r.value));
    assert.deepEqual(decoded, ['data: 1\n\n', 'data: 2\n\n']);

    let ticks = 0;
    assert.equal(await waitFor(() => (++ticks >= 3 ? 'ready' : null), { interval: 5 }), 'ready');
    await assert.rejects(waitFor(() => false, { timeout: 30, interval: 5 }), /waitFor timed out after 30ms/);
    let evaluated = false;
    await assert.rejects(waitFor(() => (evaluated = true), { timeout: 0 }), /timed out/);
    assert.equal(evaluated, false);
    let attempts = 0;
    await eventually(() => assert.ok(++attempts >= 3), { interval: 5 });
    await assert.rejects(eventually(() => assert.equal(1, 2), { timeout: 30, interval: 5 }), assert.AssertionError);
    await assert.rejects(eventually(() => {}, { timeout: 0 }), /eventually timed out after 0ms/);
    await delay(1);
    assert.equal(await withTimeout(Promise.resolve('fast'), 1000), 'fast');
    await assert.rejects(withTimeout(delay(200), 10), /Operation timed out after 10ms/);
  });
});
