// The AWS SDK for JavaScript's Bedrock Runtime client, unmodified, against `cuecard serve`: with its default handler
// (HTTP/2 with prior knowledge over http://) and with NodeHttpHandler (HTTP/1.1); and the AI SDK's Bedrock provider.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, ThrottlingException, InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { generateText, streamText, tool, jsonSchema, stepCountIs } from 'ai';
import { startServer, scenario } from './cuecard.mjs';

let server;
before(async () => { server = await startServer(); });
after(async () => { await server.stop(); });

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const clients = {
  'HTTP/2 (the default handler)': () => new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.anthropicURL, credentials, maxAttempts: 1 }),
  'HTTP/1.1 (NodeHttpHandler)': () => new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.anthropicURL, credentials, maxAttempts: 1, requestHandler: new NodeHttpHandler() }),
};
const ask = (text = 'Say hello') => [{ role: 'user', content: [{ text }] }];

for (const [name, make] of Object.entries(clients)) {
  test(`${name}: converse, a stream of event-stream frames, a tool round trip`, async () => {
    await server.load(scenario(
      { text: 'Hello, world!', usage: { input_tokens: 5, output_tokens: 4 } },
      { thinking: 'Hm.', text: 'Hello, world! Order 12345' },
      { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
      'Sunny.',
    ));
    const client = make();
    const whole = await client.send(new ConverseCommand({ modelId: MODEL, messages: ask() }));
    assert.deepEqual(whole.output.message.content, [{ text: 'Hello, world!' }]);
    assert.deepEqual([whole.stopReason, whole.usage.totalTokens], ['end_turn', 9]);
    const streamed = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: ask() }));
    const texts = [];
    const kinds = [];
    for await (const event of streamed.stream) {
      kinds.push(Object.keys(event)[0]);
      if (event.contentBlockDelta?.delta?.text) texts.push(event.contentBlockDelta.delta.text);
    }
    assert.deepEqual(texts, ['Hello', ',', ' world', '!', ' Order', ' ', '123', '45']);
    assert.deepEqual([kinds[0], ...kinds.slice(-2)], ['messageStart', 'messageStop', 'metadata']);
    const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] };
    const messages = ask('Weather in Paris?');
    const first = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
    const use = first.output.message.content[0].toolUse;
    assert.deepEqual([use.name, use.input], ['get_weather', { city: 'Paris' }]);
    messages.push(first.output.message, { role: 'user', content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ json: { temp_c: 21 } }] } }] });
    const final = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
    assert.deepEqual(final.output.message.content, [{ text: 'Sunny.' }]);
    const entries = await server.entries();
    assert.equal(entries[0].request.model, MODEL);
    assert.deepEqual(entries.at(-1).request.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
  });

  test(`${name}: a 429 is a ThrottlingException, an in-stream exception throws the modelled class`, async () => {
    await server.load(scenario({ fail: { kind: 'rate_limited' } }, { text: 'Partial answer', fail_after: { kind: 'rate_limited' } }));
    const client = make();
    await assert.rejects(client.send(new ConverseCommand({ modelId: MODEL, messages: ask() })), (e) => e instanceof ThrottlingException && e.$metadata.httpStatusCode === 429);
    const streamed = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: ask() }));
    const texts = [];
    await assert.rejects(async () => {
      for await (const event of streamed.stream) if (event.contentBlockDelta) texts.push(event.contentBlockDelta.delta.text);
    }, (e) => e.name === 'ThrottlingException');
    assert.deepEqual(texts, ['Partial', ' answer']);
  });
}

test('the default client retries a scripted 429 (standard mode), every attempt journaled; InvokeModel', async () => {
  await server.load(scenario({ fail: { kind: 'rate_limited' } }, 'recovered', 'invoked'));
  const client = new BedrockRuntimeClient({ region: 'us-east-1', endpoint: server.anthropicURL, credentials, maxAttempts: 3 });
  const whole = await client.send(new ConverseCommand({ modelId: MODEL, messages: ask() }));
  assert.deepEqual(whole.output.message.content, [{ text: 'recovered' }]);
  assert.equal(whole.$metadata.attempts, 2);
  assert.deepEqual(await server.outcomes(), ['failed', 'answered']);
  const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
  const invoked = await client.send(new InvokeModelCommand({ modelId: MODEL, body }));
  assert.deepEqual(JSON.parse(new TextDecoder().decode(invoked.body)).content, [{ type: 'text', text: 'invoked' }]);
});

test('@ai-sdk/amazon-bedrock: generateText, streamText and a tool loop', async () => {
  await server.load(scenario(
    { text: 'Hello, world!', usage: { input_tokens: 3, output_tokens: 4 } },
    { text: 'Hello, world!' },
    { tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    'Sunny in Paris.',
  ));
  const bedrock = createAmazonBedrock({ region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test', baseURL: server.anthropicURL });
  const whole = await generateText({ model: bedrock(MODEL), prompt: 'Say hello', maxRetries: 0 });
  assert.deepEqual([whole.text, whole.usage.inputTokens, whole.usage.outputTokens], ['Hello, world!', 3, 4]);
  const deltas = [];
  for await (const delta of streamText({ model: bedrock(MODEL), prompt: 'Say hello', maxRetries: 0 }).textStream) deltas.push(delta);
  assert.deepEqual(deltas, ['Hello', ',', ' world', '!']);
  const asked = [];
  const loop = await generateText({
    model: bedrock(MODEL), prompt: 'Weather in Paris?', maxRetries: 0, stopWhen: stepCountIs(3),
    tools: { get_weather: tool({ inputSchema: jsonSchema({ type: 'object', properties: { city: { type: 'string' } } }), execute: async ({ city }) => { asked.push(city); return `sunny in ${city}`; } }) },
  });
  assert.equal(loop.text, 'Sunny in Paris.');
  assert.deepEqual(asked, ['Paris']);
});
