// The package's `cuecard` bin: the same command line as the Rust binary, run by the addon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/cuecard.js', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../tests/scenarios/default.json', import.meta.url));

// The bin runs the CLI in the native addon; the wasm module has none (no sockets, threads or files).
const NAPI_ONLY = process.env.CUECARD_BACKEND === 'wasm' && 'the cuecard bin needs the native addon';

test('cuecard tokenize and validate, with their exit codes', { skip: NAPI_ONLY }, () => {
  const count = spawnSync(process.execPath, [BIN, 'tokenize', '--count'], { input: 'Hello, world!', encoding: 'utf8' });
  assert.equal(count.status, 0);
  assert.equal(count.stdout.trim(), '4');
  assert.equal(spawnSync(process.execPath, [BIN, 'validate', SCENARIO]).status, 0);
  const missing = spawnSync(process.execPath, [BIN, 'validate', '/nonexistent.json'], { encoding: 'utf8' });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stdout + missing.stderr, /nonexistent\.json: cannot read/);
});

test('cuecard serve answers an SDK-shaped request and stops on SIGTERM', { skip: NAPI_ONLY }, async () => {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const seen = (chunk) => {
      output += chunk;
      const match = output.match(/http:\/\/127\.0\.0\.1:\d+/);
      if (match) resolve(match[0]);
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', seen);
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
  const reply = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(reply.status, 200);
  assert.ok((await reply.json()).choices[0].message.content.length > 0);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  child.kill('SIGTERM');
  const { code } = await exited;
  assert.equal(code, 0);
});
