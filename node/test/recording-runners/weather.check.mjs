// Run by test/recording.test.mjs in a child node --test: a per-test recording (see weather.check.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { cuecardRecording, openaiOptions } from 'cuecard';

test('asks in node:test', async (t) => {
  const recording = cuecardRecording(t, { upstream: process.env.CUECARD_TEST_UPSTREAM ?? 'http://127.0.0.1:9' });
  const client = new OpenAI(openaiOptions(recording, { apiKey: 'sk-test-node-0123456789abcdef', maxRetries: 0 }));
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in node:test?' }] });
  assert.equal(reply.choices[0].message.content, 'Recorded answer.');
});
