// Per-call latency of the Node package, beside the floors a test could use instead: the `ai` package's
// MockLanguageModelV4 (a canned model result) and the openai SDK over a fetch that returns a canned Response.
// Run from node/ after `npm run build` (or build:test): `node bench/bench.mjs` (`--quick` for a short run).
// Times are medians of rounds; each round runs the call N times back to back on one mock whose script repeats.
// cuecard and its floor run in alternating rounds, so the ratio is fair on a noisy machine.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { MockModel, createFetch, tokenize } from 'cuecard';
import { cuecardModel } from 'cuecard/ai';

const QUICK = process.argv.includes('--quick');
const ROUNDS = QUICK ? 2 : 5;
const TEXT = 'The weather is sunny.';
const LONG = Array.from({ length: 200 }, () => 'word').join(' '); // 200 word-like tokens
const MESSAGES = [{ role: 'user', content: 'Weather?' }];

async function timeRound(fn, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1e3 / n;
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function perCallUs(fn, n) {
  for (let i = 0; i < Math.min(n, 200); i++) await fn(); // warm up
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) rounds.push(await timeRound(fn, n));
  return median(rounds);
}

/** Both sides in alternating rounds, so a slow moment of the machine (GC, the other core) hits both alike. */
async function compare(fn, floorFn, n) {
  for (let i = 0; i < Math.min(n, 200); i++) {
    await fn();
    await floorFn();
  }
  const ours = [];
  const floor = [];
  for (let r = 0; r < ROUNDS * 2; r++) {
    ours.push(await timeRound(fn, n));
    floor.push(await timeRound(floorFn, n));
  }
  return [median(ours), median(floor)];
}

console.log(`backend: ${process.env.CUECARD_BACKEND === 'wasm' ? 'wasm (CUECARD_BACKEND=wasm)' : 'napi addon'}`);

const scale = (n) => (QUICK ? Math.max(10, Math.floor(n / 20)) : n);
const rows = [];
// Each row also as a `figure` line for bench/figures.py, which sets it beside the recorded one (bench/figures.json).
const FIGURE_PREFIX = process.env.CUECARD_BACKEND === 'wasm' ? 'node-wasm' : 'node';
function report(id, name, us, floor) {
  rows.push({ name, us, floor });
  const ratio = floor === undefined ? '' : `  (÷ floor ${floor.toFixed(1)} µs = ${(us / floor).toFixed(2)}×)`;
  console.log(`${name.padEnd(58)} ${us.toFixed(1).padStart(8)} µs/call${ratio}`);
  console.log(`figure ${FIGURE_PREFIX}/${id} ${us.toFixed(2)} us`);
  if (floor !== undefined) console.log(`figure ${FIGURE_PREFIX}/${id}/over-floor ${(us / floor).toFixed(3)} x`);
}

const mock = () => MockModel.thatResponds(TEXT).thenRepeats().configure({ instant: true, journalLimit: 16 });

// ---- the package alone ----------------------------------------------------------------------------------------
{
  const m = mock();
  report('chat', 'MockModel.chat (async, one scripted answer)', await perCallUs(() => m.chat('Weather?'), scale(20000)));
  report('chat-sync', 'MockModel.chatSync', await perCallUs(() => m.chatSync('Weather?'), scale(20000)));
  const long = MockModel.thatResponds(LONG).thenRepeats().configure({ instant: true, journalLimit: 16 });
  const us = await perCallUs(async () => {
    for await (const _event of long.stream('Weather?')) { /* drain */ }
  }, scale(2000));
  report('stream-200', 'MockModel.stream, 200 tokens drained with for await', us);
  console.log(`${''.padEnd(58)} ${(201 / us * 1e6 / 1e3).toFixed(0).padStart(8)} k events/s`);
  report('tokenize-21', 'tokenize (a 21-character sentence)', await perCallUs(() => tokenize(TEXT), scale(50000)));
}

// ---- the AI SDK: cuecard/ai vs MockLanguageModelV4 -------------------------------------------------------------
{
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: undefined, reasoning: undefined } };
  const canned = new MockLanguageModelV4({
    doGenerate: async () => ({ content: [{ type: 'text', text: TEXT }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }),
  });
  const model = cuecardModel(mock());
  const [ours, floor] = await compare(() => generateText({ model, prompt: 'Weather?' }), () => generateText({ model: canned, prompt: 'Weather?' }), scale(3000));
  report('ai-generate-text', 'ai generateText, cuecard/ai model', ours, floor);
  report('ai-generate-text/floor', 'ai generateText, MockLanguageModelV4 (canned result)', floor);

  const tokens = tokenize(LONG);
  const parts = [
    { type: 'stream-start', warnings: [] }, { type: 'text-start', id: 'text-0' },
    ...tokens.map((delta) => ({ type: 'text-delta', id: 'text-0', delta })),
    { type: 'text-end', id: 'text-0' }, { type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } },
  ];
  const cannedStream = new MockLanguageModelV4({ doStream: async () => ({ stream: convertArrayToReadableStream(parts) }) });
  const drain = async (m) => {
    const result = streamText({ model: m, prompt: 'Weather?' });
    for await (const _delta of result.textStream) { /* drain */ }
  };
  const longModel = cuecardModel(MockModel.thatResponds(LONG).thenRepeats().configure({ instant: true, journalLimit: 16 }));
  const [streamOurs, streamFloor] = await compare(() => drain(longModel), () => drain(cannedStream), scale(300));
  report('ai-stream-text-200', 'ai streamText 200 tokens, cuecard/ai model', streamOurs, streamFloor);
  report('ai-stream-text-200/floor', 'ai streamText 200 tokens, MockLanguageModelV4', streamFloor);
}

// ---- the openai SDK: cuecard's fetch vs a canned fetch ------------------------------------------------------------
{
  // The floor answers with the very bytes cuecard's fetch answers, body and headers (request id, rate limits),
  // captured from one of its replies: the SDK's own work on the same reply.
  const wholeFetch = createFetch(mock());
  const captured = await wholeFetch('http://x/v1/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', messages: MESSAGES }) });
  const body = await captured.text();
  const headers = [...captured.headers];
  const cannedFetch = async () => new Response(body, { status: 200, headers });
  const bare = new OpenAI({ apiKey: 'x', baseURL: 'http://bare.invalid/v1', fetch: cannedFetch });
  const through = new OpenAI({ apiKey: 'x', baseURL: 'http://cuecard.invalid/v1', fetch: createFetch(mock()) });
  const create = (client) => () => client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES });
  const [ours, floor] = await compare(create(through), create(bare), scale(3000));
  report('openai-create', 'openai chat.completions.create, cuecard fetch', ours, floor);
  report('openai-create/floor', `openai chat.completions.create, canned fetch (same body, ${headers.length} headers)`, floor);
  // The floor as it was measured before 2026-12-04: the body alone with its content type.
  const bodyOnly = async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
  const bodyOnlyClient = new OpenAI({ apiKey: 'x', baseURL: 'http://bare.invalid/v1', fetch: bodyOnly });
  report('openai-create/floor-body-only', 'openai chat.completions.create, canned fetch (same body only)', await perCallUs(create(bodyOnlyClient), scale(3000)));

  // The same SSE bytes from a canned fetch: the SDK's own decoding cost.
  const longMock = MockModel.thatResponds(LONG).thenRepeats().configure({ instant: true, journalLimit: 16 });
  const streamingFetch = createFetch(longMock);
  const sse = await (await streamingFetch('http://x/v1/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', messages: MESSAGES, stream: true }) })).text();
  const cannedSse = async () => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  const drain = (client) => async () => {
    for await (const _chunk of await client.chat.completions.create({ model: 'gpt-4o', messages: MESSAGES, stream: true })) { /* drain */ }
  };
  const [streamOurs, streamFloor] = await compare(
    drain(new OpenAI({ apiKey: 'x', baseURL: 'http://c.invalid/v1', fetch: streamingFetch })),
    drain(new OpenAI({ apiKey: 'x', baseURL: 'http://bare.invalid/v1', fetch: cannedSse })), scale(300));
  report('openai-stream-200', 'openai stream 200 tokens, cuecard fetch', streamOurs, streamFloor);
  report('openai-stream-200/floor', 'openai stream 200 tokens, canned fetch (same SSE bytes)', streamFloor);
}

// ---- @anthropic-ai/sdk and an AI SDK provider over cuecard's fetch, each beside the same bytes canned ------------
{
  /** A fetch answering every request with the very reply cuecard's fetch gave to `request` (body and headers). */
  const cannedLike = async (path, request) => {
    const reply = await createFetch(mock())(`http://x${path}`, { method: 'POST', body: JSON.stringify(request) });
    const body = await reply.text();
    const headers = [...reply.headers];
    return async () => new Response(body, { status: 200, headers });
  };
  const anthropicRequest = { model: 'claude-sonnet-4-6', max_tokens: 64, messages: MESSAGES };
  const anthropicCanned = await cannedLike('/v1/messages', anthropicRequest);
  const anthropic = (fetch) => new Anthropic({ apiKey: 'x', baseURL: 'http://a.invalid', fetch });
  const messages = (client) => () => client.messages.create(anthropicRequest);
  const [ours, floor] = await compare(messages(anthropic(createFetch(mock()))), messages(anthropic(anthropicCanned)), scale(3000));
  report('anthropic-create', 'anthropic messages.create, cuecard fetch', ours, floor);
  report('anthropic-create/floor', 'anthropic messages.create, canned fetch (same bytes)', floor);

  const providerCanned = await cannedLike('/v1/chat/completions', { model: 'gpt-4o', messages: MESSAGES });
  const provider = (fetch) => createOpenAI({ apiKey: 'x', baseURL: 'http://o.invalid/v1', fetch }).chat('gpt-4o');
  const generate = (model) => () => generateText({ model, prompt: 'Weather?' });
  const [viaProvider, providerFloor] = await compare(generate(provider(createFetch(mock()))), generate(provider(providerCanned)), scale(3000));
  report('ai-openai-provider', 'ai generateText, @ai-sdk/openai chat over cuecard fetch', viaProvider, providerFloor);
  report('ai-openai-provider/floor', 'ai generateText, @ai-sdk/openai chat, canned fetch', providerFloor);
}

if (rows.some((r) => !Number.isFinite(r.us) || r.us <= 0)) {
  console.error('a benchmark produced no time');
  process.exit(1);
}
