// Run by test/recording.test.mjs in a child vitest: a per-test recording, recorded with CUECARD_RECORD=once against
// the upstream in CUECARD_TEST_UPSTREAM, then replayed without it.
import { describe, expect, test } from 'vitest';
import OpenAI from 'openai';
import { openaiOptions } from 'cuecard';
import { cuecardRecording } from 'cuecard/vitest';

describe('weather', () => {
  test('asks in vitest', async () => {
    const recording = cuecardRecording({ upstream: process.env.CUECARD_TEST_UPSTREAM ?? 'http://127.0.0.1:9' });
    const client = new OpenAI(openaiOptions(recording, { apiKey: 'sk-test-vitest-0123456789abcdef', maxRetries: 0 }));
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in vitest?' }] });
    expect(reply.choices[0].message.content).toBe('Recorded answer.');
  });
});
