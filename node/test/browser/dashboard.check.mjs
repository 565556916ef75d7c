// The journal dashboard (GET /_cuecard/ on a server) in headless Chromium (Debian's, driven by playwright-core): it
// loads, shows a request the official openai SDK made within a second, highlights an unexpected one, filters by
// outcome, opens a request as sent, shows a hostile message as text and a step's answer fault beside its outcome,
// a realtime session's messages, and the requests to a scripted A2A agent. A screenshot is written to
// CUECARD_SCREENSHOT (docs/dashboard.png when run by hand; CI writes its own beside its build).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import OpenAI from 'openai';
import { MockModel, Server } from 'cuecard';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const SCREENSHOT = process.env.CUECARD_SCREENSHOT ?? fileURLToPath(new URL('../../../docs/dashboard.png', import.meta.url));

test('the journal dashboard in headless Chromium', async () => {
  const mock = MockModel.fromScenario({
    cuecard: 1,
    routes: [{ steps: [{ text: 'Sunny in Paris, 22 °C.' }, { text: 'Light rain tomorrow.' }, { text: 'Dry all weekend long.', fault: 'truncated_output' }] }],
    a2a: { agents: [{ name: 'researcher', steps: [{ text: 'Found it.' }] }] },
  });
  const server = new Server(mock, { instant: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('dialog', (dialog) => { errors.push(`a dialog opened: ${dialog.message()}`); dialog.dismiss(); });
    const response = await page.goto(`${server.baseURL}/_cuecard/`);
    assert.equal(response.status(), 200);
    assert.match(response.headers()['content-security-policy'], /default-src 'none'/);
    await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('0 requests'));

    // A request the openai SDK makes shows up within a second.
    const client = new OpenAI({ baseURL: server.openaiBaseURL, apiKey: 'test', maxRetries: 0 });
    const sent = Date.now();
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    await page.waitForFunction(() => [...document.querySelectorAll('#entries td')].some((td) => td.textContent === 'Sunny in Paris, 22 °C.'), null, { timeout: 1000 });
    const shownAfterMs = Date.now() - sent;
    assert.ok(shownAfterMs < 1000, `shown after ${shownAfterMs} ms`);

    // A hostile message is text, not markup; then a request beyond the script, highlighted.
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: '<img src=x onerror=alert(1)>' }] });
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'And the weekend?' }] });
    await assert.rejects(client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'one too many' }] }));
    await page.waitForSelector('#entries tr.unexpected', { timeout: 2000 });
    const rows = await page.$$eval('#entries tr.entry', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.equal(rows.length, 4);
    assert.deepEqual(rows.map((r) => r[6]), ['answered', 'answered', 'answered (fault: truncated_output)', 'exhausted']);
    assert.equal(rows[1][7], '<img src=x onerror=alert(1)>');
    assert.equal(await page.$$eval('#entries img', (images) => images.length), 0, 'the message was not parsed as HTML');
    assert.equal(await page.$eval('#entries tr.unexpected', (tr) => tr.children[7].textContent), 'one too many');
    assert.match(await page.$eval('#unused', (div) => div.textContent), /every step has answered a request/);

    // Filter by outcome, then open a request as it was sent.
    await page.selectOption('#outcome', 'exhausted');
    await page.waitForFunction(() => document.querySelectorAll('#entries tr.entry').length === 1);
    await page.selectOption('#outcome', '');
    await page.waitForFunction(() => document.querySelectorAll('#entries tr.entry').length === 4);
    await page.click('#entries tr.entry >> nth=0');
    await page.waitForSelector('#entries tr.detail pre');
    assert.match(await page.$eval('#entries tr.detail pre', (pre) => pre.textContent), /"Weather in Paris\?"/);

    // A realtime session (Node's own WebSocket) shows as its messages both ways, in order.
    mock.thenResponds('Hello over the socket.');
    const socket = new WebSocket(`${server.baseURL.replace('http://', 'ws://')}/v1/realtime?model=gpt-realtime`);
    const done = new Promise((resolve, reject) => {
      socket.onmessage = (message) => { if (JSON.parse(message.data).type === 'response.done') resolve(); };
      socket.onerror = reject;
    });
    await new Promise((resolve) => { socket.onopen = resolve; });
    socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } }));
    socket.send(JSON.stringify({ type: 'response.create' }));
    await done;
    socket.close();
    await page.waitForSelector('#sockets details.session', { timeout: 2000 });
    await page.click('#sockets details.session summary');
    await page.waitForFunction(() => [...document.querySelectorAll('#sockets td')].some((td) => td.textContent === ' over'));
    const messages = await page.$$eval('#sockets tr.client td.kind, #sockets tr.server td.kind', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(messages.slice(0, 6), ['open', 'session.created', 'conversation.created', 'session.update', 'session.updated', 'response.create']);
    assert.ok(messages.includes('response.done'), messages.join(' '));

    // A message to the scripted A2A agent shows in its section, with the agent, method, generation and text.
    const delegated = await fetch(`${server.baseURL}/a2a/researcher`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'find it' }] } } }) });
    assert.equal((await delegated.json()).result.status.state, 'completed');
    await page.waitForSelector('#a2a-section:not([hidden]) #a2a tr.entry', { timeout: 2000 });
    const agentRows = await page.$$eval('#a2a tr.entry', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(agentRows.map((r) => [r[3], r[4], r[5], r[8], r[9]]), [['researcher', 'message/send', '0.3', 'answered', 'find it']]);

    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    assert.deepEqual(errors, []);
    console.log(`dashboard in Chromium: 1 passed, 0 failed (a request shown ${shownAfterMs} ms after it was answered; screenshot ${SCREENSHOT})`);
  } finally {
    await browser.close();
    server.stop();
  }
});
