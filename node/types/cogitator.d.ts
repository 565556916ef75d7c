// `cuecard/cogitator`: the exports of `@cogitator-ai/test-utils`, backed by cuecard's core. The shapes are
// Cogitator's (`@cogitator-ai/types`), declared here so no Cogitator package is needed to type-check.
import type { MockModel } from './index';

export type Role = 'system' | 'user' | 'assistant' | 'tool';
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
  | { type: 'image_base64'; image_base64: { data: string; media_type: string } };

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface Message {
  role: Role;
  content: string | ContentPart[];
  name?: string;
  toolCallId?: string;
  toolCalls?: ToolCall[];
}

export interface ToolSchema {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

export interface ChatRequest {
  model: string;
  messages: Message[];
  tools?: ToolSchema[];
  toolChoice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  stream?: boolean;
  responseFormat?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; jsonSchema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean } };
}

export type FinishReason = 'stop' | 'tool_calls' | 'length' | 'error';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface ChatResponse {
  id: string;
  content: string;
  toolCalls?: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

export interface ChatStreamChunk {
  id: string;
  delta: { content?: string; toolCalls?: Partial<ToolCall>[] };
  finishReason?: FinishReason;
  usage?: Usage;
}

/** A scripted answer: a partial ChatResponse, plus `error` (thrown instead of answering) and `delay` (ms). */
export interface MockChatResponse extends Partial<Omit<ChatResponse, 'usage'>> {
  usage?: Partial<Usage>;
  error?: Error;
  delay?: number;
}

/** A scripted stream chunk. */
export interface MockStreamChunk {
  content?: string;
  toolCalls?: Partial<ToolCall>[];
  finishReason?: FinishReason;
  delay?: number;
}

/** Cogitator's LLMBackend, scripted: the last answer (and the last chunk list) repeats. */
export declare class MockLLMBackend {
  readonly provider: 'openai';
  /** The MockModel underneath: its journal, `assertThat(backend.model)`, every check. */
  readonly model: MockModel;
  setResponse(response: MockChatResponse): this;
  setResponses(responses: MockChatResponse[]): this;
  setToolCallResponse(toolCalls: ToolCall[], content?: string): this;
  setStreamChunks(chunks: MockStreamChunk[]): this;
  setMultipleStreamChunks(chunkLists: MockStreamChunk[][]): this;
  setDefaultDelay(ms: number): this;
  reset(): this;
  chat(request: ChatRequest): Promise<ChatResponse>;
  chatStream(request: ChatRequest): AsyncGenerator<ChatStreamChunk>;
  /** Snapshots of every request received (`chat()` and `chatStream()`). */
  getCalls(): ChatRequest[];
  getLastCall(): ChatRequest | undefined;
  getCallCount(): number;
  wasCalledWith(predicate: (request: ChatRequest) => boolean): boolean;
}
export declare function createMockLLMBackend(): MockLLMBackend;

export interface Thread {
  id: string;
  agentId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface MemoryEntry {
  id: string;
  threadId: string;
  message: Message;
  toolCalls?: ToolCall[];
  toolResults?: ToolResult[];
  tokenCount: number;
  createdAt: Date;
  metadata?: Record<string, unknown>;
}

export type MemoryResult<T> = { success: true; data: T } | { success: false; error: string };

export interface MemoryQueryOptions {
  threadId: string;
  limit?: number;
  before?: Date;
  after?: Date;
  includeToolCalls?: boolean;
}

/** Cogitator's MemoryAdapter, in memory, recording every call. */
export declare class MockMemoryAdapter {
  readonly provider: 'memory';
  connect(): Promise<MemoryResult<void>>;
  disconnect(): Promise<MemoryResult<void>>;
  isConnected(): boolean;
  createThread(agentId: string, metadata?: Record<string, unknown>, threadId?: string): Promise<MemoryResult<Thread>>;
  getThread(threadId: string): Promise<MemoryResult<Thread | null>>;
  updateThread(threadId: string, metadata: Record<string, unknown>): Promise<MemoryResult<Thread>>;
  deleteThread(threadId: string): Promise<MemoryResult<void>>;
  addEntry(entry: Omit<MemoryEntry, 'id' | 'createdAt' | 'tokenCount'> & { tokenCount?: number }): Promise<MemoryResult<MemoryEntry>>;
  getEntries(options: MemoryQueryOptions): Promise<MemoryResult<MemoryEntry[]>>;
  getEntry(entryId: string): Promise<MemoryResult<MemoryEntry | null>>;
  deleteEntry(entryId: string): Promise<MemoryResult<void>>;
  clearThread(threadId: string): Promise<MemoryResult<void>>;
  getCalls(): { method: string; args: unknown[] }[];
  getCallsFor(method: string): { method: string; args: unknown[] }[];
  reset(): void;
}
export declare function createMockMemoryAdapter(): MockMemoryAdapter;

export interface AgentConfig {
  id?: string;
  name: string;
  description?: string;
  model: string;
  instructions: string;
  tools?: { name: string }[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  maxIterations?: number;
  timeout?: number;
  [setting: string]: unknown;
}

export interface TestAgent {
  id: string;
  name: string;
  model: string;
  instructions: string;
  tools: { name: string }[];
  config: AgentConfig;
  clone(overrides?: Partial<AgentConfig>): TestAgent;
  serialize(): {
    version: '1.0';
    id: string;
    name: string;
    config: { model: string; instructions: string; tools: string[]; temperature?: number; maxIterations?: number; timeout?: number };
    metadata: { serializedAt: string };
  };
}

export interface ToolResult {
  callId: string;
  name: string;
  result: unknown;
  error?: string;
}

export interface RunResult {
  output: string;
  runId: string;
  agentId: string;
  threadId: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number; cost: number; duration: number };
  toolCalls: ToolCall[];
  messages: Message[];
  trace: { traceId: string; spans: unknown[] };
  [field: string]: unknown;
}

/** A tool-shaped object with JSON Schema parameters (not a Zod `tool()`). */
export interface SimpleTool<A = Record<string, unknown>, R = unknown> {
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  execute(args: A, context?: unknown): Promise<R>;
}

export declare function createTestAgentConfig(overrides?: Partial<AgentConfig>): AgentConfig & { id: string };
export declare function createTestAgent(overrides?: Partial<AgentConfig>): TestAgent;
export declare function createUserMessage(content: string): Message;
export declare function createAssistantMessage(content: string): Message;
export declare function createSystemMessage(content: string): Message;
export declare function createToolMessage(toolCallId: string, content: string, name?: string): Message;
export declare function createMultimodalMessage(parts: ContentPart[]): Message;
export declare function createImageUrlMessage(text: string, url: string): Message;
export declare function createConversation(...turns: { role: string; content: string }[]): Message[];
export declare function createToolCall(name: string, args?: Record<string, unknown>): ToolCall;
export declare function createToolResult(call: ToolCall, result: unknown, error?: string): ToolResult;
export declare function createMockRunResult(output: string, options?: Partial<RunResult>): RunResult;
export declare function createRunResultWithToolCalls(output: string, toolCalls: ToolCall[], options?: Partial<RunResult>): RunResult;
export declare function createRunResultWithMessages(output: string, messages: Message[], options?: Partial<RunResult>): RunResult;
export declare function createTestTool(options?: Partial<SimpleTool>): SimpleTool;
export declare function createCalculatorTool(): SimpleTool<{ expression: string }, { result: number } | { error: string }>;
export declare function createWeatherTool(): SimpleTool<{ city: string; units?: string }, { city: string; temperature: number; condition: string; units: string }>;
export declare function createFailingTool(message?: string): SimpleTool<Record<string, unknown>, never>;
export declare function createSlowTool(ms?: number): SimpleTool<Record<string, unknown>, { result: 'completed'; delay: number; args: unknown }>;
export declare function createToolSchema(name: string, description?: string): ToolSchema;

export declare function collectStreamContent(stream: AsyncIterable<ChatStreamChunk>): Promise<string>;
export declare function collectStreamChunks(stream: AsyncIterable<ChatStreamChunk>): Promise<ChatStreamChunk[]>;
export declare function collectStreamToolCalls(stream: AsyncIterable<ChatStreamChunk>): Promise<{ name: string; arguments: unknown }[]>;
export declare function createMockReadableStream(chunks: string[]): ReadableStream<Uint8Array>;
export declare function waitFor<T>(condition: () => T | Promise<T>, options?: { timeout?: number; interval?: number }): Promise<T>;
export declare function eventually<T>(assertion: () => T | Promise<T>, options?: { timeout?: number; interval?: number }): Promise<T>;
export declare function delay(ms: number): Promise<void>;
export declare function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T>;
/** Restarts the fixtures' deterministic id counters. */
export declare function resetFixtureIds(): void;
