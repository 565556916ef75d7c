// cuecard/ai: the AI SDK's own generateText, streamText, generateObject and tool loop against a MockModel, with
// no fetch; what the AI SDK sent is in the journal as cuecard's neutral request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, streamText, generateObject, tool, jsonSchema, stepCountIs, APICallError, RetryError } from 'ai';
import { z } from 'zod';
import { MockModel, ProviderError, assertThat } from 'cuecard';
import { cuecardModel, cuecardModelV3, CuecardLanguageModel } from 'cuecard/ai';

globalThis.AI_SDK_LOG_WARNINGS = false; // generateObject is deprecated in ai 7 but still what many suites call

test('generateText: text, usage, finish reason, response metadata; the prompt journaled as a neutral request', async () => {
  const mock = MockModel.thatResponds({ text: 'Paris.', usage: { input_tokens: 12, output_tokens: 2 } });
  const result = await generateText({
    model: cuecardModel(mock, { modelId: 'gpt-test' }),
    system: 'Be terse.',
    prompt: 'Capital of France?',
    temperature: 0.2,
    maxOutputTokens: 50,
  });
  assert.equal(result.text, 'Paris.');
  assert.equal(result.finishReason, 'stop');
  assert.equal(result.usage.inputTokens, 12);
  assert.equal(result.usage.outputTokens, 2);
  assert.equal(result.response.id, 'chatcmpl-1');
  assert.equal(result.response.modelId, 'gpt-test'); // the mock answers as the model asked for
  const request = mock.request();
  assert.equal(request.model, 'gpt-test');
  assert.equal(request.temperature, 0.2);
  assert.equal(request.max_tokens, 50);
  assert.deepEqual(request.messages, [
    { role: 'system', content: [{ type: 'text', text: 'Be terse.' }] },
    { role: 'user', content: [{ type: 'text', text: 'Capital of France?' }] },
  ]);
  assertThat(mock).receivedRequests(1).request().hasSystemMessageContaining('terse').hasLastUserMessageContaining('France').hasModel('gpt-test');
});

test('streamText: the word-like tokens as text deltas, reasoning, and the final text', async () => {
  const mock = MockModel.thatResponds({ thinking: 'Recall the capital.', text: 'It is Paris.' });
  const result = streamText({ model: cuecardModel(mock), prompt: 'Capital of France?' });
  const deltas = [];
  for await (const delta of result.textStream) deltas.push(delta);
  assert.deepEqual(deltas, ['It', ' is', ' Paris', '.']);
  assert.equal(await result.text, 'It is Paris.');
  assert.equal(await result.reasoningText, 'Recall the capital.');
  assert.equal(await result.finishReason, 'stop');
  assert.equal(mock.request().stream, true);
});

test('tool loop: generateText executes the scripted tool call and sends the result back', async () => {
  const mock = MockModel.thatCallsTool('get_weather', { city: 'Paris' }).thenResponds('It is sunny in Paris.');
  const seen = [];
  const result = await generateText({
    model: cuecardModel(mock),
    prompt: 'Weather in Paris?',
    tools: {
      get_weather: tool({
        description: 'The weather of a city',
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => {
          seen.push(city);
          return { city, sky: 'sunny' };
        },
      }),
    },
    stopWhen: stepCountIs(3),
  });
  assert.deepEqual(seen, ['Paris']);
  assert.equal(result.text, 'It is sunny in Paris.');
  assert.equal(result.steps.length, 2);
  assert.equal(result.steps[0].finishReason, 'tool-calls');
  const second = mock.requests()[1];
  assert.deepEqual(second.messages.slice(1), [
    { role: 'assistant', tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: [{ type: 'text', text: '{"city":"Paris","sky":"sunny"}' }] },
  ]);
  assert.deepEqual(second.tools, [{
    name: 'get_weather', description: 'The weather of a city',
    parameters: second.tools[0].parameters,
  }]);
  assert.equal(second.tools[0].parameters.properties.city.type, 'string');
  assertThat(mock).receivedRequests(2).allStepsUsed().lastRequest().offersExactlyTools(['get_weather']);
});

test('streamText with tools: tool input streamed, the call executed, the answer streamed', async () => {
  const mock = MockModel.thatCallsTool('add', { a: 2, b: 3 }).thenResponds('The sum is 5.');
  const result = streamText({
    model: cuecardModel(mock),
    prompt: 'Add 2 and 3',
    tools: { add: tool({ inputSchema: jsonSchema({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }), execute: async ({ a, b }) => a + b }) },
    stopWhen: stepCountIs(2),
  });
  const kinds = new Set();
  for await (const part of result.fullStream) kinds.add(part.type);
  assert.equal(await result.text, 'The sum is 5.');
  for (const kind of ['tool-input-start', 'tool-input-delta', 'tool-call', 'tool-result', 'text-delta', 'finish']) assert.ok(kinds.has(kind), kind);
  assert.equal(mock.requests()[1].messages.at(-1).content[0].text, '5');
});

test('generateObject: the scripted JSON parsed against the schema; the schema is in the request', async () => {
  const mock = MockModel.thatResponds('{"name":"Ada","age":36}');
  const { object } = await generateObject({
    model: cuecardModel(mock),
    schema: z.object({ name: z.string(), age: z.number() }),
    prompt: 'A person',
  });
  assert.deepEqual(object, { name: 'Ada', age: 36 });
  const format = mock.request().response_format;
  assert.equal(format.type, 'json_schema');
  assert.deepEqual(Object.keys(format.schema.properties).sort(), ['age', 'name']);
});

test('failures: the AI SDK retries a retryable scripted failure; a non-retryable one is an APICallError and a ProviderError', async () => {
  const mock = MockModel.thatFails('rate_limited', { retryAfterMs: 0 }).thenResponds('after the retry');
  const result = await generateText({ model: cuecardModel(mock), prompt: 'hi', maxRetries: 1 });
  assert.equal(result.text, 'after the retry');
  assert.deepEqual(mock.entries().map((e) => e.outcome), ['failed', 'answered']);

  const denied = MockModel.thatFails('unauthorized');
  const error = await generateText({ model: cuecardModel(denied), prompt: 'hi', maxRetries: 2 }).catch((e) => e);
  assert.ok(APICallError.isInstance(error), String(error));
  assert.ok(error instanceof ProviderError);
  assert.equal(error.statusCode, 401);
  assert.equal(denied.requestCount, 1);

  const overloaded = MockModel.thatFails('overloaded', { retryAfterMs: 0 }).thenRepeats();
  const exhausted = await generateText({ model: cuecardModel(overloaded), prompt: 'hi', maxRetries: 2 }).catch((e) => e);
  assert.ok(RetryError.isInstance(exhausted), String(exhausted));
  assert.equal(overloaded.requestCount, 3);
});

test('a stream cut mid-way: the text before the cut arrives, then the error part', async () => {
  const mock = MockModel.thatResponds('Partial answer').andFails('connection_reset');
  const errors = [];
  const result = streamText({ model: cuecardModel(mock), prompt: 'hi', onError: ({ error }) => errors.push(error) });
  const deltas = [];
  for await (const delta of result.textStream) deltas.push(delta);
  assert.deepEqual(deltas, ['Partial', ' answer']);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof ProviderError);
  assert.equal(errors[0].kind, 'connection_reset');
});

test('routing by operation through providerOptions; abort; wrong types', async () => {
  const mock = new MockModel().route({ operation: 'summarize' }).thenResponds('A summary.').route().thenResponds('Other.');
  const summary = await generateText({ model: cuecardModel(mock), prompt: 'text', providerOptions: { cuecard: { operation: 'summarize' } } });
  assert.equal(summary.text, 'A summary.');

  const slow = MockModel.thatResponds({ text: 'late', delayMs: 10_000 });
  const controller = new AbortController();
  const pending = generateText({ model: cuecardModel(slow), prompt: 'hi', abortSignal: controller.signal, maxRetries: 0 });
  controller.abort();
  await assert.rejects(pending, (e) => e.name === 'AbortError');

  assert.throws(() => cuecardModel({}), TypeError);
  assert.throws(() => new CuecardLanguageModel(mock, { modelId: 7 }), /modelId/);
  const model = cuecardModel(mock);
  assert.equal(model.specificationVersion, 'v4');
  await assert.rejects(model.doGenerate({ prompt: 'not an array' }), TypeError);
});

test('LanguageModelV3: the same model for the V3 spec, accepted by the ai package', async () => {
  const mock = MockModel.thatCallsTool('add', { a: 1, b: 2 }).thenResponds('3');
  const model = cuecardModelV3(mock);
  assert.equal(model.specificationVersion, 'v3');
  const result = await generateText({
    model,
    prompt: 'Add',
    tools: { add: tool({ inputSchema: z.object({ a: z.number(), b: z.number() }), execute: async ({ a, b }) => a + b }) },
    stopWhen: stepCountIs(2),
  });
  assert.equal(result.text, '3');
  const streamed = streamText({ model: cuecardModelV3(MockModel.thatResponds('Streamed on V3.')), prompt: 'x' });
  assert.equal(await streamed.text, 'Streamed on V3.');
});

test('file parts: bytes, text and URLs reach the journal as image and file parts (base64 without Buffer)', async () => {
  const mock = MockModel.thatResponds('Seen.');
  const model = cuecardModel(mock);
  await model.doGenerate({
    prompt: [{
      role: 'user',
      content: [
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array([137, 80, 78, 71]) } },
        { type: 'file', mediaType: 'text/plain', filename: 'a.txt', data: { type: 'text', text: 'héllo' } },
        { type: 'file', mediaType: 'application/pdf', data: { type: 'url', url: new URL('https://x.test/a.pdf') } },
      ],
    }],
  });
  assert.deepEqual(mock.request().messages[0].content, [
    { type: 'image', data: 'iVBORw==', media_type: 'image/png' },
    { type: 'file', data: Buffer.from('héllo').toString('base64'), media_type: 'text/plain', filename: 'a.txt' },
    { type: 'file', url: 'https://x.test/a.pdf', media_type: 'application/pdf' },
  ]);
});
