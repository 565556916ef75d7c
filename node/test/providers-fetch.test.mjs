// The Gemini and Ollama SDKs in-process through `createFetch` (no socket), on the napi addon and on the wasm module
// alike: @google/genai and @ai-sdk/google take a `fetch` option, and so does ollama-js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI, ApiError } from '@google/genai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText } from 'ai';
import { Ollama } from 'ollama';
import { MockModel, createFetch } from 'cuecard';

const BASE = 'http://cuecard.invalid';

test('@google/genai through createFetch: text, a stream, a tool call, an error', async () => {
  const mock = MockModel.thatResponds('Hello, world!').thenResponds('Streamed text.')
    .thenCallsTool('get_weather', { city: 'Paris' }).thenFails('rate_limited');
  const genai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: BASE, fetch: createFetch(mock, { instant: true }) } });
  assert.equal((await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hi' })).text, 'Hello, world!');
  const pieces = [];
  for await (const chunk of await genai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' })) {
    if (chunk.text) pieces.push(chunk.text);
  }
  assert.deepEqual(pieces, ['Streamed', ' text', '.']);
  const called = await genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'weather?' });
  assert.deepEqual(called.functionCalls.map((c) => [c.name, c.args]), [['get_weather', { city: 'Paris' }]]);
  await assert.rejects(genai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }), (e) => e instanceof ApiError && e.status === 429);
  assert.deepEqual(mock.requests().map((r) => r.metadata.endpoint), Array(4).fill('gemini_generate'));
});

test('@ai-sdk/google through createFetch', async () => {
  const mock = MockModel.thatResponds({ text: 'Hi from Gemini.', usage: { input_tokens: 1, output_tokens: 4 } });
  const google = createGoogleGenerativeAI({ apiKey: 'k', baseURL: `${BASE}/v1beta`, fetch: createFetch(mock, { instant: true }) });
  const result = await generateText({ model: google('gemini-2.5-flash'), prompt: 'hi', maxRetries: 0 });
  assert.deepEqual([result.text, result.usage.outputTokens], ['Hi from Gemini.', 4]);
});

test('ollama-js through createFetch: chat, a stream to the done line, an error', async () => {
  const mock = MockModel.thatResponds({ thinking: 'Hm.', text: 'Hello, world!' }).thenResponds('Streamed text.').thenFails('not_found', { message: "model 'x' not found" });
  const ollama = new Ollama({ host: BASE, fetch: createFetch(mock, { instant: true }) });
  const reply = await ollama.chat({ model: 'qwen3', messages: [{ role: 'user', content: 'hi' }], think: true });
  assert.deepEqual([reply.message.thinking, reply.message.content], ['Hm.', 'Hello, world!']);
  const parts = [];
  for await (const part of await ollama.chat({ model: 'qwen3', messages: [{ role: 'user', content: 'hi' }], stream: true })) parts.push([part.message.content, part.done]);
  assert.deepEqual(parts, [['Streamed', false], [' text', false], ['.', false], ['', true]]);
  await assert.rejects(ollama.chat({ model: 'qwen3', messages: [{ role: 'user', content: 'x' }] }), (e) => e.status_code === 404 && e.error === "model 'x' not found");
  assert.deepEqual(mock.requests().map((r) => r.metadata.endpoint), Array(3).fill('ollama_chat'));
});

test('the AWS SDK through awsRequestHandler: converse, ConverseStream frames, a ThrottlingException retried', async () => {
  const { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
  const { awsRequestHandler } = await import('cuecard');
  const mock = MockModel.thatFails('rate_limited').thenResponds('Hello, world!').thenResponds({ thinking: 'Hm.', text: 'Streamed text.' });
  const client = new BedrockRuntimeClient({
    region: 'us-east-1', endpoint: BASE, credentials: { accessKeyId: 'k', secretAccessKey: 's' }, maxAttempts: 2,
    requestHandler: awsRequestHandler(mock, { instant: true }),
  });
  const whole = await client.send(new ConverseCommand({ modelId: 'anthropic.claude-v2:1', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
  assert.deepEqual([whole.output.message.content, whole.$metadata.attempts], [[{ text: 'Hello, world!' }], 2]);
  const streamed = await client.send(new ConverseStreamCommand({ modelId: 'm', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
  const texts = [];
  for await (const event of streamed.stream) if (event.contentBlockDelta?.delta?.text) texts.push(event.contentBlockDelta.delta.text);
  assert.deepEqual(texts, ['Streamed', ' text', '.']);
  assert.equal(mock.requests()[0].model, 'anthropic.claude-v2:1');
});

test('a mock set instant skips every scripted wait through createFetch, a binary stream\'s frames too', async () => {
  const { BedrockRuntimeClient, ConverseStreamCommand } = await import('@aws-sdk/client-bedrock-runtime');
  const { awsRequestHandler } = await import('cuecard');
  const slow = { text: 'Streamed text.', ttft_ms: 3000, token_delay_ms: 3000 };
  const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: [slow, { text: 'Whole.', delay_ms: 3000 }] }] });
  mock.configure({ instant: true }); // the mock's own setting: neither fetch below is told
  const client = new BedrockRuntimeClient({
    region: 'us-east-1', endpoint: BASE, credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    requestHandler: awsRequestHandler(mock),
  });
  const started = performance.now();
  const streamed = await client.send(new ConverseStreamCommand({ modelId: 'm', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
  const texts = [];
  for await (const event of streamed.stream) if (event.contentBlockDelta?.delta?.text) texts.push(event.contentBlockDelta.delta.text);
  const whole = await createFetch(mock)(`${BASE}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
  assert.deepEqual([texts, (await whole.json()).choices[0].message.content], [['Streamed', ' text', '.'], 'Whole.']);
  assert.ok(performance.now() - started < 2500, 'no scripted wait of 3 s was waited');
  assert.equal(mock.clockMs, 3000 + 2 * 3000 + 3000, 'the virtual clock counts them: first token, two gaps, the whole answer');
});

test('@ai-sdk/amazon-bedrock through createFetch: the event-stream bytes of a stream', async () => {
  const { createAmazonBedrock } = await import('@ai-sdk/amazon-bedrock');
  const { streamText } = await import('ai');
  const mock = MockModel.thatResponds('Hello, world!');
  const bedrock = createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', baseURL: BASE, fetch: createFetch(mock, { instant: true }) });
  const deltas = [];
  for await (const delta of streamText({ model: bedrock('m'), prompt: 'hi', maxRetries: 0 }).textStream) deltas.push(delta);
  assert.deepEqual(deltas, ['Hello', ',', ' world', '!']);
});
