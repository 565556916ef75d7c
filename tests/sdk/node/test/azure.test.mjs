// openai-node's `AzureOpenAI`, unmodified, against `cuecard serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI, { AzureOpenAI } from 'openai';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const azure = (options = {}) => new AzureOpenAI({ endpoint: server.anthropicURL, apiVersion: '2024-10-21', apiKey: 'test-key', ...options });
const ask = (text = 'Say hello') => [{ role: 'user', content: text }];

test('the deployment is the model, whole and streamed; a trailing-slash endpoint (//openai) works too', async () => {
  await server.load({ cuecard: 1, routes: [{ match: { model: 'my-gpt' }, steps: ['Hello from Azure.', { text: 'Hello, world!' }, 'slash'] }] });
  const completion = await azure().chat.completions.create({ model: 'my-gpt', messages: ask() });
  assert.deepEqual([completion.choices[0].message.content, completion.model], ['Hello from Azure.', 'my-gpt']);
  const pieces = [];
  for await (const chunk of await azure({ deployment: 'my-gpt' }).chat.completions.create({ model: 'x', messages: ask(), stream: true })) {
    if (chunk.choices[0]?.delta?.content) pieces.push(chunk.choices[0].delta.content);
  }
  assert.deepEqual(pieces, ['Hello', ',', ' world', '!']);
  const slashed = new AzureOpenAI({ endpoint: `${server.anthropicURL}/`, apiVersion: '2024-10-21', apiKey: 'k' });
  assert.equal((await slashed.chat.completions.create({ model: 'my-gpt', messages: ask() })).choices[0].message.content, 'slash');
  // openai-node 7.59 trims the endpoint's slash itself; older releases sent `//openai/...`, which cuecard also
  // serves (tests/vectors/wire.json, azure-openai).
  const paths = (await server.entries()).map((e) => e.raw.path.replace(/^\/\//, '/'));
  assert.deepEqual(paths, Array(3).fill('/openai/deployments/my-gpt/chat/completions'));
});

test('a content filter and a rate limit in Azure\'s shape; the SDK retries the 429', async () => {
  await server.load(scenario({ fail: { kind: 'content_filtered' } }, { fail: { kind: 'rate_limited', retry_after_ms: 10 } }, 'recovered'));
  await assert.rejects(azure().chat.completions.create({ model: 'my-gpt', messages: ask() }),
    (e) => e instanceof OpenAI.BadRequestError && e.code === 'content_filter' && e.error.innererror.code === 'ResponsibleAIPolicyViolation');
  const completion = await azure({ maxRetries: 2 }).chat.completions.create({ model: 'my-gpt', messages: ask() });
  assert.equal(completion.choices[0].message.content, 'recovered');
  assert.deepEqual(await server.outcomes(), ['failed', 'failed', 'answered']);
});

test('embeddings on a deployment, and the plain client on /openai/v1', async () => {
  await server.load(scenario('v1 answer'));
  const embedded = await azure().embeddings.create({ model: 'my-embedder', input: 'hi', dimensions: 4 });
  assert.equal(embedded.data[0].embedding.length, 4);
  const v1 = new OpenAI({ baseURL: `${server.anthropicURL}/openai/v1/`, apiKey: 'k' });
  assert.equal((await v1.chat.completions.create({ model: 'gpt-4o', messages: ask() })).choices[0].message.content, 'v1 answer');
});
