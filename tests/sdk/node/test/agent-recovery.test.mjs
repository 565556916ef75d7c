// An agent recovering from faults inside the answer (issue #54): the OpenAI Agents SDK (@openai/agents) runs 100
// times against `cuecard serve` with `answer_faults` drawing tool-call arguments that are not JSON at a seeded rate.
// The faulted runs are the ones the core's draw gives (tests/golden/agent-recovery-100.json, also what the Python
// suite finds); in each, the SDK sends its tool error back instead of throwing, and the model's next answer ends it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool } from '@openai/agents';
import { startServer } from './cuecard.mjs';

const GOLDEN = JSON.parse(readFileSync(new URL('../../../golden/agent-recovery-100.json', import.meta.url), 'utf8'));
// What the Node Agents SDK sends the model when a tool's arguments do not parse (the Python one says "An error
// occurred while running the tool. Please try again.").
const TOOL_ERROR = 'An error occurred while parsing tool arguments. Please try again with valid JSON.';

let server;
before(async () => { server = await startServer(); setTracingDisabled(true); });
after(async () => { await server.stop(); });

const text = (content) => (typeof content === 'string' ? content : content.map((part) => part.text).join(''));

test('the Agents SDK recovers from seeded invalid arguments in the golden runs', async () => {
  await server.load(GOLDEN.scenario);
  const called = [];
  const getWeather = tool({
    name: 'get_weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => { called.push(city); return `Sunny in ${city}.`; },
  });
  const client = new OpenAI({ baseURL: server.openaiURL, apiKey: 'test-key', maxRetries: 0 });
  const agent = new Agent({ name: 'forecaster', instructions: 'Use the tool.', tools: [getWeather],
    model: new OpenAIChatCompletionsModel(client, 'gpt-4o') });
  for (let i = 0; i < GOLDEN.runs; i++) {
    assert.equal((await run(agent, 'Weather in Paris?')).finalOutput, 'It is sunny in Paris.');
  }
  const entries = await server.entries();
  assert.equal(entries.length, 2 * GOLDEN.runs);
  const faulted = entries.filter((e) => e.answer_fault === 'invalid_arguments').map((e) => Math.floor(e.index / 2));
  assert.deepEqual(faulted, GOLDEN.faulted_runs);
  // The tool ran only where its arguments parsed; where they did not, the SDK sent its error back as the output.
  assert.equal(called.length, GOLDEN.runs - faulted.length);
  for (let runIndex = 0; runIndex < GOLDEN.runs; runIndex++) {
    const output = entries[2 * runIndex + 1].request.messages.at(-1);
    assert.equal(output.role, 'tool');
    assert.equal(text(output.content), faulted.includes(runIndex) ? TOOL_ERROR : 'Sunny in Paris.');
  }
  const response = await fetch(`${server.anthropicURL}/_cuecard/checks`, { method: 'POST', body: JSON.stringify([
    { check: 'answer_fault', kind: 'invalid_arguments', times: faulted.length, recovered: true },
    { check: 'all_steps_used' }, { check: 'no_unexpected_requests' }]) });
  assert.deepEqual(await response.json(), { ok: true, ran: 3 });
});
