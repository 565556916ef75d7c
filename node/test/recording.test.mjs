// Recording in-process: `createFetch(recording)` (and the SDK option helpers) forward what a recording lacks to an
// upstream (here a local cuecard server standing in for the provider), record each exchange as it arrives, and
// replay the file without the upstream: the same answers, chunk for chunk, and misses that name what differs. Then
// the per-test recordings of vitest, jest and node:test, each in a child process of its runner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { MockModel, Server, Recording, openaiOptions, anthropicOptions, assertThat, drift, NotFoundError, InvalidArgumentError } from 'cuecard';

const WASM = process.env.CUECARD_BACKEND === 'wasm';
const skip = WASM && 'the wasm module has no files or sockets (replay a recording there with MockModel.fromScenario)';
const KEY = 'sk-live-abcdefghijklmnop0123456789';
const ask = (client, content, extra = {}) =>
  client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }], ...extra });

function scratch() {
  return mkdtempSync(join(tmpdir(), 'cuecard-recording-'));
}

/** Runs `fn` with CI unset (a CI run refuses to record). */
async function outsideCi(fn) {
  const saved = process.env.CI;
  delete process.env.CI;
  try {
    return await fn();
  } finally {
    if (saved !== undefined) process.env.CI = saved;
  }
}

test('drift finds nothing in a fresh recording, and a renamed field in an edited one', { skip }, async () => {
  const dir = scratch();
  const path = join(dir, 'weather.yaml');
  await outsideCi(async () => {
    const upstream = new Server(MockModel.thatResponds('It is sunny in Paris.'), { instant: true });
    try {
      const recording = new Recording(path, { mode: 'once', upstream: upstream.baseURL });
      await ask(new OpenAI(openaiOptions(recording, { apiKey: KEY, maxRetries: 0 })), 'Weather in Paris?');
    } finally {
      upstream.stop();
    }
  });
  const clean = drift(path);
  assert.deepEqual([clean.drifted, clean.exchanges.length, clean.exchanges[0].differences], [false, 1, []]);
  writeFileSync(path, readFileSync(path, 'utf8').replaceAll('finish_reason', 'finish_reasons'));
  const edited = drift(path);
  assert.equal(edited.drifted, true);
  assert.deepEqual(edited.exchanges[0].differences[0], { what: 'field', at: 'choices[].finish_reasons', recorded: 'string', cuecard: '-' });
  assert.throws(() => drift(join(dir, 'absent.yaml')), NotFoundError);
  assert.throws(() => drift(42), TypeError);
  rmSync(dir, { recursive: true });
});

test('a recording replayed past its max_age_days warns, naming the file', { skip }, async () => {
  const dir = scratch();
  const path = join(dir, 'weather.yaml');
  await outsideCi(async () => {
    const upstream = new Server(MockModel.thatResponds('It is sunny in Paris.'), { instant: true });
    try {
      const recording = new Recording(path, { mode: 'once', upstream: upstream.baseURL });
      await ask(new OpenAI(openaiOptions(recording, { apiKey: KEY, maxRetries: 0 })), 'Weather in Paris?');
    } finally {
      upstream.stop();
    }
  });
  const text = readFileSync(path, 'utf8');
  assert.match(text, /recorded_on: \d{4}-\d{2}-\d{2}/);
  writeFileSync(path, text.replace(/recorded_on: \S+/, 'max_age_days: 7\n  recorded_on: 2025-01-15'));
  const warnings = [];
  const listen = (warning) => warnings.push(warning);
  process.on('warning', listen);
  try {
    const replay = new Recording(path);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await ask(new OpenAI(openaiOptions(replay)), 'Weather in Paris?')).choices[0].message.content, 'It is sunny in Paris.');
  } finally {
    process.off('warning', listen);
  }
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].name, 'RecordingWarning');
  assert.match(warnings[0].message, /weather\.yaml was recorded on 2025-01-15, \d+ days ago, more than its max_age_days of 7/);
  rmSync(dir, { recursive: true });
});

test('record once against an upstream, then replay without it: the same answers and stream chunks', { skip }, async () => {
  const dir = scratch();
  const path = join(dir, 'recordings', 'weather.yaml');
  const upstreamMock = MockModel.thatResponds('It is sunny in Paris.').thenStreams('Sunny', ' and', ' warm', '.')
    .thenCallsTool('get_weather', { city: 'Paris' }).thenResponds('Bonjour from Claude.');
  const live = await outsideCi(async () => {
    const upstream = new Server(upstreamMock, { instant: true });
    try {
      const recording = new Recording(path, { mode: 'once', upstream: upstream.baseURL });
      assert.deepEqual([recording.records, recording.replays], [true, false]);
      const client = new OpenAI(openaiOptions(recording, { apiKey: KEY, maxRetries: 0 }));
      const text = (await ask(client, 'Weather in Paris?')).choices[0].message.content;
      const chunks = [];
      for await (const chunk of await ask(client, 'Stream it', { stream: true })) chunks.push(chunk.choices[0]?.delta?.content);
      const tool = (await ask(client, 'Use the tool')).choices[0].message.tool_calls[0];
      const claude = new Anthropic(anthropicOptions(recording, { apiKey: KEY, maxRetries: 0 }));
      const hello = (await claude.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Hello?' }] })).content[0].text;
      assert.deepEqual([recording.recorded, recording.failures, upstreamMock.requestCount], [4, [], 4]);
      return { text, chunks, tool, hello };
    } finally {
      upstream.stop();
    }
  });
  const written = readFileSync(path, 'utf8');
  assert.ok(!written.includes(KEY) && written.includes('Weather in Paris?'));
  const replay = new Recording(path);
  assert.deepEqual([replay.mode, replay.records, replay.replays], ['none', false, true]);
  const client = new OpenAI(openaiOptions(replay));
  assert.equal((await ask(client, 'Weather in Paris?')).choices[0].message.content, live.text);
  const chunks = [];
  for await (const chunk of await ask(client, 'Stream it', { stream: true })) chunks.push(chunk.choices[0]?.delta?.content);
  assert.deepEqual(chunks, live.chunks);
  assert.ok(chunks.includes(' warm'));
  const tool = (await ask(client, 'Use the tool')).choices[0].message.tool_calls[0];
  assert.deepEqual([tool.id, tool.function.name, JSON.parse(tool.function.arguments)], [live.tool.id, 'get_weather', { city: 'Paris' }]);
  const claude = new Anthropic(anthropicOptions(replay));
  assert.equal((await claude.messages.create({ model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Hello?' }] })).content[0].text, live.hello);
  assertThat(replay.mock).scriptFullyUsed();
  rmSync(dir, { recursive: true });
});

test('a secret split over stream chunks is cut from what a reader of the file joins (issue #59 S1)', { skip }, async () => {
  const dir = scratch();
  const path = join(dir, 'secret.yaml');
  const upstreamMock = MockModel.thatResponds(`the password is CorpSecret-XYZ-123 and your key is ${KEY} ok`);
  const join_ = async (client) => {
    let text = '';
    for await (const chunk of await ask(client, 'Tell me', { stream: true })) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  };
  const live = await outsideCi(async () => {
    const upstream = new Server(upstreamMock, { instant: true });
    try {
      const recording = new Recording(path, { mode: 'once', upstream: upstream.baseURL, redact: ['CorpSecret-XYZ-123'] });
      const text = await join_(new OpenAI(openaiOptions(recording, { apiKey: KEY, maxRetries: 0 })));
      assert.deepEqual([recording.recorded, recording.failures], [1, []]);
      return text;
    } finally {
      upstream.stop();
    }
  });
  assert.ok(live.includes('CorpSecret-XYZ-123') && live.includes(KEY));
  const written = readFileSync(path, 'utf8');
  assert.ok(!written.includes('CorpSecret') && !written.includes(KEY));
  const replayed = await join_(new OpenAI(openaiOptions(new Recording(path))));
  assert.equal(replayed, 'the password is [REDACTED] and your key is [REDACTED] ok');
  rmSync(dir, { recursive: true });
});

test('a miss names the nearest recording and the field that differs; mode new appends what is missing', { skip }, async () => {
  const dir = scratch();
  const path = join(dir, 'weather.json');
  const upstreamMock = MockModel.thatResponds('Paris: sunny.').thenResponds('Lyon: rain.');
  await outsideCi(async () => {
    const upstream = new Server(upstreamMock, { instant: true });
    try {
      await ask(new OpenAI(openaiOptions(new Recording(path, { mode: 'all', upstream: upstream.baseURL }), { apiKey: KEY })), 'Weather in Paris?');
      const replayOnly = new OpenAI(openaiOptions(new Recording(path), { maxRetries: 0 }));
      await assert.rejects(ask(replayOnly, 'Weather in Lyon?'), (error) => {
        assert.match(error.message, /"Weather in Paris\?" != "Weather in Lyon\?"/);
        return true;
      });
      const appending = new Recording(path, { mode: 'new', upstream: upstream.baseURL });
      const client = new OpenAI(openaiOptions(appending, { apiKey: KEY }));
      assert.equal((await ask(client, 'Weather in Paris?')).choices[0].message.content, 'Paris: sunny.');
      assert.equal((await ask(client, 'Weather in Lyon?')).choices[0].message.content, 'Lyon: rain.');
      assert.deepEqual([appending.recorded, upstreamMock.requestCount], [1, 2]);
    } finally {
      upstream.stop();
    }
  });
  const replay = new OpenAI(openaiOptions(new Recording(path)));
  assert.equal((await ask(replay, 'Weather in Lyon?')).choices[0].message.content, 'Lyon: rain.');
  rmSync(dir, { recursive: true });
});

test('bad options, a missing file and CI are refused with typed errors', { skip }, async () => {
  const dir = scratch();
  assert.throws(() => new Recording(join(dir, 'absent.yaml')), (e) => e instanceof NotFoundError && /record it with mode once/.test(e.message));
  assert.throws(() => new Recording(join(dir, 'r.yaml'), { mode: 'sometimes' }), (e) => e instanceof InvalidArgumentError && /sometimes/.test(e.message));
  assert.throws(() => new Recording(join(dir, 'r.yaml'), { mode: 'once', upstream: 'ftp://x' }), /not an http:\/\/ or https:\/\/ URL/);
  assert.throws(() => new Recording(join(dir, 'r.yaml'), { mode: 'once', allowInCi: 'yes' }), (e) => e instanceof InvalidArgumentError && /allow_in_ci/.test(e.message));
  assert.throws(() => new Recording(42), (e) => e instanceof TypeError && e.code === 'invalid_argument');
  const saved = process.env.CI;
  process.env.CI = 'true';
  try {
    assert.throws(() => new Recording(join(dir, 'r.yaml'), { mode: 'once' }), (e) => e instanceof InvalidArgumentError && /allowInCi: true/.test(e.message));
    assert.equal(new Recording(join(dir, 'r.yaml'), { mode: 'once', allowInCi: true }).records, true);
  } finally {
    if (saved === undefined) delete process.env.CI;
    else process.env.CI = saved;
  }
  rmSync(dir, { recursive: true });
});

test('vitest, jest and node:test: one recording per test, recorded once, then replayed without the upstream', { skip }, () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  const RECORDINGS = join(ROOT, 'test', 'recording-runners', 'recordings');
  rmSync(RECORDINGS, { recursive: true, force: true });
  const runners = {
    vitest: [fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', '--config', 'test/recording-runners/vitest.config.mjs'],
    jest: [fileURLToPath(new URL('../node_modules/jest/bin/jest.js', import.meta.url)), '--ci', '--testMatch', '<rootDir>/test/recording-runners/*.check.cjs'],
    'node:test': ['--test', 'test/recording-runners/weather.check.mjs'],
  };
  const run = (args, env) => {
    const { NODE_TEST_CONTEXT, CI, CUECARD_RECORD, ...rest } = process.env;
    const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', env: { ...rest, ...env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    return { status: child.status, output: child.stdout + child.stderr };
  };
  const mock = MockModel.thatResponds('Recorded answer.').thenRepeats();
  const upstream = new Server(mock, { instant: true });
  try {
    for (const [name, args] of Object.entries(runners)) {
      const missing = run(args, {});
      assert.notEqual(missing.status, 0, `${name} replayed a recording that does not exist`);
      assert.match(missing.output, /record it with mode once/, name);
      const recorded = run(args, { CUECARD_RECORD: 'once', CUECARD_TEST_UPSTREAM: upstream.baseURL });
      assert.equal(recorded.status, 0, `${name}: ${recorded.output}`);
    }
  } finally {
    upstream.stop();
  }
  assert.equal(mock.requestCount, 3);
  assert.deepEqual(readdirSync(join(RECORDINGS, 'weather.check')).sort(), ['asks-in-jest.yaml', 'asks-in-node-test.yaml', 'weather.asks-in-vitest.yaml'].sort());
  for (const [name, args] of Object.entries(runners)) {
    const replayed = run(args, {});
    assert.equal(replayed.status, 0, `${name}: ${replayed.output}`);
  }
  assert.equal(mock.requestCount, 3);
  rmSync(RECORDINGS, { recursive: true });
  assert.ok(!existsSync(RECORDINGS));
});

test('on the wasm module a Recording says it needs the native addon', { skip: !WASM && 'the napi addon records' }, () => {
  assert.throws(() => new Recording('recordings/any.yaml'), /Recording .*needs the native addon/);
});
