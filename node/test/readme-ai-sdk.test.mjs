// The book's example (Node): the AI SDK's generateText runs a tool loop against cuecard/ai's model, no fetch at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateText, tool, stepCountIs } from 'ai';
import { z } from 'zod';
import { MockModel, assertThat } from 'cuecard';
import { cuecardModel } from 'cuecard/ai';

test('an AI SDK tool loop against a scripted model', async () => {
  const mock = MockModel.thatCallsTool('get_weather', { city: 'Oslo' }).thenResponds('It is cold in Oslo.');
  const result = await generateText({
    model: cuecardModel(mock),
    prompt: 'Weather in Oslo?',
    tools: {
      get_weather: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, celsius: -3 }),
      }),
    },
    stopWhen: stepCountIs(3),
  });
  assert.equal(result.text, 'It is cold in Oslo.');
  // What the AI SDK sent is in the journal: the tool result went back as a tool message.
  assert.equal(mock.lastRequest().messages.at(-1).content[0].text, '{"city":"Oslo","celsius":-3}');
  assertThat(mock).receivedRequests(2).allStepsUsed().lastRequest().offersTool('get_weather');
});
