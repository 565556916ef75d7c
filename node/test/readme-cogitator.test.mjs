// The book's example (Node): a Cogitator suite switches to cuecard by changing its import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertThat } from 'cuecard';
import { MockLLMBackend, createToolCall, collectStreamContent } from 'cuecard/cogitator';

test('Cogitator test-utils, backed by cuecard', async () => {
  const backend = new MockLLMBackend().setResponses([
    { toolCalls: [createToolCall('get_weather', { city: 'Tokyo' })] },
    { content: 'It is 22°C in Tokyo.' },
  ]);
  const request = { model: 'test-model', messages: [{ role: 'user', content: 'Weather in Tokyo?' }] };
  const first = await backend.chat(request);
  assert.equal(first.finishReason, 'tool_calls');
  assert.match(first.id, /^mock_\d{8}$/); // deterministic, where Cogitator's are random
  assert.equal((await backend.chat(request)).content, 'It is 22°C in Tokyo.');
  assert.equal((await backend.chat(request)).content, 'It is 22°C in Tokyo.'); // the last answer sticks

  backend.setStreamChunks([{ content: 'Once ' }, { content: 'upon a time' }]);
  assert.equal(await collectStreamContent(backend.chatStream(request)), 'Once upon a time');

  assert.equal(backend.getCallCount(), 4);
  assert.ok(backend.wasCalledWith((r) => r.messages[0].content === 'Weather in Tokyo?'));
  // The journal underneath takes every cuecard check.
  assertThat(backend.model).receivedRequests(4).lastRequest().hasLastUserMessageContaining('Tokyo');
});
