// A request object crosses to the addon as JSON.stringify text when that reads exactly as the N-API walker
// would, and through the walker otherwise (lib/mock.js, `ask`). Both paths must journal the same request and
// refuse the same inputs with the same error: this runs each input through both and compares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { MockModel } from 'cuecard';

const require = createRequire(import.meta.url);
const { nativeOf, settleSync } = require('../lib/mock.js');

class Point {
  constructor() {
    this.x = 1;
  }
}

const user = (content, extra = {}) => ({ messages: [{ role: 'user', content }], ...extra });
let deep = { leaf: true };
for (let i = 0; i < 200; i++) deep = { deep };
const cyclic = user('hi');
cyclic.metadata = { extra: {} };
cyclic.metadata.extra.self = cyclic.metadata.extra;

const INPUTS = {
  'a user text': 'Hello, world!',
  'a full request': { model: 'gpt-4o', temperature: 0.2, max_tokens: 5, stop: ['x'], messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [{ name: 'f', parameters: { type: 'object' } }], metadata: { operation: 'op', extra: { n: 1.5, big: 2 ** 60, neg: -0, list: [1, null, undefined] } } },
  'undefined fields': user('hi', { model: undefined }),
  'a lone surrogate': user('bad \ud800 text'),
  'NaN': user('hi', { temperature: NaN }),
  'Infinity in data': user('hi', { metadata: { extra: { x: Infinity } } }),
  'a Date': user('hi', { metadata: { extra: { when: new Date(0) } } }),
  'a Map': user('hi', { metadata: { extra: { m: new Map() } } }),
  'a class instance': user('hi', { metadata: { extra: { p: new Point() } } }),
  'an object with toJSON': user('hi', { metadata: { extra: { t: { toJSON: () => 'x' } } } }),
  'a function': user('hi', { metadata: { extra: { f: () => 1 } } }),
  'a BigInt': user('hi', { metadata: { extra: { b: 10n } } }),
  'a cycle': cyclic,
  'nesting 200 deep': user('hi', { metadata: { extra: deep } }),
  'an unknown field': user('hi', { colour: 'blue' }),
  'a wrong role': { messages: [{ role: 'robot', content: 'x' }] },
};

function outcome(run) {
  try {
    return { ok: run() };
  } catch (error) {
    return { error: `${error.constructor.name} ${error.code} ${error.message}` };
  }
}

test('the JSON fast path and the walker journal the same requests and refuse the same inputs alike', () => {
  let compared = 0;
  let refused = 0;
  const tookFastPath = [];
  for (const [name, request] of Object.entries(INPUTS)) {
    const fast = MockModel.thatResponds('ok').thenRepeats();
    const walker = MockModel.thatResponds('ok').thenRepeats();
    const native = nativeOf(fast);
    const chatJson = native.chatJson.bind(native);
    native.chatJson = (json) => {
      let answered;
      try {
        answered = chatJson(json);
      } catch (error) {
        tookFastPath.push(name); // refused by the core after the fast path read it
        throw error;
      }
      if (answered !== null) tookFastPath.push(name);
      return answered;
    };
    const viaFast = outcome(() => fast.chatSync(request));
    if (viaFast.error) refused += 1;
    const viaWalker = outcome(() => settleSync(nativeOf(walker).chat(request)).response);
    assert.deepEqual(viaFast, viaWalker, name);
    assert.deepEqual(fast.requests(), walker.requests(), name);
    compared += 1;
  }
  assert.equal(compared, Object.keys(INPUTS).length);
  // Both paths were really exercised: clean data went the fast way, hostile data was refused.
  assert.deepEqual(tookFastPath, ['a user text', 'a full request', 'undefined fields', 'an unknown field', 'a wrong role']);
  assert.equal(refused, 11);
});
