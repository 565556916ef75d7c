// The book's example: the official openai Node SDK, unmodified, against `cuecard serve` (CI runs it with node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';

const CUECARD = process.env.CUECARD_BIN ?? 'cuecard';

test('the openai SDK against cuecard serve', async () => {
  const server = spawn(CUECARD, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [firstLine] = await createInterface({ input: server.stdout })[Symbol.asyncIterator]().next().then((r) => [r.value]);
    const baseURL = firstLine.split(/\s+/).pop(); // "OpenAI base URL:    http://127.0.0.1:PORT/v1"
    const client = new OpenAI({ baseURL, apiKey: 'test' });
    // The embedded default scenario greets first, with its thinking hidden on this protocol.
    const reply = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(reply.choices[0].message.content, 'Hello! I am cuecard, a scripted stand-in for an LLM.');
    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'More' }], stream: true });
    const tokens = [];
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) tokens.push(chunk.choices[0].delta.content);
    assert.deepEqual(tokens.slice(0, 3), ['Every', ' answer', ' comes']);
  } finally {
    server.kill('SIGTERM');
  }
});
