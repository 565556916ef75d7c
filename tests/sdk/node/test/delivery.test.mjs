// The official `openai` and `@anthropic-ai/sdk` Node SDKs and the AI SDK (`@ai-sdk/google`), unmodified, reading
// streams that `cuecard serve` delivers cut at seeded byte positions (inside UTF-8 sequences, `data:` lines and
// `\r\n` pairs), with keep-alives, JSON whitespace and every line end the protocol's clients accept: 200 seeded
// deliveries per protocol parse to the same result as the whole delivery (`delivery` setting, docs/concepts/delivery.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { streamText, jsonSchema } from 'ai';
import { startServer } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const ROUNDS = 200;
const STEP = {
  thinking: 'Zuerst das Wetter prüfen — 東京 too.',
  text: 'Grüße aus Köln — 東京 🌧️ "quoted"\nnew line.',
  tool_calls: [
    { name: 'get_weather', arguments: { city: 'Köln', units: ['c', 'f'] } },
    { name: 'get_time', arguments: { zone: 'Asia/東京' } },
  ],
};
const NAMES = ['get_weather', 'get_time'];

const load = (delivery) => server.load({ cuecard: 1, seed: 2026, routes: [{ steps: [STEP] }], ...(delivery ? { delivery } : {}) });
const deliveryFor = (round) => ({
  seed: round, max_chunk_bytes: 1 + (round % 24), keepalives: true, whitespace: true,
  line_ending: ['lf', 'crlf', 'cr'][round % 3], variations: round % 2 ? ['multiline_data'] : [],
});

async function chatResult() {
  const client = new OpenAI({ baseURL: server.openaiURL, apiKey: 'test-key', maxRetries: 0 });
  const tools = NAMES.map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
  const stream = client.chat.completions.stream({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], tools, stream_options: { include_usage: true },
  });
  const final = await stream.finalChatCompletion();
  const [choice] = final.choices;
  return {
    text: choice.message.content,
    calls: choice.message.tool_calls.map((c) => [c.function.name, c.function.arguments]),
    finish: choice.finish_reason,
    tokens: final.usage.completion_tokens,
  };
}

async function responsesResult() {
  const client = new OpenAI({ baseURL: server.openaiURL, apiKey: 'test-key', maxRetries: 0 });
  const tools = NAMES.map((name) => ({ type: 'function', name, parameters: { type: 'object' }, strict: false }));
  const stream = client.responses.stream({ model: 'gpt-4o', input: 'hi', tools });
  const final = await stream.finalResponse();
  return {
    items: final.output.map((item) => item.type === 'message' ? ['message', item.content.map((p) => p.text).join('')]
      : item.type === 'function_call' ? ['function_call', item.name, item.arguments] : [item.type]),
    status: final.status,
    tokens: final.usage.output_tokens,
  };
}

async function anthropicResult() {
  const client = new Anthropic({ baseURL: server.anthropicURL, apiKey: 'test-key', maxRetries: 0 });
  const stream = client.messages.stream({
    model: 'claude-test-model', max_tokens: 4096, messages: [{ role: 'user', content: 'hi' }],
    thinking: { type: 'enabled', budget_tokens: 1024 },
    tools: NAMES.map((name) => ({ name, input_schema: { type: 'object' } })),
  });
  const final = await stream.finalMessage();
  return {
    blocks: final.content.map((b) => b.type === 'thinking' ? ['thinking', b.thinking, b.signature]
      : b.type === 'text' ? ['text', b.text] : [b.type, b.name, b.input]),
    stop: final.stop_reason,
    tokens: final.usage.output_tokens,
  };
}

async function aiSdkGoogleResult() {
  const google = createGoogleGenerativeAI({ apiKey: 'test-key', baseURL: `${server.anthropicURL}/v1beta` });
  const tools = Object.fromEntries(NAMES.map((name) => [name, { inputSchema: jsonSchema({ type: 'object' }) }]));
  const result = streamText({ model: google('gemini-2.5-flash'), prompt: 'hi', tools, maxRetries: 0 });
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
  }
  return {
    text: await result.text,
    calls: (await result.toolCalls).map((c) => [c.toolName, c.input]),
    finish: await result.finishReason,
  };
}

for (const [name, read] of [['openai chat .stream()', chatResult], ['openai responses .stream()', responsesResult],
  ['anthropic messages.stream()', anthropicResult], ['AI SDK @ai-sdk/google streamText', aiSdkGoogleResult]]) {
  test(`${name}: ${ROUNDS} seeded deliveries parse to the whole delivery's result`, async () => {
    await load();
    const expected = await read();
    assert.match(JSON.stringify(expected), /Köln/);
    const seeds = new Set();
    for (let round = 0; round < ROUNDS; round++) {
      await load(deliveryFor(round));
      assert.deepEqual(await read(), expected, `delivery seed ${round}`);
      const [entry] = await server.entries();
      seeds.add(entry.delivery_seed);
    }
    assert.equal(seeds.size, ROUNDS);
  });
}
