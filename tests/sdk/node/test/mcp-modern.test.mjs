// The TypeScript MCP SDK 2.x client (`@modelcontextprotocol/client`), unmodified, in the stateless 2026-07-28
// revision against cuecard's scripted MCP server: pinned to it over Streamable HTTP (no initialize, no session, the
// Mcp-Method/Mcp-Name headers it sends accepted), and probing (`auto`) over stdio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startServer, binary } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const weather = {
  name: 'weather', instructions: 'Weather tools',
  tools: [{
    name: 'get_forecast', description: 'Forecast for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    steps: [{ text: '22 °C, sunny' }, { is_error: true, text: 'city not found' }],
  }],
  resources: [{ uri: 'file:///notes.txt', text: 'remember the milk' }],
};
const scenario = { cuecard: 1, mcp: { servers: [weather] } };

async function exercise(client) {
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['get_forecast']);
  const first = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
  const second = await client.callTool({ name: 'get_forecast', arguments: { city: 'Atlantis' } });
  const notes = await client.readResource({ uri: 'file:///notes.txt' });
  return [first.content[0].text, [second.isError, second.content[0].text], notes.contents[0].text];
}

const EXPECTED = ['22 °C, sunny', [true, 'city not found'], 'remember the milk'];

test('the 2.x client pinned to 2026-07-28 over Streamable HTTP: stateless, journaled with its revision', async () => {
  await server.load(scenario);
  const client = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.anthropicURL}/mcp`)));
  assert.deepEqual(await exercise(client), EXPECTED);
  await client.close();
  const entries = (await server.journal()).mcp.entries;
  assert.ok(!entries.some((e) => e.method === 'initialize'), entries.map((e) => e.method).join(' '));
  assert.deepEqual([...new Set(entries.map((e) => e.revision))], ['2026-07-28']);
  assert.ok(entries.every((e) => e.session === undefined), 'no session');
});

test('the 2.x client probing (auto) over stdio adopts 2026-07-28', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cuecard-mcp-modern-'));
  const file = path.join(dir, 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  const client = new Client({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StdioClientTransport({ command: binary, args: ['mcp', '--scenario', file] }));
  assert.deepEqual(await exercise(client), EXPECTED);
  await client.close();
});

test('the 2.x client answers a tool step that asks for input (multi-round-trip) with its handler, and retries', async () => {
  const confirm = {
    method: 'elicitation/create',
    params: { message: 'Delete 3 files?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
  };
  const files = {
    name: 'files',
    tools: [{
      name: 'delete',
      steps: [
        { input_required: { confirm } },
        { match: { input_responses: { confirm: { action: 'decline' } } }, text: 'Kept them.' },
        { match: { input_responses: { confirm: { action: 'accept' } } }, text: 'Deleted 3 files.' },
      ],
    }],
  };
  await server.load({ cuecard: 1, mcp: { servers: [files] } });
  const client = new Client({ name: 'modern', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const asked = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { ok: true } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.anthropicURL}/mcp`)));
  const result = await client.callTool({ name: 'delete', arguments: { dir: '/tmp' } });
  await client.close();
  assert.equal(result.content[0].text, 'Deleted 3 files.');
  assert.deepEqual(asked, ['Delete 3 files?']);
  const calls = (await server.journal()).mcp.entries.filter((e) => e.method === 'tools/call');
  assert.deepEqual(calls.map((c) => c.result.resultType), ['input_required', 'complete']);
  assert.deepEqual(calls[1].input_responses, { confirm: { action: 'accept', content: { ok: true } } });
  assert.equal(calls[1].step, 2);
});
