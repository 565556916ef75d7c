// Realtime sessions in-process through `createWebSocket` (no server), on the napi addon and on the wasm module
// alike: the WebSocket interface itself, a cancel that cuts a paced response, Gemini's closes, the socket checks,
// and the OpenAI Agents SDK's `RealtimeSession` running a tool over its `createWebSocket` option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RealtimeAgent, RealtimeSession, OpenAIRealtimeWebSocket, tool } from '@openai/agents-realtime';
import { z } from 'zod';
import { createRequire } from 'node:module';
import { MockModel, createWebSocket, assertThat, AssertionFailedError } from 'cuecard';

// The wasm module serves no realtime sockets (core/src/wire/sockets/absent.rs): there each socket answers 501.
const sockets = createRequire(import.meta.url)('../lib/native.js').servesSockets();
const skip = sockets ? false : 'the WebAssembly module has no realtime sockets';

const URL = 'ws://cuecard.invalid/v1/realtime?model=gpt-realtime';

/** The next `count` messages of `socket` as JSON, or until one of type `until`. */
function messages(socket, { until, count = Infinity }) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const onMessage = (event) => {
      const message = JSON.parse(event.data);
      seen.push(message);
      if (message.type === until || seen.length === count) {
        socket.removeEventListener('message', onMessage);
        resolve(seen);
      }
    };
    socket.addEventListener('message', onMessage);
    socket.addEventListener('close', (event) => reject(new Error(`closed ${event.code} after ${seen.map((m) => m.type)}`)), { once: true });
  });
}

test('a WebSocket answered in-process: open, a text turn, close, all journaled and checked', { skip }, async () => {
  const mock = MockModel.thatResponds('Hello in process.');
  const socket = createWebSocket(mock, { instant: true })(URL, ['realtime', 'openai-insecure-api-key.k']);
  assert.equal(socket.readyState, 0);
  const first = messages(socket, { count: 2 });
  await new Promise((resolve) => { socket.onopen = resolve; });
  assert.equal(socket.protocol, 'realtime');
  assert.deepEqual((await first).map((m) => m.type), ['session.created', 'conversation.created']);
  const answer = messages(socket, { until: 'response.done' });
  socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }));
  socket.send(JSON.stringify({ type: 'response.create', event_id: 'ask' }));
  const events = await answer;
  assert.equal(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join(''), 'Hello in process.');
  const closed = new Promise((resolve) => socket.addEventListener('close', resolve));
  socket.close(1000, 'done');
  const event = await closed;
  assert.deepEqual([event.code, event.reason, event.wasClean, socket.readyState], [1000, 'done', true, 3]);
  assertThat(mock).socketReceived('response.create', { event_id: 'ask' })
    .socketSent('response.done', { response: { status: 'completed' } })
    .socketEventsInOrder(['open', 'session.update', 'response.create', 'close'], { direction: 'client' });
  assert.throws(() => assertThat(mock).socketSent('response.done', { response: { status: 'cancelled' } }),
    (e) => e instanceof AssertionFailedError && /socket_sent\("response.done"/.test(e.message));
  assert.equal(mock.requests()[0].metadata.endpoint, 'realtime');
  const journaled = mock.socketEvents();
  assert.deepEqual(journaled.slice(0, 3).map((e) => [e.direction, e.type]), [['client', 'open'], ['server', 'session.created'], ['server', 'conversation.created']]);
  assert.deepEqual(journaled.at(-1).event, { code: 1000, reason: 'done' });
});

test('a cancel cuts a paced response where the socket had shown it', { skip }, async () => {
  const mock = MockModel.thatResponds({ text: 'one two three four five six seven eight', tokenDelayMs: 30 });
  const socket = createWebSocket(mock)(URL);
  await new Promise((resolve) => { socket.onopen = resolve; });
  socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }));
  const started = messages(socket, { until: 'response.output_text.delta' });
  socket.send(JSON.stringify({ type: 'response.create' }));
  await started;
  const rest = messages(socket, { until: 'response.done' });
  socket.send(JSON.stringify({ type: 'response.cancel' }));
  const done = (await rest).at(-1).response;
  assert.equal(done.status, 'cancelled');
  const text = done.output[0].content[0].text;
  assert.ok(text.startsWith('one') && !text.includes('eight'), text);
  socket.close();
});

test('Gemini Live closes with its codes, and a refused upgrade is an error then a close', { skip }, async () => {
  const mock = MockModel.thatFails('bad_request', { message: 'Bad turn.' });
  const live = createWebSocket(mock, { instant: true });
  const socket = live('ws://cuecard.invalid/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=k');
  await new Promise((resolve) => { socket.onopen = resolve; });
  const setup = messages(socket, { count: 1 });
  socket.send(JSON.stringify({ setup: { model: 'models/gemini-live-2.5-flash' } }));
  assert.deepEqual(await setup, [{ setupComplete: {} }]);
  const closed = new Promise((resolve) => { socket.onclose = resolve; });
  socket.send(JSON.stringify({ realtimeInput: { text: 'hi' } }));
  const event = await closed;
  assert.deepEqual([event.code, event.reason], [1007, 'Bad turn.']);

  const refused = live('ws://cuecard.invalid/v1/nothing-here');
  const outcome = await new Promise((resolve) => {
    const seen = [];
    refused.onerror = () => seen.push('error');
    refused.onclose = (e) => resolve([...seen, e.code]);
  });
  assert.deepEqual(outcome, ['error', 1006]);
});

test('the Agents SDK RealtimeSession runs a tool in-process over createWebSocket', { skip }, async () => {
  const mock = MockModel.thatCallsTool('get_weather', { city: 'Paris' }).thenResponds('Sunny in Paris.');
  const calls = [];
  const getWeather = tool({
    name: 'get_weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => { calls.push(city); return 'sunny'; },
  });
  const agent = new RealtimeAgent({ name: 'assistant', instructions: 'Answer about the weather.', tools: [getWeather] });
  const open = createWebSocket(mock, { instant: true });
  const transport = new OpenAIRealtimeWebSocket({ createWebSocket: async ({ url }) => open(url) });
  const session = new RealtimeSession(agent, { transport, model: 'gpt-realtime', config: { outputModalities: ['text'] } });
  await session.connect({ apiKey: 'test-key', url: URL });
  const answered = new Promise((resolve, reject) => {
    session.on('error', (e) => reject(new Error(JSON.stringify(e.error))));
    session.transport.on('*', (event) => {
      if (event.type === 'response.done' && event.response.output[0]?.type === 'message') resolve(event.response);
    });
  });
  session.sendMessage('Weather in Paris?');
  const response = await answered;
  session.close();
  assert.deepEqual(calls, ['Paris']);
  assert.equal(response.output[0].content[0].text, 'Sunny in Paris.');
  assertThat(mock).socketReceived('conversation.item.create', { item: { type: 'function_call_output', output: 'sunny' } });
  assert.equal(mock.requests()[1].messages.at(-1).role, 'tool');
});

test('on the wasm module a socket is refused by name: an error, a close, and a journaled 501', { skip: sockets && 'this backend serves sockets' }, async () => {
  const mock = MockModel.thatResponds('unused');
  const socket = createWebSocket(mock, { instant: true })(URL);
  const outcome = await new Promise((resolve) => {
    const seen = [];
    socket.onerror = (e) => seen.push(e.message);
    socket.onclose = (e) => resolve([...seen, e.code]);
  });
  assert.deepEqual(outcome, ['Unexpected server response: 501', 1006]);
  assert.match(mock.entries()[0].reason, /realtime sockets are not in cuecard's WebAssembly module/);
});
