// The official `openai` Node SDK, unmodified, against `cuecard serve`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const client = (options = {}) => new OpenAI({ baseURL: server.openaiURL, apiKey: 'test-key', ...options });
const ask = (text = 'Say hello') => [{ role: 'user', content: text }];

test('legacy completions, whole and streamed', async () => {
  await server.load(scenario('This is a test.', 'Once upon a time.'));
  const whole = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test' });
  assert.deepEqual([whole.object, whole.choices[0].text, whole.choices[0].finish_reason], ['text_completion', 'This is a test.', 'stop']);
  const stream = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'Tell a story', stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  assert.equal(text, 'Once upon a time.');
});

test('moderations, images, speech and transcription beside chat', async () => {
  await server.load({ cuecard: 1, routes: [
    { match: { endpoint: 'moderations' }, steps: [{ flagged: ['violence'] }] },
    { steps: ['The chat answer.'] },
  ] });
  const sdk = client();
  const verdict = await sdk.moderations.create({ input: 'I will hurt you.' });
  assert.deepEqual([verdict.results[0].flagged, verdict.results[0].categories.violence], [true, true]);
  const images = await sdk.images.generate({ model: 'gpt-image-1', prompt: 'A red fox', size: '1024x1536' });
  const png = Buffer.from(images.data[0].b64_json, 'base64');
  assert.deepEqual([png.subarray(1, 4).toString(), png.readUInt32BE(16), png.readUInt32BE(20)], ['PNG', 1024, 1536]);
  const speech = await sdk.audio.speech.create({ model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'See you at noon.', response_format: 'wav' });
  const wav = Buffer.from(await speech.arrayBuffer());
  assert.equal(wav.subarray(0, 4).toString(), 'RIFF');
  const file = await OpenAI.toFile(wav, 'reply.wav', { type: 'audio/wav' });
  const heard = await sdk.audio.transcriptions.create({ model: 'gpt-4o-transcribe', file });
  assert.equal(heard.text, 'See you at noon.');
  const chat = await sdk.chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(chat.choices[0].message.content, 'The chat answer.');
  const endpoints = (await server.journal()).entries.map((entry) => entry.request.metadata.endpoint);
  assert.deepEqual(endpoints, ['moderations', 'images', 'speech', 'transcriptions', 'chat_completions']);
});

test('a batch end to end: upload, create, poll, download the output', async () => {
  await server.load(scenario('First answer.', 'Second answer.'));
  const sdk = client();
  const line = (id, question) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions',
    body: { model: 'gpt-4o-mini', messages: ask(question) } });
  const input = await OpenAI.toFile(Buffer.from(`${line('a', 'One?')}\n${line('b', 'Two?')}\n`), 'input.jsonl');
  const file = await sdk.files.create({ file: input, purpose: 'batch' });
  let batch = await sdk.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  const statuses = [batch.status];
  while (batch.status !== 'completed') {
    batch = await sdk.batches.retrieve(batch.id);
    statuses.push(batch.status);
  }
  assert.deepEqual(statuses, ['validating', 'in_progress', 'finalizing', 'completed']);
  const output = (await (await sdk.files.content(batch.output_file_id)).text()).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(output.map((l) => [l.custom_id, l.response.body.choices[0].message.content]),
    [['a', 'First answer.'], ['b', 'Second answer.']]);
});

test('text, whole, with estimated usage', async () => {
  await server.load({ ...scenario({ text: 'Hello, world!' }), usage: 'estimate' });
  const completion = await client().chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(completion.choices[0].message.content, 'Hello, world!');
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.deepEqual([completion.usage.prompt_tokens, completion.usage.completion_tokens], [2, 4]);
  assert.equal(completion._request_id, 'req_1');
});

test('streamed chunks are exactly the word-like tokens', async () => {
  await server.load(scenario({ text: 'Hello, world! Order 12345' }));
  const stream = await client().chat.completions.create({ model: 'gpt-4o', messages: ask(), stream: true });
  const pieces = [];
  for await (const chunk of stream) {
    const content = chunk.choices[0]?.delta?.content;
    if (content) pieces.push(content);
  }
  assert.deepEqual(pieces, ['Hello', ',', ' world', '!', ' Order', ' ', '123', '45']);
});

test('tool calls through the stream helper, with the usage chunk last', async () => {
  const call = { name: 'get_weather', arguments: { city: 'Paris' } };
  await server.load(scenario({ tool_calls: [call, { name: 'get_time' }], usage: { input_tokens: 3, output_tokens: 9 } }));
  const stream = client().chat.completions.stream({
    model: 'gpt-4o', messages: ask('Weather?'), stream_options: { include_usage: true },
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
  });
  const final = await stream.finalChatCompletion();
  const calls = final.choices[0].message.tool_calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]);
  assert.deepEqual(calls, [['call_1', 'get_weather', { city: 'Paris' }], ['call_2', 'get_time', {}]]);
  assert.equal(final.choices[0].finish_reason, 'tool_calls');
  assert.equal(final.usage.total_tokens, 12);
});

test('429 with retry-after-ms is retried by the SDK', async () => {
  await server.load(scenario({ fail: { kind: 'rate_limited', retry_after_ms: 1 } }, { text: 'Recovered.' }));
  const completion = await client({ maxRetries: 2 }).chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(completion.choices[0].message.content, 'Recovered.');
  assert.deepEqual(await server.outcomes(), ['failed', 'answered']);
});

test('rate-limit headers on every reply, and an enforced limit the SDK waits out', async () => {
  // 60,000 tokens a minute drain one a millisecond: the first request reserves 59,992 (its 6 characters over
  // four, rounded up, plus max_tokens); the second, reserving 102, is told to wait 94 ms, and the SDK does.
  const limits = { requests_per_minute: 100, tokens_per_minute: 60000, enforce: true };
  await server.load({ ...scenario({ text: 'One.' }, { text: 'Two.' }), rate_limits: limits });
  const first = await client().chat.completions
    .create({ model: 'gpt-4o', messages: ask('Say hi'), max_tokens: 59990 }).withResponse();
  assert.equal(first.response.headers.get('x-ratelimit-remaining-tokens'), '8');
  assert.equal(first.response.headers.get('x-ratelimit-remaining-requests'), '99');
  assert.equal(first.response.headers.get('x-ratelimit-reset-requests'), '600ms');
  const second = await client({ maxRetries: 1 }).chat.completions
    .create({ model: 'gpt-4o', messages: ask('Say hi'), max_tokens: 100 });
  assert.equal(second.choices[0].message.content, 'Two.');
  assert.deepEqual(await server.outcomes(), ['answered', 'failed', 'answered']);
});

test('401 is an AuthenticationError after one attempt', async () => {
  await server.load(scenario({ fail: { kind: 'unauthorized' } }));
  await assert.rejects(client({ maxRetries: 2 }).chat.completions.create({ model: 'gpt-4o', messages: ask() }), (error) => {
    assert.ok(error instanceof OpenAI.AuthenticationError);
    assert.equal(error.status, 401);
    return true;
  });
  assert.deepEqual(await server.outcomes(), ['failed']);
});

test('500 twice then success', async () => {
  const fail = { fail: { kind: 'server_error', retry_after_ms: 1 } };
  await server.load(scenario(fail, fail, { text: 'Third time lucky.' }));
  const completion = await client({ maxRetries: 2 }).chat.completions.create({ model: 'gpt-4o', messages: ask() });
  assert.equal(completion.choices[0].message.content, 'Third time lucky.');
  assert.deepEqual(await server.outcomes(), ['failed', 'failed', 'answered']);
});

test('a cut stream rejects with the transport error after the tokens', async () => {
  await server.load(scenario({ text: 'Partial answer', fail_after: { kind: 'connection_reset' } }));
  const stream = await client().chat.completions.create({ model: 'gpt-4o', messages: ask(), stream: true });
  const received = [];
  await assert.rejects(async () => {
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (content) received.push(content);
    }
  }, (error) => !(error instanceof OpenAI.APIError && error.status));
  assert.deepEqual(received, ['Partial', ' answer']);
});

test('Responses: whole and the stream helper', async () => {
  await server.load(scenario({ text: 'Hi there!' }, { text: 'Streamed reply.' }));
  const response = await client().responses.create({ model: 'gpt-4.1', input: 'Hello' });
  assert.equal(response.output_text, 'Hi there!');
  const stream = client().responses.stream({ model: 'gpt-4.1', input: 'Hello' });
  const deltas = [];
  stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
  const final = await stream.finalResponse();
  assert.deepEqual(deltas, ['Streamed', ' reply', '.']);
  assert.equal(final.output_text, 'Streamed reply.');
});

test('embeddings decode from the default base64 encoding', async () => {
  const result = await client().embeddings.create({ model: 'text-embedding-3-small', input: 'alpha' });
  const vector = result.data[0].embedding;
  assert.equal(vector.length, 1536);
  assert.ok(Math.abs(vector.reduce((s, v) => s + v * v, 0) - 1) < 1e-4);
});
