// The ESM entry of `cuecard/cogitator`: the same objects as the CommonJS entry.
import cogitator from '../lib/cogitator.js';

export const {
  MockLLMBackend, createMockLLMBackend, MockMemoryAdapter, createMockMemoryAdapter,
  createTestAgentConfig, createTestAgent, createUserMessage, createAssistantMessage, createSystemMessage,
  createToolMessage, createMultimodalMessage, createImageUrlMessage, createConversation, createToolCall,
  createToolResult, createMockRunResult, createRunResultWithToolCalls, createRunResultWithMessages, createTestTool,
  createCalculatorTool, createWeatherTool, createFailingTool, createSlowTool, createToolSchema,
  collectStreamContent, collectStreamChunks, collectStreamToolCalls, createMockReadableStream,
  waitFor, eventually, delay, withTimeout, resetFixtureIds,
} = cogitator;
export default cogitator;
