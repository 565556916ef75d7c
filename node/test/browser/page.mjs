// The page of the headless Chromium test, bundled by browser/build.mjs --page: loads cuecard on the wasm module,
// runs every shared vector file with the same runners as Node, then the README example streams a scripted
// answer through the official openai SDK and cuecard's in-process fetch into #answer. The result is left in `window.cuecardResult`.
import { load } from 'cuecard/browser';
import { streamInto } from './readme-example.mjs';
import { RUNNERS, VECTOR_FILES } from '../vector-runners.mjs';

/** The assertions the runners use, for a page: JSON data compared canonically (sorted keys). */
const canonical = (value) => JSON.stringify(value, (_, v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v));
const assert = {
  ok(value, message) {
    if (!value) throw new Error(`assertion failed: ${message}`);
  },
  equal(actual, expected, message) {
    if (actual !== expected) throw new Error(`${message}: ${JSON.stringify(actual)} !== ${JSON.stringify(expected)}`);
  },
  deepEqual(actual, expected, message) {
    if (canonical(actual) !== canonical(expected)) throw new Error(`${message}: ${canonical(actual)} != ${canonical(expected)}`);
  },
};

async function main() {
  const cuecard = await load();
  const status = document.getElementById('status');
  const host = {
    api: cuecard,
    ...cuecard.internals,
    assert,
    bytesFromBase64: (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)),
  };
  const vectors = {};
  for (const name of VECTOR_FILES) {
    const file = await (await fetch(`/tests/vectors/${name}`)).json();
    vectors[name] = await RUNNERS[name](file.vectors, host);
  }
  status.textContent = 'vectors passed';

  const answer = await streamInto(document.getElementById('answer'));

  // Per-call latency in the browser, reported by the test (not asserted): a scripted chatSync, and tokenize.
  const timed = cuecard.MockModel.thatResponds('The weather is sunny.').thenRepeats().configure({ journalLimit: 16 });
  const perCallUs = (fn, n) => {
    for (let i = 0; i < 500; i++) fn();
    const start = performance.now();
    for (let i = 0; i < n; i++) fn();
    return ((performance.now() - start) * 1000) / n;
  };
  const speed = {
    chatSyncUs: perCallUs(() => timed.chatSync('Weather?'), 20000),
    tokenizeUs: perCallUs(() => cuecard.tokenize('The weather is sunny.'), 20000),
  };
  status.textContent = 'done';
  return { vectors, answer, version: cuecard.VERSION, userAgent: navigator.userAgent, speed };
}

main().then(
  (result) => {
    window.cuecardResult = result;
  },
  (error) => {
    window.cuecardResult = { error: String(error?.stack ?? error) };
  },
);
