// cuecard in a real browser: headless Chromium (Debian's, driven by playwright-core, no browser download) loads
// test/browser/page.html from a loopback static server. The page runs every shared vector on the wasm module with
// the same runners as Node, and the official openai SDK streams a scripted answer through cuecard's in-process
// fetch into the page. Run after `npm run build:wasm && node browser/build.mjs --page`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, normalize, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url)); // the repository: /node/... and /tests/vectors/...
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

function serve() {
  const server = createServer(async (request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
    if (path.includes('..')) return response.writeHead(400).end();
    try {
      const body = await readFile(join(ROOT, path));
      response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('in headless Chromium: every shared vector on the wasm module, and the openai SDK streaming into the page', async () => {
  const server = await serve();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`http://127.0.0.1:${server.address().port}/node/test/browser/page.html`);
    await page.waitForFunction(() => window.cuecardResult !== undefined, null, { timeout: 60_000 });
    const result = await page.evaluate(() => window.cuecardResult);
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(errors, []);
    assert.deepEqual(Object.keys(result.vectors).sort(), ['errors.json', 'scenarios.json', 'tokenizer-reference.json', 'tokenizer.json', 'verify.json', 'wire.json']);
    assert.ok(Object.values(result.vectors).every((ran) => ran > 0));
    assert.match(result.userAgent, /Chrome/);
    assert.equal(result.answer, 'Hello from the browser, streamed word by word.');
    assert.equal(await page.textContent('#answer'), result.answer);
    assert.equal(await page.textContent('#status'), 'done');
    const ran = Object.entries(result.vectors).map(([name, n]) => `${name} ${n}`).join(', ');
    console.log(`chromium: vectors ${ran}; the openai SDK streamed into the page`);
    const { chatSyncUs, tokenizeUs } = result.speed;
    console.log(`chromium speed: chatSync ${chatSyncUs.toFixed(1)} µs/call, tokenize ${tokenizeUs.toFixed(2)} µs/call`);
  } finally {
    await browser.close();
    server.close();
  }
});
