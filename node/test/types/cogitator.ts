// Type-level use of cuecard/cogitator under tsc --strict, as a Cogitator suite writes it.
import { assertThat } from 'cuecard';
import {
  MockLLMBackend, MockMemoryAdapter, createToolCall, createWeatherTool, collectStreamContent, createTestAgentConfig,
  type ChatRequest, type ChatResponse, type MemoryResult, type Thread,
} from 'cuecard/cogitator';

export async function typedCogitatorUse(): Promise<number> {
  const mock = new MockLLMBackend()
    .setResponses([{ toolCalls: [createToolCall('get_weather', { city: 'Tokyo' })] }, { content: 'It is 22°C in Tokyo.' }])
    .setDefaultDelay(0);
  const request: ChatRequest = { model: 'test-model', messages: [{ role: 'user', content: 'Weather?' }] };
  const response: ChatResponse = await mock.chat(request);
  const weather = await createWeatherTool().execute({ city: 'Tokyo' });
  const text: string = await collectStreamContent(mock.setStreamChunks([{ content: 'a' }]).chatStream(request));
  assertThat(mock.model).receivedRequests(2);
  const memory = new MockMemoryAdapter();
  const thread: MemoryResult<Thread> = await memory.createThread(createTestAgentConfig().id);
  // @ts-expect-error a response's error must be an Error
  mock.setResponse({ error: 'text' });
  return response.usage.totalTokens + weather.temperature + text.length + (thread.success ? 1 : 0) + (mock.getLastCall()?.messages.length ?? 0);
}
