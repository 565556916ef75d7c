// Scripted MCP servers from Node: the TypeScript SDK's `Client` on cuecard's in-process `McpTransport` (no socket),
// the MCP journal, the fluent checks and matchers, and typed errors for bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MockModel, McpTransport, assertThat, AssertionFailedError, InvalidScenarioError, CuecardError } from 'cuecard';

const scenario = {
  cuecard: 1, instant: true, routes: [{ steps: [{ text: 'unused' }] }],
  mcp: { servers: [
    { name: 'weather', tools: [{ name: 'get_forecast', steps: [
      { match: { arguments: { city: 'Paris' } }, text: '22 °C, sunny' },
      { progress: [1, 2], delay_ms: 20, structured: { temp_c: 4 } },
      { drop_connection: true },
    ] }] },
    { name: 'notes', resources: [{ uri: 'file:///notes.txt', text: 'milk' }] },
  ] },
};

// ANCHOR: in_process
test('the TypeScript SDK client on the in-process transport reaches every step, and the journal shows it', async () => {
  const mock = MockModel.fromScenario(scenario);
  const client = new Client({ name: 'node-test', version: '1.0.0' });
  await client.connect(new McpTransport(mock));
  assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['get_forecast']);
  const paris = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
  assert.equal(paris.content[0].text, '22 °C, sunny');
  const progress = [];
  const lima = await client.callTool({ name: 'get_forecast', arguments: { city: 'Lima' } }, undefined,
    { onprogress: (p) => progress.push([p.progress, p.total]) });
  assert.deepEqual([lima.structuredContent, progress], [{ temp_c: 4 }, [[1, 2], [2, 2]]]);
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (e) => e instanceof McpError && e.code === -32602);
  await client.close();
  assert.deepEqual(mock.mcpEntries().map((e) => e.method),
    ['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call', 'tools/call', 'DELETE']);
  assert.deepEqual(mock.mcpUnusedSteps(), [{ server: 'weather', tool: 'get_forecast', step: 2 }]);
  assert.equal(mock.requestCount, 0, 'MCP messages are not model requests');
  assertThat(mock).mcpToolCalled('get_forecast', { times: 2 })
    .mcpToolCalled('get_forecast', { server: 'weather', arguments: { city: 'Paris' }, times: 1 }).mcpToolsListed('weather');
  assert.throws(() => assertThat(mock).noUnexpectedMcpCalls(),
    (e) => e instanceof AssertionFailedError && /tools\/call nope {2}unmatched/.test(e.message));
  assert.throws(() => assertThat(mock).allMcpStepsUsed(), /weather get_forecast step 2/);
});
// ANCHOR_END: in_process

test('a named server answers, and a dropped connection closes the transport', async () => {
  const mock = MockModel.fromScenario(scenario);
  const notes = new Client({ name: 'node-test', version: '1.0.0' });
  await notes.connect(new McpTransport(mock, { server: 'notes' }));
  assert.equal((await notes.readResource({ uri: 'file:///notes.txt' })).contents[0].text, 'milk');
  await notes.close();

  const client = new Client({ name: 'node-test', version: '1.0.0' });
  let closed = false;
  client.onclose = () => { closed = true; };
  await client.connect(new McpTransport(mock));
  await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
  await client.callTool({ name: 'get_forecast', arguments: { city: 'Lima' } });
  await assert.rejects(client.callTool({ name: 'get_forecast', arguments: { city: 'Rome' } }),
    (e) => e instanceof McpError && /Connection closed/.test(e.message));
  assert.ok(closed);
  const dropped = mock.mcpEntries().filter((e) => e.dropped_connection);
  assert.deepEqual(dropped.map((e) => [e.arguments, e.step]), [[{ city: 'Rome' }, 2]]);
});

test('bad input is a typed error naming what was wrong', () => {
  assert.throws(() => MockModel.fromScenario({ cuecard: 1, mcp: { servers: [{ name: 'w', tools: [{ name: 't', steps: [{ text: 'a', drop_connection: true }] }] }] } }),
    (e) => e instanceof InvalidScenarioError && /mcp\.servers\[0\]\.tools\[0\]\.steps\[0\]/.test(e.message));
  const mock = MockModel.fromScenario(scenario);
  assert.throws(() => new McpTransport(mock, { server: 3 }), (e) => e instanceof CuecardError && /options\.server/.test(e.message));
  assert.throws(() => new McpTransport(mock, 'weather'), (e) => e instanceof CuecardError && /options/.test(e.message));
});
