// The AI SDK's providers against cuecard's server (a real socket), as a conformance client beside the official
// SDKs: regressions of the wire-fidelity issue (#14) - Anthropic's cached input counted once, a tool call without
// arguments, a test-bug refusal that is not retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { MockModel, Server } from 'cuecard';

const NAPI_ONLY = process.env.CUECARD_BACKEND === 'wasm' && 'the wasm module has no server';

async function withServer(mock, run) {
  const server = new Server(mock, { instant: true });
  try {
    // The AI SDK's Anthropic provider appends only `/messages`: its base URL includes `/v1`.
    return await run({
      openai: createOpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL }),
      anthropic: createAnthropic({ apiKey: 'k', baseURL: `${server.anthropicBaseURL}/v1` }),
    });
  } finally {
    server.stop();
  }
}

test('Anthropic: cached input is counted once, whole and streamed (input 10 of which 3 cached, total 14)', { skip: NAPI_ONLY }, async () => {
  const step = { text: 'Cached.', usage: { input_tokens: 10, output_tokens: 4, cached_tokens: 3 } };
  const mock = MockModel.thatResponds(step).thenResponds(step).thenResponds(step);
  await withServer(mock, async ({ openai, anthropic }) => {
    const whole = await generateText({ model: anthropic('claude-test'), prompt: 'hi', maxRetries: 0 });
    assert.deepEqual([whole.usage.inputTokens, whole.usage.totalTokens], [10, 14]);
    assert.equal(whole.usage.inputTokenDetails?.cacheReadTokens ?? whole.usage.cachedInputTokens, 3);
    const streamed = streamText({ model: anthropic('claude-test'), prompt: 'hi', maxRetries: 0 });
    const usage = await streamed.usage;
    assert.deepEqual([usage.inputTokens, usage.totalTokens], [10, 14]);
    const viaOpenAI = await generateText({ model: openai.chat('gpt-4o'), prompt: 'hi', maxRetries: 0 });
    assert.deepEqual([viaOpenAI.usage.inputTokens, viaOpenAI.usage.totalTokens], [10, 14], 'the same as on OpenAI');
  });
});

test('Anthropic: a streamed tool call without arguments arrives as {} once', { skip: NAPI_ONLY }, async () => {
  const mock = MockModel.thatCallsTool('now', {}).thenResponds('It is noon.');
  const seen = [];
  await withServer(mock, async ({ anthropic }) => {
    const result = streamText({
      model: anthropic('claude-test'), prompt: 'time?', maxRetries: 0, stopWhen: stepCountIs(2),
      tools: { now: tool({ inputSchema: jsonSchema({ type: 'object', properties: {} }), execute: async (input) => { seen.push(input); return 'noon'; } }) },
    });
    assert.equal(await result.text, 'It is noon.');
  });
  assert.deepEqual(seen, [{}]);
});

test('an exhausted script is refused once with its code, not retried (a 422)', { skip: NAPI_ONLY }, async () => {
  const mock = MockModel.thatResponds('only one');
  await withServer(mock, async ({ openai, anthropic }) => {
    await generateText({ model: openai.chat('gpt-4o'), prompt: 'hi' });
    const started = Date.now();
    const error = await generateText({ model: openai.chat('gpt-4o'), prompt: 'again', maxRetries: 2 }).catch((e) => e);
    assert.equal(error.statusCode, 422, String(error));
    assert.match(error.message, /script/);
    const viaAnthropic = await generateText({ model: anthropic('claude-test'), prompt: 'again', maxRetries: 2 }).catch((e) => e);
    assert.equal(viaAnthropic.statusCode, 422, String(viaAnthropic));
    assert.ok(Date.now() - started < 1500, 'no back-off');
  });
  assert.deepEqual(mock.entries().map((e) => e.outcome), ['answered', 'exhausted', 'exhausted']);
});

test('Responses API: scripted thinking is a reasoning item, whole and streamed, with reasoning tokens', { skip: NAPI_ONLY }, async () => {
  const step = { thinking: 'Recall the capital.', text: 'Paris.', usage: { input_tokens: 5, output_tokens: 6 } };
  const mock = MockModel.thatResponds(step).thenResponds(step).thenResponds(step);
  await withServer(mock, async ({ openai }) => {
    const whole = await generateText({ model: openai.responses('gpt-4o'), prompt: 'Capital of France?', maxRetries: 0 });
    assert.equal(whole.reasoningText, 'Recall the capital.');
    assert.equal(whole.text, 'Paris.');
    assert.equal(whole.usage.outputTokenDetails?.reasoningTokens ?? whole.usage.reasoningTokens, 4); // 'Recall', ' the', ' capital', '.'
    const streamed = streamText({ model: openai.responses('gpt-4o'), prompt: 'Capital of France?', maxRetries: 0 });
    const kinds = [];
    for await (const part of streamed.fullStream) kinds.push(part.type);
    assert.equal(await streamed.reasoningText, 'Recall the capital.');
    assert.ok(kinds.indexOf('reasoning-delta') < kinds.indexOf('text-delta'), kinds.join(' '));
  });
  // The official openai SDK sees the same item.
  const official = MockModel.thatResponds(step);
  const server = new Server(official, { instant: true });
  try {
    const { default: OpenAI } = await import('openai');
    const response = await new OpenAI({ apiKey: 'k', baseURL: server.openaiBaseURL }).responses.create({ model: 'gpt-4o', input: 'hi' });
    assert.deepEqual(response.output[0], { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Recall the capital.' }] });
    assert.equal(response.output_text, 'Paris.');
    assert.equal(response.usage.output_tokens_details.reasoning_tokens, 4);
  } finally {
    server.stop();
  }
});

test('with no usage scripted, every endpoint reports the same estimate, whole and streamed', { skip: NAPI_ONLY }, async () => {
  const mock = MockModel.thatResponds('Hello, world!').thenRepeats();
  const seen = [];
  await withServer(mock, async ({ openai, anthropic }) => {
    for (const model of [openai.chat('gpt-4o'), openai.responses('gpt-4o'), anthropic('claude-test')]) {
      const whole = await generateText({ model, prompt: 'Hi', maxRetries: 0 });
      seen.push([whole.usage.inputTokens, whole.usage.outputTokens]);
      const streamed = streamText({ model, prompt: 'Hi', maxRetries: 0 });
      const usage = await streamed.usage;
      if (usage.inputTokens !== undefined) seen.push([usage.inputTokens, usage.outputTokens]);
    }
  });
  // "Hi" is 1 word-like token; "Hello, world!" is 4.
  assert.ok(seen.length >= 5, JSON.stringify(seen));
  for (const pair of seen) assert.deepEqual(pair, [1, 4], JSON.stringify(seen));
});

test('Responses API: a follow-up that refers to earlier output by id (item_reference) is journaled with that output', { skip: NAPI_ONLY }, async () => {
  const mock = MockModel.thatResponds({ thinking: 'Look it up.', toolCalls: [{ name: 'lookup', arguments: { q: 'Paris' } }] }).thenResponds('Found it.');
  await withServer(mock, async ({ openai }) => {
    const result = await generateText({
      model: openai.responses('gpt-4o'), prompt: 'Find Paris', maxRetries: 0, stopWhen: stepCountIs(2),
      tools: { lookup: tool({ inputSchema: jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }), execute: async () => 'a city' }) },
    });
    assert.equal(result.text, 'Found it.');
  });
  const sent = JSON.parse(mock.entries()[1].raw.body).input;
  const references = sent.filter((item) => item.type === 'item_reference').map((item) => item.id);
  const messages = mock.requests()[1].messages;
  assert.deepEqual(references, ['rs_1'], 'the AI SDK refers to its earlier reasoning by id');
  assert.equal(messages.find((m) => m.thinking)?.thinking, 'Look it up.', 'resolved from the journal');
  assert.equal(messages.find((m) => m.tool_calls?.length)?.tool_calls[0].name, 'lookup');
  assert.ok(!messages.some((m) => m.name?.startsWith('item_reference:')), JSON.stringify(messages));
});
