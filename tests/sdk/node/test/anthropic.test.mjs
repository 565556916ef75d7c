// The official `@anthropic-ai/sdk`, unmodified, against `cuecard serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const client = (options = {}) => new Anthropic({ baseURL: server.anthropicURL, apiKey: 'test-key', ...options });
const ask = (text = 'Say hello') => [{ role: 'user', content: text }];
const params = { model: 'claude-test-model', max_tokens: 100, messages: ask() };

test('text, whole', async () => {
  await server.load(scenario({ text: 'Hello, world!', usage: { input_tokens: 5, output_tokens: 4 } }));
  const message = await client().messages.create(params);
  assert.equal(message.content[0].text, 'Hello, world!');
  assert.equal(message.stop_reason, 'end_turn');
  assert.deepEqual([message.usage.input_tokens, message.usage.output_tokens], [5, 4]);
});

test('countTokens is the input the same message reports', async () => {
  await server.load(scenario('Sunny.'));
  const body = { model: 'claude-test-model', system: 'You are terse.', messages: [{ role: 'user', content: 'Weather in Paris?' }] };
  const counted = await client().messages.countTokens(body);
  const sent = await client().messages.create({ ...body, max_tokens: 50 });
  assert.ok(counted.input_tokens > 0);
  assert.equal(counted.input_tokens, sent.usage.input_tokens);
});

test('a message batch: create, poll until ended, read the results', async () => {
  await server.load(scenario('Paris.', { fail: { kind: 'overloaded' } }));
  const sdk = client({ maxRetries: 0 });
  let batch = await sdk.messages.batches.create({ requests: [
    { custom_id: 'capital', params: { ...params, messages: ask('Capital of France?') } },
    { custom_id: 'busy', params },
  ] });
  assert.equal(batch.processing_status, 'in_progress');
  while (batch.processing_status !== 'ended') batch = await sdk.messages.batches.retrieve(batch.id);
  assert.deepEqual([batch.request_counts.succeeded, batch.request_counts.errored], [1, 1]);
  const results = {};
  for await (const entry of await sdk.messages.batches.results(batch.id)) results[entry.custom_id] = entry.result;
  assert.equal(results.capital.message.content[0].text, 'Paris.');
  assert.equal(results.busy.error.error.type, 'overloaded_error');
});

test('streamed text deltas are exactly the word-like tokens', async () => {
  await server.load(scenario({ text: 'Hello, world! Order 12345' }));
  const stream = await client().messages.create({ ...params, stream: true });
  const pieces = [];
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') pieces.push(event.delta.text);
  }
  assert.deepEqual(pieces, ['Hello', ',', ' world', '!', ' Order', ' ', '123', '45']);
});

test('thinking and tool use through messages.stream and its final message', async () => {
  await server.load(scenario({ thinking: 'Need the weather.', text: 'Checking.', tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }));
  const stream = client().messages.stream({ ...params, thinking: { type: 'enabled', budget_tokens: 1024 },
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] });
  const final = await stream.finalMessage();
  assert.deepEqual(final.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
  assert.equal(final.content[0].thinking, 'Need the weather.');
  assert.deepEqual(final.content[2].input, { city: 'Paris' });
  assert.equal(final.stop_reason, 'tool_use');
});

test('529 overloaded, then success with the SDK retry', async () => {
  await server.load(scenario({ fail: { kind: 'overloaded', retry_after_ms: 1 } }, { text: 'Back.' }));
  const message = await client({ maxRetries: 2 }).messages.create(params);
  assert.equal(message.content[0].text, 'Back.');
  assert.deepEqual(await server.outcomes(), ['failed', 'answered']);
  await server.load(scenario({ fail: { kind: 'overloaded' } }));
  await assert.rejects(client({ maxRetries: 0 }).messages.create(params), (error) => {
    assert.ok(error instanceof Anthropic.InternalServerError);
    assert.equal(error.status, 529);
    assert.equal(error.error.error.type, 'overloaded_error');
    return true;
  });
});

test('401 after one attempt', async () => {
  await server.load(scenario({ fail: { kind: 'unauthorized' } }));
  await assert.rejects(client({ maxRetries: 2 }).messages.create(params), Anthropic.AuthenticationError);
  assert.deepEqual(await server.outcomes(), ['failed']);
});

test('a stream without message_stop makes finalMessage reject', async () => {
  await server.load(scenario({ text: 'Partial', fail_after: { kind: 'server_error' }, fail_after_as: 'clean_end' }));
  await assert.rejects(client().messages.stream(params).finalMessage(), /stream ended without producing a Message/);
});

test('an error event mid-stream rejects with the provider error', async () => {
  await server.load(scenario({ text: 'Partial', fail_after: { kind: 'overloaded' } }));
  await assert.rejects(client().messages.stream(params).finalMessage(), (error) => {
    assert.ok(error instanceof Anthropic.APIError);
    assert.match(String(error.message), /overloaded_error/);
    return true;
  });
});
