// cuecard's jest matchers and per-test mock, under jest.
const { MockModel, createFetch } = require('cuecard');
const { useCuecardMock } = require('cuecard/jest');

describe('cuecard matchers on jest', () => {
  test('pass and fail with the core\'s message; .not works', async () => {
    const mock = MockModel.thatResponds('Paris').thenResponds('unused');
    await mock.chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Capital of France?' }] });
    expect(mock).toHaveBeenCalledTimes(1);
    expect(mock).toHaveReceivedUserMessageContaining('France');
    expect(mock).not.toHaveReceivedUserMessageContaining('Spain');
    expect(mock).not.toHaveUsedAllSteps();
    expect(() => expect(mock).toHaveUsedScriptFully()).toThrow(/script_fully_used\(\) failed/);
  });

  test('the MCP matchers read the MCP journal', async () => {
    const mock = MockModel.fromScenario({ cuecard: 1, mcp: { servers: [{ name: 'w', tools: [{ name: 't', steps: [{ text: 'x' }] }] }] } });
    const fetch = createFetch(mock);
    const post = (body, session) => fetch('http://cuecard.test/mcp', { method: 'POST', body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...(session && { 'mcp-session-id': session }) } });
    const init = await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } });
    await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { a: 1 } } }, init.headers.get('mcp-session-id'));
    expect(mock).toHaveCalledMcpTool('t', { times: 1, arguments: { a: 1 } });
    expect(mock).not.toHaveCalledMcpTool('t', { times: 2 });
    expect(() => expect(mock).toHaveCalledMcpTool('u')).toThrow(/mcp_tool_called\("u"\) failed/);
    expect(mock).toHaveNoUnexpectedMcpCalls();
  });

  test('the batch matchers read a batch and its lines', async () => {
    const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: ['One.', 'Two.'] }] });
    const fetch = createFetch(mock);
    const line = (id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions',
      body: { model: 'm', messages: [{ role: 'user', content: id }] } });
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([`${line('a')}\n${line('b')}\n${line('c')}\n`]), 'in.jsonl');
    const file = await (await fetch('http://cuecard.test/v1/files', { method: 'POST', body: form })).json();
    const batch = await (await fetch('http://cuecard.test/v1/batches', { method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) })).json();
    for (let i = 0; i < 3; i++) await fetch(`http://cuecard.test/v1/batches/${batch.id}`);
    expect(mock).toHaveBatchHeld(3);
    expect(mock).toHaveBatchHeld(3, batch.id);
    expect(mock).not.toHaveAnsweredEveryBatchLine();
    expect(() => expect(mock).toHaveAnsweredEveryBatchLine()).toThrow(/1 of its 3 lines took no step/);
  });

  test('toHaveBeenCalledTimes keeps its meaning on jest.fn()', () => {
    const spy = jest.fn();
    spy();
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe('the per-test mock', () => {
  const cuecard = useCuecardMock();

  test('is fresh in each test and passes when its script was used', async () => {
    cuecard.mock.thenResponds('first test');
    expect((await cuecard.mock.chat('hi')).message.text).toBe('first test');
  });

  test('starts empty again', () => {
    expect(cuecard.mock.requestCount).toBe(0);
  });
});
