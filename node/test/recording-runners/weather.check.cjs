// Run by test/recording.test.mjs in a child jest: a per-test recording (see weather.check.ts).
const OpenAI = require('openai');
const { openaiOptions } = require('cuecard');
const { useCuecardRecording } = require('cuecard/jest');

const cuecard = useCuecardRecording({ upstream: process.env.CUECARD_TEST_UPSTREAM ?? 'http://127.0.0.1:9' });
test('asks in jest', async () => {
  const client = new OpenAI(openaiOptions(cuecard.recording, { apiKey: 'sk-test-jest-0123456789abcdef', maxRetries: 0 }));
  const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in jest?' }] });
  expect(reply.choices[0].message.content).toBe('Recorded answer.');
});
