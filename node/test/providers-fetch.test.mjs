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
