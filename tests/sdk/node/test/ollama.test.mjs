// The official `ollama` JS SDK, unmodified, against `cuecard serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Ollama } from 'ollama';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const MODEL = 'qwen3';
const client = () => new Ollama({ host: server.anthropicURL });
const ask = (text = 'Say hello') => [{ role: 'user', content: text }];

test('chat whole, with the counters, journaled as ollama_chat with stream false', async () => {
  await server.load(scenario({ text: 'Hello, world!', usage: { input_tokens: 5, output_tokens: 4 } }));
  const response = await client().chat({ model: MODEL, messages: ask() });
  assert.equal(response.message.content, 'Hello, world!');
  assert.deepEqual([response.done, response.done_reason, response.prompt_eval_count, response.eval_count], [true, 'stop', 5, 4]);
  const [entry] = await server.entries();
  assert.deepEqual([entry.request.metadata.endpoint, entry.request.stream ?? false], ['ollama_chat', false]);
});

test('a stream is the word-like tokens, then the done line the SDK waits for', async () => {
  await server.load(scenario({ thinking: 'Hm.', text: 'Hello, world!' }));
  const thinking = [];
  const pieces = [];
  let done;
  for await (const part of await client().chat({ model: MODEL, messages: ask(), stream: true, think: true })) {
    if (part.message.thinking) thinking.push(part.message.thinking);
    if (part.message.content) pieces.push(part.message.content);
    done = part.done;
  }
  assert.deepEqual([thinking.join(''), pieces], ['Hm.', ['Hello', ',', ' world', '!']]);
  assert.equal(done, true);
});

test('a tool loop with the tool result sent back', async () => {
  await server.load(scenario({ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, 'It is 21 degrees.'));
  const tools = [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const messages = ask('Weather in Paris?');
  const first = await client().chat({ model: MODEL, messages, tools });
  assert.deepEqual(first.message.tool_calls.map((c) => [c.function.name, c.function.arguments]), [['get_weather', { city: 'Paris' }]]);
  messages.push(first.message, { role: 'tool', tool_name: 'get_weather', content: '21C' });
  assert.equal((await client().chat({ model: MODEL, messages, tools })).message.content, 'It is 21 degrees.');
  const second = (await server.entries())[1].request;
  assert.deepEqual(second.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
});

test('errors are ResponseError with the status; an error line mid-stream is a plain Error; nothing is retried', async () => {
  await server.load(scenario({ fail: { kind: 'rate_limited' } }, { text: 'Partial answer', fail_after: { kind: 'server_error', message: 'runner crashed' } }));
  await assert.rejects(client().chat({ model: MODEL, messages: ask() }), (e) => e.name === 'ResponseError' && e.status_code === 429 && e.error === 'Rate limit exceeded');
  const pieces = [];
  await assert.rejects(async () => {
    for await (const part of await client().chat({ model: MODEL, messages: ask(), stream: true })) pieces.push(part.message.content);
  }, (e) => e.message === 'runner crashed');
  assert.deepEqual(pieces, ['Partial', ' answer']);
  assert.equal((await server.entries()).length, 2);
});

test('an exhausted script, generate, embeddings and the model list', async () => {
  await server.load({ cuecard: 1, routes: [{ match: { model: 'llama3.2' }, steps: ['Rayleigh scattering.'] }, { steps: ['only'] }] });
  await client().chat({ model: MODEL, messages: ask() });
  await assert.rejects(client().chat({ model: MODEL, messages: ask('again') }), (e) => e.status_code === 422 && /script exhausted/.test(e.error));
  assert.equal((await client().generate({ model: 'llama3.2', prompt: 'Why is the sky blue?' })).response, 'Rayleigh scattering.');
  const embedded = await client().embed({ model: 'nomic-embed-text', input: ['a', 'b'], dimensions: 8 });
  assert.deepEqual(embedded.embeddings.map((e) => e.length), [8, 8]);
  assert.deepEqual((await client().list()).models.map((m) => m.model), ['llama3.2', 'cuecard-mock']);
  assert.deepEqual((await client().show({ model: 'llama3.2' })).model_info, {});
});
