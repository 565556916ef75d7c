// Seeded chaos from Node: the same 10,000 requests fail as in the Rust core and in Python (the golden
// `tests/golden/chaos-10k.json`), and the official SDK's own retries carry a test through the failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { MockModel, ProviderError, InvalidScenarioError, InvalidArgumentError, openaiOptions } from 'cuecard';

const golden = JSON.parse(readFileSync(new URL('../../tests/golden/chaos-10k.json', import.meta.url), 'utf8'));

const journalLine = (mock) => mock.entries().map((entry) => {
  if (!entry.chaos) return String(entry.step);
  assert.equal(entry.step, null);
  assert.equal(entry.outcome, 'failed');
  return entry.error.kind[0];
}).join('');

test('10,000 requests fail as in every other language', () => {
  const mock = MockModel.fromScenario(golden.scenario);
  const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
  let failures = 0;
  for (let i = 0; i < golden.requests; i++) {
    try {
      mock.chatSync(request);
    } catch (error) {
      assert.ok(error instanceof ProviderError, String(error));
      failures++;
    }
  }
  assert.equal(journalLine(mock), golden.journal);
  assert.equal(failures, [...golden.journal].filter((c) => !/\d/.test(c)).length);
});

test('the SDK retries through chaos and every step is answered in order', async () => {
  const mock = MockModel.fromScenario({
    cuecard: 1, seed: 7,
    chaos: { rates: { rate_limited: 0.2, server_error: 0.1 }, retry_after_ms: 1 },
    routes: [{ steps: Array.from({ length: 30 }, (_, n) => ({ text: `answer ${n}` })) }],
  });
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 10 }));
  for (let n = 0; n < 30; n++) {
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(reply.choices[0].message.content, `answer ${n}`);
  }
  const chaos = mock.entries().filter((e) => e.chaos);
  assert.ok(chaos.length >= 3 && chaos.length <= 20, `${chaos.length} chaos failures`);
  assert.deepEqual(mock.entries().filter((e) => !e.chaos).map((e) => e.step), Array.from({ length: 30 }, (_, n) => n));
});

test('a bad chaos setting names the field', () => {
  assert.throws(() => MockModel.fromScenario({ cuecard: 1, chaos: { rates: { flaky: 0.1 } }, routes: [{ steps: ['x'] }] }),
    (error) => error instanceof InvalidScenarioError && /chaos\.rates\.flaky/.test(error.message));
  assert.throws(() => new MockModel().configure({ chaos: { rates: { timeout: 2 } } }), InvalidArgumentError);
});
