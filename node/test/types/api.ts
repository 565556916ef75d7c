// Type-level use of the package, compiled by `tsc --strict --noEmit` (the README examples are checked the same way).
import OpenAI from 'openai';
import {
  MockModel, assertThat, createFetch, openaiOptions, ProviderError, CuecardError, InvalidArgumentError, Server,
  MockTool, RecordingObserver, type ChatResponse, type StreamEvent,
} from 'cuecard';

export async function typed(): Promise<string> {
  const mock = MockModel.thatResponds('Hi').thenFails('rate_limited', { retryAfterMs: 1 })
    .thenResponds(async (request) => ({ text: `seen ${request.messages.length}`, delayMs: 5 }));
  const response: ChatResponse = await mock.chat('hello');
  const events: StreamEvent[] = mock.streamEventsSync({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
  for (const event of events) {
    if (event.type === 'text_delta') event.text.toUpperCase();
    if (event.type === 'error') event.error.kind satisfies string;
  }
  const client = new OpenAI(openaiOptions(mock, { maxRetries: 1 }));
  await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
  const other = new OpenAI({ apiKey: 'k', fetch: createFetch(mock, { instant: true }) });
  void other;
  assertThat(mock).receivedRequests(2).whenCalled('x').andFailedWith(ProviderError).andRetried(0);
  try {
    MockModel.thatResponds('x');
  } catch (error) {
    if (error instanceof CuecardError) error.code satisfies string;
    if (error instanceof InvalidArgumentError) error.context satisfies object;
    if (error instanceof ProviderError) error.retryAfterMs satisfies number | null;
  }
  const server = new Server(mock, { port: 0 });
  server.stop();
  const tool = new MockTool({ name: 'add', responder: ({ a, b }: { a: number; b: number }) => ({ sum: a + b }) });
  await tool.invoke({ a: 1, b: 2 });
  new RecordingObserver().onCallStarted({ operation: 'x', providerId: 'p' }).onCallCompleted(true);
  for await (const text of mock.stream('q').textStream()) text.length;
  return response.message.text ?? '';
}
