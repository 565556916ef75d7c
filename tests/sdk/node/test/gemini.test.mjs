// The official `@google/genai` SDK and the AI SDK's `@ai-sdk/google` provider, unmodified, against `cuecard serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI, ApiError } from '@google/genai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { generateText, streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const MODEL = 'gemini-2.5-flash';
const genai = (httpOptions = {}) => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.anthropicURL, ...httpOptions } });
// The AI SDK's provider appends `/models/...` to its base URL, which names the API version.
const google = () => createGoogleGenerativeAI({ apiKey: 'test-key', baseURL: `${server.anthropicURL}/v1beta` });

test('@google/genai: text whole, with usage, journaled as gemini_generate', async () => {
  await server.load(scenario({ text: 'Hello, world!', usage: { input_tokens: 5, output_tokens: 4 } }));
  const response = await genai().models.generateContent({ model: MODEL, contents: 'Say hello', config: { systemInstruction: 'Be terse' } });
  assert.equal(response.text, 'Hello, world!');
  assert.equal(response.candidates[0].finishReason, 'STOP');
  assert.deepEqual([response.usageMetadata.promptTokenCount, response.usageMetadata.candidatesTokenCount], [5, 4]);
  const [entry] = await server.entries();
  assert.equal(entry.request.metadata.endpoint, 'gemini_generate');
  assert.deepEqual(entry.request.messages.map((m) => m.role), ['system', 'user']);
});

test('@google/genai: a stream is the word-like tokens, and no continuation request follows', async () => {
  await server.load(scenario({ text: 'Hello, world! Order 12345' }));
  const pieces = [];
  for await (const chunk of await genai().models.generateContentStream({ model: MODEL, contents: 'Say hello' })) {
    if (chunk.text) pieces.push(chunk.text);
  }
  assert.deepEqual(pieces, ['Hello', ',', ' world', '!', ' Order', ' ', '123', '45']);
  assert.equal((await server.entries()).length, 1);
});

test('@google/genai: a content filter on a stream is a blocked candidate, not an empty stream', async () => {
  await server.load(scenario({ fail: { kind: 'content_filtered' } }));
  const chunks = [];
  for await (const chunk of await genai().models.generateContentStream({ model: MODEL, contents: 'x' })) chunks.push(chunk);
  assert.equal(chunks.length, 1);
  assert.deepEqual([chunks[0].candidates[0].finishReason, chunks[0].candidates[0].safetyRatings[0].blocked], ['SAFETY', true]);
});

test('@google/genai: thinking as thought parts with includeThoughts', async () => {
  await server.load(scenario({ thinking: 'The user greets me.', text: 'Hi!' }));
  const response = await genai().models.generateContent({ model: MODEL, contents: 'hi', config: { thinkingConfig: { includeThoughts: true } } });
  const parts = response.candidates[0].content.parts;
  assert.deepEqual(parts.map((p) => [p.text, Boolean(p.thought)]), [['The user greets me.', true], ['Hi!', false]]);
  assert.equal(response.usageMetadata.thoughtsTokenCount, 5);
});

test('@google/genai: a tool loop with the function response sent back', async () => {
  await server.load(scenario({ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, { text: 'Sunny.' }));
  const config = { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] }] };
  const chat = genai().chats.create({ model: MODEL, config });
  const first = await chat.sendMessage({ message: 'Weather in Paris?' });
  assert.deepEqual(first.functionCalls.map((c) => [c.name, c.args]), [['get_weather', { city: 'Paris' }]]);
  const final = await chat.sendMessage({ message: [{ functionResponse: { name: 'get_weather', response: { temp_c: 21 } } }] });
  assert.equal(final.text, 'Sunny.');
  const second = (await server.entries())[1].request;
  assert.deepEqual(second.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
});

test('@google/genai: errors are ApiError with the status, not retried by default; retried with retryOptions', async () => {
  await server.load(scenario({ fail: { kind: 'rate_limited' } }, { fail: { kind: 'unavailable' } }, 'recovered'));
  await assert.rejects(genai().models.generateContent({ model: MODEL, contents: 'x' }), (e) => e instanceof ApiError && e.status === 429);
  assert.equal((await server.entries()).length, 1);
  const retrying = genai({ retryOptions: { attempts: 3, initialDelay: 0.01, maxDelay: 0.05 } });
  assert.equal((await retrying.models.generateContent({ model: MODEL, contents: 'x' })).text, 'recovered');
  assert.deepEqual(await server.outcomes(), ['failed', 'failed', 'answered']);
});

test('@google/genai: an error chunk mid-stream throws after the text', async () => {
  await server.load(scenario({ text: 'Partial answer', fail_after: { kind: 'unavailable' } }));
  const pieces = [];
  await assert.rejects(async () => {
    for await (const chunk of await genai().models.generateContentStream({ model: MODEL, contents: 'x' })) pieces.push(chunk.text);
  }, (e) => e instanceof ApiError && e.status === 503);
  assert.deepEqual(pieces, ['Partial', ' answer']);
});

test('@google/genai: an exhausted script, countTokens, embeddings and the model list', async () => {
  await server.load(scenario('only'));
  await genai().models.generateContent({ model: MODEL, contents: 'x' });
  await assert.rejects(genai().models.generateContent({ model: MODEL, contents: 'again' }), (e) => e.status === 422 && /script exhausted/.test(e.message));
  assert.equal((await genai().models.countTokens({ model: MODEL, contents: 'Hello, world!' })).totalTokens, 4);
  const embedded = await genai().models.embedContent({ model: 'text-embedding-004', contents: ['a', 'b'], config: { outputDimensionality: 8 } });
  assert.deepEqual(embedded.embeddings.map((e) => e.values.length), [8, 8]);
  const names = [];
  for await (const model of await genai().models.list()) names.push(model.name);
  assert.ok(names.includes('models/cuecard-mock'), names.join());
});

test('@ai-sdk/google: generateText, streamText and a tool loop', async () => {
  await server.load(scenario(
    { text: 'Hello, world!', usage: { input_tokens: 3, output_tokens: 4 } },
    { text: 'Hello, world!' },
    { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    { text: 'Sunny in Paris.' },
  ));
  const whole = await generateText({ model: google()(MODEL), prompt: 'Say hello', maxRetries: 0 });
  assert.equal(whole.text, 'Hello, world!');
  assert.deepEqual([whole.usage.inputTokens, whole.usage.outputTokens], [3, 4]);
  const streamed = streamText({ model: google()(MODEL), prompt: 'Say hello', maxRetries: 0 });
  const deltas = [];
  for await (const delta of streamed.textStream) deltas.push(delta);
  assert.deepEqual(deltas, ['Hello', ',', ' world', '!']);
  const asked = [];
  const loop = await generateText({
    model: google()(MODEL), prompt: 'Weather in Paris?', maxRetries: 0, stopWhen: stepCountIs(3),
    tools: { get_weather: tool({ inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }), execute: async ({ city }) => { asked.push(city); return `sunny in ${city}`; } }) },
  });
  assert.equal(loop.text, 'Sunny in Paris.');
  assert.deepEqual(asked, ['Paris']);
  const last = (await server.entries()).at(-1).request;
  assert.deepEqual(last.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
});

test('@ai-sdk/google: a scripted failure is an APICallError with the status', async () => {
  await server.load(scenario({ fail: { kind: 'bad_request', message: 'bad things' } }));
  await assert.rejects(generateText({ model: google()(MODEL), prompt: 'x', maxRetries: 0 }), (e) => e.statusCode === 400 && /bad things/.test(e.message));
});
