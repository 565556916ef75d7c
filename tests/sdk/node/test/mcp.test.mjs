// The official TypeScript MCP SDK client (`@modelcontextprotocol/sdk` 1.x), unmodified, against cuecard's scripted
// MCP server: over Streamable HTTP on `cuecard serve` and over stdio with `cuecard mcp`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startServer, binary } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const weather = {
  name: 'weather', instructions: 'Weather tools',
  tools: [{
    name: 'get_forecast', description: 'Forecast for a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    output_schema: { type: 'object', properties: { temp_c: { type: 'number' } }, required: ['temp_c'] },
    steps: [
      { match: { arguments: { city: 'Paris' } }, structured: { temp_c: 22 }, text: '22 °C, sunny' },
      { is_error: true, text: 'city not found' },
      { error: { code: -32603, message: 'backend down' } },
      { progress: [1, 2], delay_ms: 30, structured: { temp_c: 4 } },
      { structured: { temp_c: 'warm' } },
    ],
  }],
};
const mcpScenario = { cuecard: 1, mcp: { servers: [weather] } };

/** Every kind of step through one client; returns what came back. */
async function exercise(client) {
  assert.equal(client.getServerVersion().name, 'weather');
  assert.equal(client.getInstructions(), 'Weather tools');
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['get_forecast']);
  const seen = [];
  const paris = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
  seen.push([paris.content[0].text, paris.structuredContent]);
  const failed = await client.callTool({ name: 'get_forecast', arguments: { city: 'Atlantis' } });
  seen.push([failed.isError, failed.content[0].text]);
  await assert.rejects(client.callTool({ name: 'get_forecast', arguments: { city: 'Rome' } }),
    (e) => e instanceof McpError && e.code === -32603 && /backend down/.test(e.message));
  const progress = [];
  const slow = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lima' } }, undefined,
    { onprogress: (p) => progress.push([p.progress, p.total]) });
  seen.push([slow.structuredContent, progress]);
  // The SDK checks structured output against the tool's outputSchema: a scripted mismatch fails on the client.
  await assert.rejects(client.callTool({ name: 'get_forecast', arguments: { city: 'Oslo' } }),
    (e) => e instanceof McpError && e.code === -32602);
  await assert.rejects(client.callTool({ name: 'get_wether', arguments: {} }),
    (e) => e instanceof McpError && e.code === -32602 && /Unknown tool: get_wether/.test(e.message));
  return seen;
}

const expected = [['22 °C, sunny', { temp_c: 22 }], [true, 'city not found'], [{ temp_c: 4 }, [[1, 2], [2, 2]]]];

test('the TypeScript SDK client over Streamable HTTP', async () => {
  await server.load(mcpScenario);
  const client = new Client({ name: 'node-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(server.anthropicURL + '/mcp'));
  await client.connect(transport);
  assert.deepEqual(await exercise(client), expected);
  await transport.terminateSession();
  await client.close();
  const { mcp } = await server.journal();
  const methods = mcp.entries.map((e) => e.method);
  assert.deepEqual(methods.slice(0, 2), ['initialize', 'notifications/initialized']);
  assert.ok(methods.includes('GET'), 'the client tried the GET stream (answered 405)');
  assert.equal(methods.at(-1), 'DELETE');
  assert.equal(mcp.entries.find((e) => e.name === 'get_wether').outcome, 'unmatched');
  assert.deepEqual(mcp.unused_steps, []);
});

test('the TypeScript SDK client over stdio, with the journal written at exit', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cuecard-mcp-'));
  const file = path.join(dir, 'weather.json');
  writeFileSync(file, JSON.stringify(mcpScenario));
  const journal = path.join(dir, 'journal.json');
  const transport = new StdioClientTransport({ command: binary, args: ['mcp', '--scenario', file, '--journal', journal] });
  const client = new Client({ name: 'node-test', version: '1.0.0' });
  await client.connect(transport);
  assert.deepEqual(await exercise(client), expected);
  await client.close();
  const entries = JSON.parse(readFileSync(journal, 'utf8')).entries;
  assert.deepEqual(entries.filter((e) => e.method === 'tools/call').map((e) => [e.arguments.city ?? null, e.step ?? null]),
    [['Paris', 0], ['Atlantis', 1], ['Rome', 2], ['Lima', 3], ['Oslo', 4], [null, null]]);
  assert.ok(entries.every((e) => e.transport === 'stdio'));
});

test('an MCP recording (cuecard record -- COMMAND) replays to the TypeScript client over stdio', async () => {
  const recording = fileURLToPath(new URL('../../../recordings/mcp-weather.yaml', import.meta.url));
  const client = new Client({ name: 'node-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: binary, args: ['mcp', '--scenario', recording] }));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const paris = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
  const atlantis = await client.callTool({ name: 'get_forecast', arguments: { city: 'Atlantis' } });
  const notes = (await client.readResource({ uri: 'file:///notes.txt' })).contents[0].text;
  const prompt = (await client.getPrompt({ name: 'summarize', arguments: { topic: 'rain' } })).messages[0].content.text;
  await client.close();
  assert.deepEqual([tools, paris.content[0].text, atlantis.isError, notes, prompt],
    [['get_forecast'], '22 °C, sunny', true, 'Bring an umbrella on Fridays.', 'Summarize rain in one line.']);
});
