// The shared vectors of tests/vectors/, run through the Node package on the backend in use (the napi addon, or the
// wasm module with CUECARD_BACKEND=wasm): every file, each runner asserting it ran every vector. The runners are
// shared with the browser page (test/browser): vector-runners.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as api from 'cuecard';
import { RUNNERS, VECTOR_FILES } from './vector-runners.mjs';

const require = createRequire(import.meta.url);
const host = {
  api,
  native: require('../lib/native.js'),
  nativeOf: require('../lib/mock.js').nativeOf,
  finishAsync: require('../lib/computed.js').finishAsync,
  assert,
  bytesFromBase64: (text) => Buffer.from(text, 'base64'),
};
const VECTORS = new URL('../../tests/vectors/', import.meta.url);

test('every vector file has a runner, and the directory has no other file', () => {
  const listed = require('node:fs').readdirSync(VECTORS).filter((f) => f.endsWith('.json')).sort();
  assert.deepEqual(listed, [...VECTOR_FILES].sort());
});

for (const name of VECTOR_FILES) {
  test(`${name} vectors`, async () => {
    const vectors = JSON.parse(readFileSync(new URL(name, VECTORS), 'utf8')).vectors;
    const ran = await RUNNERS[name](vectors, host);
    assert.ok(ran > 0 && ran >= vectors.length);
  });
}
