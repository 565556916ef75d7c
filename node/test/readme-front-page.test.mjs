// The README's Node example (the front page's): the official openai SDK against a scripted model, in-process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { MockModel, assertThat, openaiOptions } from 'cuecard';

test('the SDK retries a rate limit', async () => {
  const mock = MockModel.thatFails('rate_limited', { retryAfterMs: 1 }).thenResponds('Hello!');
  const client = new OpenAI(openaiOptions(mock)); // the real SDK, answered by cuecard's wire encoders
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
  assert.equal(reply.choices[0].message.content, 'Hello!');
  assertThat(mock).receivedRequests(2).scriptFullyUsed();
});
