// The official SDKs in-process through cuecard's fetch (no socket): text, streams, tool calls, provider errors,
// a cut stream and the SDKs' own retries; and the same SDKs through the loopback server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, streamText, jsonSchema } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { MockModel, Server, createFetch, openaiOptions, anthropicOptions, assertThat } from 'cuecard';

const ask = (text = 'hi') => [{ role: 'user', content: text }];

test('openai: text, a 429 retried by the SDK, then a stream of word-like tokens', async () => {
  const mock = MockModel.thatFails('rate_limited', { retryAfterMs: 1 }).thenResponds('Hello, world!').thenResponds('Streamed text.');
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 2 }));
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(reply.choices[0].message.content, 'Hello, world!');
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: ask(), stream: true });
  const tokens = [];
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) tokens.push(chunk.choices[0].delta.content);
  assert.deepEqual(tokens, ['Streamed', ' text', '.']);
  assert.deepEqual(mock.entries().map((e) => e.outcome), ['failed', 'answered', 'answered']);
  assert.equal(mock.entries()[0].request.metadata.endpoint, 'chat_completions');
});

test('openai: 401 is an AuthenticationError; a cut stream delivers its text, then a connection error', async () => {
  const mock = MockModel.thatFails('unauthorized').thenResponds('Partial answer').andFails('connection_reset');
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 2 }));
  await assert.rejects(client.chat.completions.create({ model: 'gpt-4o', messages: ask() }), OpenAI.AuthenticationError);
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: ask(), stream: true });
  const received = [];
  await assert.rejects(async () => {
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) received.push(chunk.choices[0].delta.content);
  });
  assert.deepEqual(received, ['Partial', ' answer']);
  assert.equal(mock.requestCount, 2);
});

test('openai: a reset before headers is retried by the SDK as a connection error', async () => {
  const mock = MockModel.thatFails('connection_reset').thenResponds('after the reset');
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 1 }));
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(reply.choices[0].message.content, 'after the reset');
});

test('openai: tool calls and the Responses API; a computed answer sees the SDK request', async () => {
  const mock = MockModel.thatCallsTool('get_weather', { city: 'Paris' })
    .thenResponds(async (request) => `You offered ${request.tools?.length ?? 0} tools.`);
  const client = new OpenAI(openaiOptions(mock));
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: ask('weather?') });
  const call = reply.choices[0].message.tool_calls[0];
  assert.deepEqual([call.function.name, JSON.parse(call.function.arguments)], ['get_weather', { city: 'Paris' }]);
  const response = await client.responses.create({
    model: 'gpt-4o', input: 'hello',
    tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} }, strict: false }],
  });
  assert.equal(response.output_text, 'You offered 1 tools.');
  assertThat(mock).lastRequest().offersTool('lookup');
});

test('anthropic: the stream helper with thinking, and a 529 retried', async () => {
  const mock = MockModel.thatResponds({ thinking: 'Plan.', text: 'Hi there!' }).thenFails('overloaded', { retryAfterMs: 1 })
    .thenResponds('After overload.');
  const client = new Anthropic(anthropicOptions(mock, { maxRetries: 2 }));
  const stream = client.messages.stream({ model: 'claude-test', max_tokens: 100, messages: ask() });
  const text = [];
  stream.on('text', (delta) => text.push(delta));
  const final = await stream.finalMessage();
  assert.deepEqual(text, ['Hi', ' there', '!']);
  assert.deepEqual(final.content.map((b) => b.type), ['thinking', 'text']);
  const message = await client.messages.create({ model: 'claude-test', max_tokens: 100, messages: ask() });
  assert.equal(message.content[0].text, 'After overload.');
  assert.deepEqual(mock.entries().map((e) => e.outcome), ['answered', 'failed', 'answered']);
});

test('scripted delays are waited in real time when not instant', async () => {
  const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: [{ text: 'one two three', ttft_ms: 60, token_delay_ms: 40 }] }] });
  const client = new OpenAI(openaiOptions(mock));
  const started = performance.now();
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: ask(), stream: true });
  const tokens = [];
  for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) tokens.push(chunk.choices[0].delta.content);
  assert.deepEqual(tokens, ['one', ' two', ' three']);
  assert.ok(performance.now() - started >= 135);
});

test('the AI SDK providers with cuecard fetch: generateText and streamText', async () => {
  const mock = MockModel.thatResponds('Hello from the AI SDK.').thenResponds('Streamed by Anthropic.');
  const openai = createOpenAI({ apiKey: 'k', baseURL: 'http://cuecard.invalid/v1', fetch: createFetch(mock) });
  const { text } = await generateText({ model: openai.chat('gpt-4o'), prompt: 'hi' });
  assert.equal(text, 'Hello from the AI SDK.');
  const anthropic = createAnthropic({ apiKey: 'k', baseURL: 'http://cuecard.invalid/v1', fetch: createFetch(mock) });
  const result = streamText({ model: anthropic('claude-test'), prompt: 'hi' });
  const parts = [];
  for await (const part of result.textStream) parts.push(part);
  assert.deepEqual(parts, ['Streamed', ' by', ' Anthropic', '.']);
  assert.equal(mock.entries()[1].request.metadata.endpoint, 'messages');
});

test('the same SDKs through the loopback server', { skip: process.env.CUECARD_BACKEND === 'wasm' && 'the wasm module has no server (api.test.mjs checks that Server says so)' }, async () => {
  const mock = MockModel.thatResponds('over the socket').thenResponds(async () => 'computed over the socket');
  const server = new Server(mock, { instant: true });
  try {
    const openai = new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL });
    assert.equal((await openai.chat.completions.create({ model: 'gpt-4o', messages: ask() })).choices[0].message.content, 'over the socket');
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.anthropicBaseURL });
    const message = await anthropic.messages.create({ model: 'claude-test', max_tokens: 10, messages: ask() });
    assert.equal(message.content[0].text, 'computed over the socket');
  } finally {
    server.stop();
  }
});

test('a delivery setting reaches the SDK as the same seeded reads through createFetch', async () => {
  const step = { text: 'Grüße aus Köln — 東京 🌧️', tool_calls: [{ name: 'get_weather', arguments: { city: 'Köln' } }] };
  const mock = MockModel.fromScenario({
    cuecard: 1, routes: [{ steps: [step, step] }], delivery: { seed: 3, max_chunk_bytes: 7, keepalives: true },
  });
  const fetch = createFetch(mock, { instant: true });
  const body = JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  const response = await fetch('http://cuecard.invalid/v1/chat/completions', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const reads = [];
  for await (const read of response.body) reads.push(Buffer.from(read));
  // Each write of the delivery is one read, cut inside UTF-8 sequences too: as the wire server sends them.
  assert.ok(reads.length > 20 && Math.max(...reads.map((r) => r.length)) <= 7);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  assert.ok(reads.some((_, i) => { try { decoder.decode(Buffer.concat(reads.slice(0, i + 1))); return false; } catch { return true; } }));
  assert.match(Buffer.concat(reads).toString(), /: keep-alive\n\n/);
  assert.equal(Number(response.headers.get('x-cuecard-delivery-seed')), mock.entries()[0].delivery_seed);
  const client = new OpenAI(openaiOptions(mock));
  let text = '';
  for await (const chunk of await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] })) {
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, 'Grüße aus Köln — 東京 🌧️');
});

test('the AI SDK openai and anthropic providers read 200 seeded deliveries each to the whole delivery\'s result', async () => {
  const step = {
    thinking: 'Zuerst das Wetter prüfen — 東京 too.',
    text: 'Grüße aus Köln — 東京 🌧️ "quoted"\nnew line.',
    tool_calls: [{ name: 'get_weather', arguments: { city: 'Köln', units: ['c', 'f'] } }, { name: 'get_time', arguments: { zone: 'Asia/東京' } }],
  };
  const tools = { get_weather: { inputSchema: jsonSchema({ type: 'object' }) }, get_time: { inputSchema: jsonSchema({ type: 'object' }) } };
  const read = async (delivery, provider) => {
    const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: [step] }], ...(delivery ? { delivery } : {}) });
    const fetch = createFetch(mock, { instant: true });
    const model = provider === 'openai'
      ? createOpenAI({ apiKey: 'k', baseURL: 'http://cuecard.invalid/v1', fetch }).chat('gpt-4o')
      : createAnthropic({ apiKey: 'k', baseURL: 'http://cuecard.invalid/v1', fetch })('claude-test');
    const result = streamText({ model, prompt: 'hi', tools, maxRetries: 0 });
    for await (const part of result.fullStream) if (part.type === 'error') throw part.error;
    return { text: await result.text, reasoning: await result.reasoningText, calls: (await result.toolCalls).map((c) => [c.toolName, c.input]), finish: await result.finishReason };
  };
  for (const provider of ['openai', 'anthropic']) {
    const expected = await read(undefined, provider);
    assert.match(JSON.stringify(expected), /Köln/);
    // @ai-sdk/anthropic reads a stream whose lines end in a lone `\r` whole, but finishes it 'interrupted'
    // (docs/concepts/delivery.md): no real server sends `\r` alone, so its rounds use `\n` and `\r\n`.
    const endings = provider === 'anthropic' ? ['lf', 'crlf'] : ['lf', 'crlf', 'cr'];
    for (let seed = 0; seed < 200; seed++) {
      const delivery = { seed, max_chunk_bytes: 1 + (seed % 24), keepalives: true, whitespace: true,
        line_ending: endings[seed % endings.length], variations: seed % 2 ? ['multiline_data'] : [] };
      assert.deepEqual(await read(delivery, provider), expected, `${provider} delivery seed ${seed}`);
    }
    if (provider === 'anthropic') {
      const lone = await read({ seed: 1, line_ending: 'cr' }, provider);
      assert.deepEqual(lone, { ...expected, finish: 'interrupted' });
    }
  }
});
