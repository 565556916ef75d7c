// The page of the headless Chromium test, bundled by browser/build.mjs --page: loads cuecard on the wasm module,
// runs every shared vector file with the same runners as Node, then streams a scripted answer through the
// official openai SDK and cuecard's in-process fetch into #answer. The result is left in `window.cuecardResult`.
import OpenAI from 'openai';
import { load } from '../../browser/entry.mjs';
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

  const mock = cuecard.MockModel.thatResponds('Hello from the browser, streamed word by word.');
  const client = new OpenAI({ ...cuecard.openaiOptions(mock), dangerouslyAllowBrowser: true });
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true });
  const answer = document.getElementById('answer');
  const pieces = [];
  for await (const chunk of stream) {
    const text = chunk.choices[0]?.delta?.content;
    if (text) {
      pieces.push(text);
      answer.textContent += text;
    }
  }
  cuecard.assertThat(mock).receivedRequests(1).lastRequest().hasModel('gpt-4o');
  status.textContent = 'done';
  return { vectors, pieces, answer: answer.textContent, version: cuecard.VERSION, userAgent: navigator.userAgent };
}

main().then(
  (result) => {
    window.cuecardResult = result;
  },
  (error) => {
    window.cuecardResult = { error: String(error?.stack ?? error) };
  },
);
