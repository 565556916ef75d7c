// The book's example (Node, TypeScript): script a model, drive the official openai SDK with it in-process, check what
// happened. CI runs it with node --test (Node 24 strips the types) and type-checks it with tsc --strict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { MockModel, assertThat, openaiOptions, ProviderError } from 'cuecard';

test('script a model in Node', async () => {
  const mock = MockModel.thatFails('rate_limited', { retryAfterMs: 20 })
    .thenCallsTool('get_weather', { city: 'Paris' })
    .thenResponds(async (request) => `It is 22 °C in Paris (${request.messages.length} messages seen).`);

  // The official SDK, unmodified, answered in-process: its own retry absorbs the 429. The header names the
  // operation for the checks.
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 2, defaultHeaders: { 'x-cuecard-operation': 'weather' } }));
  const first = await client.chat.completions.create({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Paris?' }],
  });
  const call = first.choices[0].message.tool_calls?.[0];
  assert.equal(call?.type === 'function' && call.function.name, 'get_weather');

  // Streams are async iterables of word-like tokens.
  const pieces: string[] = [];
  for await (const text of mock.stream('And tomorrow?').textStream()) pieces.push(text);
  assert.deepEqual(pieces.slice(0, 4), ['It', ' is', ' ', '22']);

  assertThat(mock).receivedRequests(3).requestAt(0).hasModel('gpt-4o').hasLastUserMessageContaining('Paris');
  assertThat(mock).whenCalled('weather').wasCalledTimes(2).andRetried(1).andObservedFailure(ProviderError);
  assertThat(mock).scriptFullyUsed();
});
