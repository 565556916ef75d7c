// The realtime clients, unmodified, against `cuecard serve` over WebSocket: openai-node's `OpenAIRealtimeWS` (which
// only connects with wss:, so the server serves TLS with a test CA), the OpenAI Agents SDK's `RealtimeSession`
// running a tool, and `@google/genai`'s live API (text, a tool call, spoken audio).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { RealtimeAgent, RealtimeSession, tool } from '@openai/agents-realtime';
import { GoogleGenAI, Modality } from '@google/genai';
import { z } from 'zod';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer({ tls: true }); });
after(async () => { await server.stop(); });

const WEATHER = {
  type: 'function', name: 'get_weather', description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

// cuecard's deterministic voice (realtime spec §5.2), written here from the rule: each UTF-8 byte is 20 ms of a
// square wave of amplitude 64·(b+1), PCM16 little-endian.
function spoken(text, rate) {
  const bytes = Buffer.from(text, 'utf8');
  const perByte = rate / 50;
  const out = Buffer.alloc(bytes.length * perByte * 2);
  bytes.forEach((b, i) => {
    for (let s = 0; s < perByte; s++) out.writeInt16LE((s % 8 < 4 ? 1 : -1) * 64 * (b + 1), (i * perByte + s) * 2);
  });
  return out;
}

// Events of `socket` (an EventEmitter of realtime events) until one of type `last`, listening before `act` runs.
function eventsUntil(socket, last, act) {
  return new Promise((resolve, reject) => {
    const seen = [];
    const timer = setTimeout(() => reject(new Error(`no ${last} in time: ${seen.map((e) => e.type)}`)), 10_000);
    const onEvent = (event) => {
      seen.push(event);
      if (event.type === last) { socket.off('event', onEvent); clearTimeout(timer); resolve(seen); }
    };
    socket.on('event', onEvent);
    act();
  });
}

test('openai-node OpenAIRealtimeWS over wss: text, a tool round trip, and the journal', async () => {
  await server.load(scenario({ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, 'Sunny in Paris.'));
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiURL });
  const rt = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: { ca: server.ca } }, client);
  const errors = [];
  rt.on('error', (error) => errors.push(error));
  assert.ok(rt.url.toString().startsWith('wss://127.0.0.1:'), rt.url.toString());
  await new Promise((resolve, reject) => { rt.socket.once('open', resolve); rt.socket.once('error', reject); });
  rt.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], tools: [WEATHER] } });
  const first = await eventsUntil(rt, 'response.done', () => {
    rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] } });
    rt.send({ type: 'response.create' });
  });
  const call = first.at(-1).response.output[0];
  assert.deepEqual([call.type, call.name, call.arguments, call.status], ['function_call', 'get_weather', '{"city":"Paris"}', 'completed']);
  const second = await eventsUntil(rt, 'response.done', () => {
    rt.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: 'sunny' } });
    rt.send({ type: 'response.create' });
  });
  assert.equal(second.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join(''), 'Sunny in Paris.');
  // A cancel with nothing running is an error event with the real code, and the session goes on.
  const [error] = await new Promise((resolve) => { rt.once('error', (e) => resolve([e])); rt.send({ type: 'response.cancel' }); });
  assert.equal(error.error.code, 'response_cancel_not_active');
  rt.close();
  const journal = await server.journal();
  assert.equal(journal.entries[1].request.messages.at(-1).tool_call_id, call.call_id);
  assert.ok(journal.sockets.some((e) => e.direction === 'client' && e.type === 'response.cancel'));
});

test('@openai/agents-realtime RealtimeSession runs a tool and answers with its output', async () => {
  await server.load(scenario({ tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }, 'Sunny in Paris.'));
  const calls = [];
  const getWeather = tool({
    name: 'get_weather', description: 'The weather in a city.', parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => { calls.push(city); return 'sunny'; },
  });
  const agent = new RealtimeAgent({ name: 'assistant', instructions: 'Answer about the weather.', tools: [getWeather] });
  const session = new RealtimeSession(agent, { transport: 'websocket', model: 'gpt-realtime', config: { outputModalities: ['text'] } });
  const url = server.openaiURL.replace('http://', 'ws://') + '/realtime?model=gpt-realtime';
  await session.connect({ apiKey: 'test-key', url });
  const answered = new Promise((resolve, reject) => {
    session.on('error', (e) => reject(new Error(JSON.stringify(e.error))));
    session.transport.on('*', (event) => {
      if (event.type === 'response.done' && event.response.output[0]?.type === 'message') resolve(event.response);
    });
  });
  session.sendMessage('Weather in Paris?');
  const response = await answered;
  assert.deepEqual(calls, ['Paris']);
  assert.equal(response.output[0].content[0].text, 'Sunny in Paris.');
  session.close();
  const entries = await server.entries();
  assert.equal(entries[1].request.messages.at(-1).content[0].text, 'sunny');
});

test('@google/genai live: setupComplete, a text turn, a tool call and response, and a spoken turn', async () => {
  await server.load(scenario('Hello from Gemini.', { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    'It is sunny.', 'I heard you.'));
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.anthropicURL } });
  const messages = [];
  let waiting;
  const turn = () => new Promise((resolve) => { waiting = resolve; });
  const session = await ai.live.connect({
    model: 'gemini-live-2.5-flash',
    config: {
      responseModalities: [Modality.TEXT], inputAudioTranscription: {},
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] }],
    },
    callbacks: {
      onmessage: (message) => {
        messages.push(message);
        if (message.toolCall) {
          const [call] = message.toolCall.functionCalls;
          session.sendToolResponse({ functionResponses: [{ id: call.id, name: call.name, response: { output: 'sunny' } }] });
        }
        if (message.serverContent?.turnComplete) waiting?.();
      },
      onerror: (e) => { throw e; },
    },
  });
  let done = turn();
  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'hi' }] }], turnComplete: true });
  await done;
  const text = (from) => messages.slice(from).map((m) => m.text ?? '').join('');
  assert.equal(text(0), 'Hello from Gemini.');
  let mark = messages.length;
  done = turn();
  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'weather?' }] }], turnComplete: true });
  await done;
  assert.deepEqual(messages[mark].toolCall.functionCalls[0], { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } });
  assert.equal(text(mark), 'It is sunny.');
  mark = messages.length;
  done = turn();
  session.sendRealtimeInput({ audio: { data: spoken('hello', 16000).toString('base64'), mimeType: 'audio/pcm;rate=16000' } });
  session.sendRealtimeInput({ audioStreamEnd: true });
  await done;
  assert.equal(messages[mark].serverContent.inputTranscription.text, 'hello');
  assert.equal(text(mark), 'I heard you.');
  assert.ok(messages.at(-1).usageMetadata.totalTokenCount > 0);
  session.close();
  const entries = await server.entries();
  assert.deepEqual(entries.map((e) => e.request.metadata.endpoint), ['gemini_live', 'gemini_live', 'gemini_live', 'gemini_live']);
  assert.equal(entries[3].request.messages.at(-1).content[0].text, 'hello');
});

test('@google/genai live: a goAway step announces the end, then the socket closes with 1000', async () => {
  await server.load(scenario({ text: 'Wrapping up.', go_away_ms: 1500 }));
  const ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.anthropicURL } });
  const messages = [];
  const closed = new Promise((resolve) => {
    ai.live.connect({
      model: 'gemini-live-2.5-flash', config: { responseModalities: [Modality.TEXT] },
      callbacks: { onmessage: (m) => messages.push(m), onclose: (event) => resolve(event) },
    }).then((session) => session.sendRealtimeInput({ text: 'hi' }));
  });
  const event = await closed;
  assert.equal(event.code, 1000);
  assert.equal(messages.map((m) => m.text ?? '').join(''), 'Wrapping up.');
  assert.deepEqual(messages.at(-1).goAway, { timeLeft: '1.500s' });
});
