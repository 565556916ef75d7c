// Generated answers and embeddings from Node: tool-call arguments and structured output drawn from the schemas the
// request declared (through the official openai SDK and in-process), and embeddings that rank texts sharing words
// closer. The bytes are the Rust core's (the shared vectors pin them); these tests check what a Node user sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { MockModel, CallbackFailedError, openaiOptions } from 'cuecard';

const weather = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 3 } },
  required: ['city', 'days'],
  additionalProperties: false,
};

test('generate: tool_calls draws arguments valid against the tool schema the SDK sent', async () => {
  const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: [{ generate: 'tool_calls', with: { city: 'Oslo' } }] }] });
  const client = new OpenAI(openaiOptions(mock));
  const completion = await client.chat.completions.create({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather, strict: true } }],
  });
  const [call] = completion.choices[0].message.tool_calls;
  const args = JSON.parse(call.function.arguments);
  assert.equal(call.function.name, 'get_weather');
  assert.equal(args.city, 'Oslo');
  assert.ok(Number.isInteger(args.days) && args.days >= 1 && args.days <= 3, JSON.stringify(args));
  assert.deepEqual(Object.keys(args).sort(), ['city', 'days']);
});

test('generate: output follows response_format, and a schema it cannot satisfy is a CallbackFailedError', async () => {
  const mock = MockModel.fromScenario({ cuecard: 1, routes: [{ steps: [
    { generate: 'output' }, { generate: 'output', schema: { not: { type: 'string' } } }] }] });
  const client = new OpenAI(openaiOptions(mock));
  const completion = await client.chat.completions.create({
    model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weather, strict: true } },
  });
  const output = JSON.parse(completion.choices[0].message.content);
  assert.equal(typeof output.city, 'string');
  assert.ok(output.days >= 1 && output.days <= 3);
  assert.throws(() => mock.chatSync('again'), (error) => {
    assert.ok(error instanceof CallbackFailedError);
    assert.match(error.message, /cannot generate a value at \/not: `not` is not supported/);
    return true;
  });
});

const cosine = (a, b) => {
  const dot = a.reduce((sum, x, i) => sum + x * b[i], 0);
  const norm = (v) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
  return dot / (norm(a) * norm(b));
};

test('embeddings rank texts that share words closer', async () => {
  const client = new OpenAI(openaiOptions(new MockModel()));
  const texts = ['the cat sat on the mat', 'a cat on a mat', 'stock prices fell'];
  const reply = await client.embeddings.create({ model: 'text-embedding-3-small', input: texts });
  const [cat, near, far] = reply.data.map((item) => item.embedding);
  assert.ok(cosine(cat, near) > cosine(cat, far) + 0.2, `${cosine(cat, near)} vs ${cosine(cat, far)}`);
});
