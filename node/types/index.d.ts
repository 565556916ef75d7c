// Types of the package `cuecard` (hand-written over the JS in lib/; the addon's own generated types are
// native/index.d.ts). Data crossing to the core is cuecard's neutral JSON, the same in every language, so its
// field names are snake_case; option objects take camelCase or snake_case.

// ---- the neutral data -----------------------------------------------------------------------------------------

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; url?: string; data?: string; media_type?: string; detail?: string }
  | { type: 'audio'; data: string; format: string }
  | { type: 'file'; file_id?: string; url?: string; data?: string; media_type?: string; filename?: string };

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the JSON text the model produced. */
  arguments: string;
}

export interface Message {
  role: Role;
  /** A text, or content parts (journaled requests always hold parts). */
  content: string | ContentPart[];
  thinking?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: JsonValue;
}

export type ToolChoice = 'auto' | 'none' | 'required' | { tool: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; schema: JsonValue; strict?: boolean };

/** A request in cuecard's neutral format (what `chat` takes and the journal keeps). */
export interface ChatRequest {
  model?: string;
  messages?: Message[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  response_format?: ResponseFormat;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  stop?: string[];
  seed?: number;
  stream?: boolean;
  metadata?: { operation?: string; endpoint?: string; [extra: string]: JsonValue | undefined };
}

/** A request as the journal keeps it: every field resolved. */
export interface JournaledRequest extends ChatRequest {
  model: string;
  messages: Array<Message & { content: ContentPart[] }>;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'refusal' | 'other';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cached_tokens?: number;
}

export interface AssistantMessage {
  text?: string;
  thinking?: string;
  tool_calls?: ToolCall[];
}

export interface ChatResponse {
  id?: string;
  model?: string;
  created?: number;
  message: AssistantMessage;
  finish_reason?: FinishReason;
  usage?: Usage;
}

export interface ProviderFailure {
  kind: FailureKind;
  status: number | null;
  retryable: boolean;
  retry_after_ms?: number;
  message: string;
  error_type?: string;
  error_code?: string;
}

interface Timing {
  /** Milliseconds to wait before this event, after the previous one. */
  delay_ms: number;
  /** Virtual time of the event, in milliseconds since the mock was created. */
  at_ms: number;
}

export type StreamEvent = Timing & (
  | { type: 'thinking_delta'; text: string }
  | { type: 'text_delta'; text: string }
  | { type: 'tool_call_delta'; index: number; id: string; name: string; arguments: string }
  | { type: 'tool_call'; index: number; call: ToolCall }
  | { type: 'complete'; response: ChatResponse }
  | { type: 'error'; error: ProviderFailure }
);

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A tool call's arguments: an object, a string that is the raw arguments text (possibly invalid JSON on purpose),
 * or null for `{}`. The same rule as `tool_calls[].arguments` in a scenario file. */
export type ToolArguments = { [key: string]: JsonValue } | string | null;

// ---- scripting ------------------------------------------------------------------------------------------------

export type FailureKind =
  | 'rate_limited' | 'overloaded' | 'server_error' | 'unavailable' | 'timeout' | 'unauthorized' | 'forbidden'
  | 'not_found' | 'bad_request' | 'context_length_exceeded' | 'content_filtered' | 'connection_reset' | 'custom';

export interface FailureOptions {
  status?: number;
  message?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  errorType?: string;
  errorCode?: string;
}

/** A fault inside the answer: a kind of the `answer_faults` setting, a step's `fault`, the journal's `answer_fault`. */
export type AnswerFaultKind =
  | 'invalid_arguments' | 'schema_violation' | 'unknown_tool' | 'duplicate_call_id' | 'empty_tool_name'
  | 'length_in_tool_call' | 'truncated_output' | 'refusal' | 'content_filter' | 'reasoning_only' | 'empty_answer'
  | 'output_schema_violation';

export interface ToolCallSpec {
  name: string;
  arguments?: ToolArguments;
  argumentsJson?: string;
  id?: string;
}

/** A step: what `thenResponds` takes besides a text or a function. */
export interface StepObject {
  text?: string;
  tokens?: string[];
  thinking?: string;
  toolCalls?: ToolCallSpec[];
  response?: ChatResponse;
  /** A failure: its kind alone (`"rate_limited"`), or the kind with details. */
  fail?: FailureKind | (FailureOptions & { kind: FailureKind });
  failAfter?: FailureKind | (FailureOptions & { kind: FailureKind });
  finishReason?: FinishReason;
  usage?: { input_tokens: number; output_tokens: number; total_tokens?: number };
  delayMs?: number;
  ttftMs?: number;
  tokenDelayMs?: number;
  stallMs?: number;
  /** On a realtime socket: the session ends after this answer, announced this many milliseconds ahead. */
  goAwayMs?: number;
  /** A fault inside the answer, every time the step is taken (as `answer_faults` would draw it). */
  fault?: AnswerFaultKind;
  [snakeCaseAlias: string]: unknown;
}

/** A function computing the answer from the request, sync or async. */
export type Responder = (request: JournaledRequest) => string | StepObject | Promise<string | StepObject>;

export type Exhaustion = 'fail' | 'repeat_last' | 'cycle';

export interface StepTiming {
  delayMs?: number;
  ttftMs?: number;
  tokenDelayMs?: number;
  stallMs?: number;
}

export interface MockSettings {
  instant?: boolean;
  usage?: 'none' | 'estimate' | { input_tokens: number; output_tokens: number };
  seed?: number;
  providerId?: string;
  capabilities?: string[];
  onExhausted?: Exhaustion;
  stepDefaults?: StepTiming;
  journalLimit?: number | null;
  /** Where Chat Completions replies carry scripted thinking (OpenAI-compatible providers). */
  reasoningField?: 'none' | 'reasoning_content' | 'reasoning';
}

export interface RouteOptions {
  operation?: string;
  model?: string;
  endpoint?: string;
  onExhausted?: Exhaustion;
}

export type Outcome = 'pending' | 'answered' | 'failed' | 'failed_after_tokens' | 'exhausted' | 'unmatched'
  | 'callback_failed' | 'rejected';

export interface JournalEntry {
  index: number;
  request: JournaledRequest;
  raw?: { path: string; body: string };
  route: number | null;
  step: number | null;
  outcome: Outcome;
  at_ms: number;
  kind?: string;
  status?: number | null;
  message?: string;
  reason?: string;
  response?: ChatResponse;
  error?: ProviderFailure;
}

/** One MCP message a scripted MCP server received (the `mcp` section of a scenario). */
/** One message of a realtime session (a WebSocket), journaled in the order it crossed. */
export interface SocketEvent {
  index: number;
  after_requests: number;
  at_ms: number;
  session: string;
  protocol: 'openai_realtime' | 'responses_websocket' | 'gemini_live';
  direction: 'client' | 'server';
  type: string;
  event: Record<string, unknown>;
  request?: number;
}

export interface McpEntry {
  /** Arrival index among MCP messages. */
  index: number;
  /** How many model requests came before it. */
  after_requests: number;
  at_ms: number;
  server: string;
  transport: 'http' | 'stdio';
  session?: string;
  /** The JSON-RPC method (`tools/call`), or the HTTP method of a GET or DELETE. */
  method: string;
  id?: string | number;
  /** The tool or prompt name, or the resource URI. */
  name?: string;
  arguments?: Record<string, unknown>;
  step?: number;
  outcome: Outcome;
  reason?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  dropped_connection?: boolean;
}

export interface UnusedStep {
  route: number;
  route_match: string;
  step: number;
  step_description: string;
}

export interface WaitOptions {
  /** Aborts the wait for a scripted delay. */
  signal?: AbortSignal;
}

/** The events of one streamed answer, each after its scripted delay. */
export declare class MockStream implements AsyncIterable<StreamEvent> {
  private constructor();
  /** The events at once, without waiting. */
  events(): Promise<StreamEvent[]>;
  [Symbol.asyncIterator](): AsyncIterator<StreamEvent>;
  /** The text deltas as they stream; a scripted failure is thrown where it happens. */
  textStream(): AsyncIterable<string>;
  /** The whole streamed text; a scripted failure is thrown after the text before it. */
  text(): Promise<string>;
}

/** A scripted model: each request takes the next step of the route it matches; every request is journaled. */
export declare class MockModel {
  constructor(settings?: MockSettings);
  static fromScenario<T extends MockModel>(this: new () => T, scenario: string | object, settings?: MockSettings): T;
  static thatResponds<T extends MockModel>(this: new () => T, answer: string | StepObject | Responder): T;
  static thatStreams<T extends MockModel>(this: new () => T, ...tokens: string[]): T;
  static thatCallsTool<T extends MockModel>(this: new () => T, name: string, args?: ToolArguments): T;
  static thatCallsTools<T extends MockModel>(this: new () => T, calls: ToolCallSpec[]): T;
  static thatFails<T extends MockModel>(this: new () => T, kind?: FailureKind, options?: FailureOptions): T;

  thenResponds(answer: string | StepObject | Responder): this;
  thenStreams(...tokens: string[]): this;
  thenCallsTool(name: string, args?: ToolArguments): this;
  thenCallsTools(calls: ToolCallSpec[]): this;
  thenFails(kind?: FailureKind, options?: FailureOptions): this;
  andFails(kind?: FailureKind, options?: FailureOptions): this;
  thenRepeats(): this;
  route(options?: RouteOptions): this;
  configure(settings: MockSettings): this;
  withTokenUsage(inputTokens: number, outputTokens: number): this;
  withDefaultDelay(delayMs: number): this;
  settings(): Record<string, JsonValue>;
  readonly instant: boolean;

  chat(request: string | ChatRequest, options?: WaitOptions): Promise<ChatResponse>;
  chatSync(request: string | ChatRequest): ChatResponse;
  stream(request: string | ChatRequest, options?: WaitOptions): MockStream;
  streamEventsSync(request: string | ChatRequest): StreamEvent[];

  entries(): JournalEntry[];
  requests(): JournaledRequest[];
  request(): JournaledRequest;
  lastRequest(): JournaledRequest;
  userMessageText(): string;
  wasCalledWith(predicate: (request: JournaledRequest) => boolean): boolean;
  readonly requestCount: number;
  counts(): Record<string, number>;
  unusedSteps(): UnusedStep[];
  /** The MCP journal: every message the scenario's MCP servers received, oldest first. */
  mcpEntries(): McpEntry[];
  /** The realtime socket messages, both ways, in the order they crossed. */
  socketEvents(): SocketEvent[];
  /** MCP tool steps no call took. */
  mcpUnusedSteps(): { server: string; tool: string; step: number }[];
  unexpectedRequests(): JournalEntry[];
  callRecords(): CallRecord[];
  reset(): void;
  advanceClock(ms: number): void;
  readonly clockMs: number;
}

// ---- checks ---------------------------------------------------------------------------------------------------

export type KindOrClass = string | (abstract new (...args: any[]) => unknown);

export interface Check {
  check: string;
  [argument: string]: JsonValue;
}

export declare class Verification {
  withObserver(observer: RecordingObserver): Verification;
  whenCalled(operation: string): MethodCheck;
  allStepsUsed(): this;
  noUnexpectedRequests(): this;
  /** No wire request broke a rule of the real API (the `contracts` setting: `warn` or `strict`). */
  noContractViolations(): this;
  /**
   * The MCP tool was called: `times` times exactly when given (else at least once), counting only calls whose
   * arguments contain `arguments` when given, on `server` when given.
   */
  mcpToolCalled(tool: string, options?: { server?: string; times?: number; arguments?: Record<string, unknown>; inputResponses?: Record<string, unknown> }): this;
  /** A client listed an MCP server's tools (`server`'s, when given). */
  mcpToolsListed(server?: string): this;
  /** No MCP message went beyond the scenario. */
  noUnexpectedMcpCalls(): this;
  /** Every MCP tool step answered a call. */
  allMcpStepsUsed(): this;
  /** A batch (the latest one made, unless `batch` names one) held exactly `requests` requests. */
  batchHeld(requests: number, batch?: string): this;
  /** Every line of a batch (the latest one made, unless `batch` names one) was answered by a step. */
  batchLinesAnswered(batch?: string): this;
  /** A realtime session received a client message of `type` whose JSON contains `fields`. */
  socketReceived(type: string, fields?: Record<string, unknown>, options?: { session?: string; times?: number }): this;
  /** A realtime session sent a server message of `type` whose JSON contains `fields`. */
  socketSent(type: string, fields?: Record<string, unknown>, options?: { session?: string; times?: number }): this;
  /** Socket messages of these types crossed in this order. */
  socketEventsInOrder(types: string[], options?: { direction?: 'client' | 'server'; session?: string }): this;
  /** Answers were made faulty (of `kind` when given); `times` exactly, `recovered`: each followed by a clean answer. */
  answerFault(kind?: AnswerFaultKind | null, options?: { times?: number; recovered?: boolean }): this;
  /** An A2A agent (`agent` when given) received messages whose text contains `text` (`times` exactly when given). */
  a2aReceived(text?: string | null, options?: { agent?: string; times?: number }): this;
  /** A client cancelled a task of an A2A agent. */
  a2aTaskCanceled(agent?: string): this;
  /** No JSON-RPC request reached the A2A agent. */
  a2aNotCalled(agent: string): this;
  /** Every A2A agent step answered a message. */
  allA2aStepsUsed(): this;
  scriptFullyUsed(): this;
  receivedRequests(times: number): this;
  lastRequest(): RequestCheck;
  request(): RequestCheck;
  requestAt(index: number): RequestCheck;
}

export declare class MethodCheck {
  wasCalledTimes(times: number): this;
  andRetried(times: number): this;
  andParsedSuccessfully(): this;
  andObservedParseFailure(): this;
  andObservedFailure(kind: KindOrClass): this;
  andFailedWith(kind: KindOrClass): this;
  emittedProvider(providerId: string): this;
  andCalledTool(name: string): this;
  andCalledToolTimes(name: string, times: number): this;
}

export declare class RequestCheck {
  hasLastUserMessageContaining(text: string): this;
  hasSystemMessageContaining(text: string): this;
  offersTool(name: string): this;
  offersExactlyTools(names: string[]): this;
  hasJsonSchemaResponseFormat(name?: string): this;
  hasModel(model: string): this;
}

/** Starts checks over a mock; a failed check throws `AssertionFailedError`. */
export declare function assertThat(mock: MockModel): Verification;
export declare const verify: typeof assertThat;
/** Runs one check given as data (`{check: 'was_called_times', operation: 'greet', times: 2}`). */
export declare function runCheck(mock: MockModel, check: Check, observer?: RecordingObserver): void;
/** The name of every check the core has. */
export declare function checkNames(): string[];

// ---- observer, tools, memory, server, fetch -------------------------------------------------------------------

export interface CallRecord {
  context: { operation: string | null; service: string | null; provider_id: string; model: string; attempt: number };
  response: ChatResponse | null;
  failure: { kind: string; status: number | null; retryable: boolean; message: string; type_names: string[] } | null;
  parse_failure_summary: string | null;
  parse_success: boolean | null;
  completed: boolean;
  cancelled: boolean;
  engine_events: Array<{ name: string; attributes: Record<string, JsonValue> }>;
}

export interface CallContext {
  operation?: string;
  service?: string;
  providerId?: string;
  model?: string;
  attempt?: number;
}

export declare class CallObservation {
  readonly index: number;
  onProviderResponse(response: ChatResponse): void;
  onProviderFailure(failure: unknown, options?: { status?: number; retryable?: boolean }): void;
  onStructuredParseFailure(rawResponse: string, errorSummary: string): void;
  onEngineEvent(name: string, attributes?: Record<string, JsonValue>): void;
  onCallCompleted(parseSuccess?: boolean): void;
  onCallCancelled(): void;
}

export declare class RecordingObserver {
  onCallStarted(context?: CallContext | string): CallObservation;
  callRecords(): CallRecord[];
  clear(): void;
}

export interface ToolInvocation {
  index: number;
  arguments: JsonValue;
  result?: JsonValue;
  error?: string;
  delay_ms: number;
}

export interface MockToolOptions {
  name: string;
  description?: string;
  parameters?: JsonValue;
  result?: JsonValue;
  responder?: (args: any) => unknown;
  fails?: string;
  delayMs?: number;
}

export declare class MockTool {
  constructor(options: MockToolOptions);
  static fixed(name: string, description: string, result: JsonValue): MockTool;
  static fixture(name: 'calculator' | 'weather' | 'failing' | 'slow', options?: { message?: string; delayMs?: number }): MockTool;
  readonly name: string;
  readonly description: string;
  definition(): ToolDefinition;
  invoke(args: JsonValue | string, options?: WaitOptions): Promise<JsonValue>;
  invokeSync(args: JsonValue | string): JsonValue;
  calls(): JsonValue[];
  invocations(): ToolInvocation[];
  readonly callCount: number;
  reset(): void;
}

export interface Thread {
  id: string;
  agent_id: string;
  metadata: Record<string, JsonValue>;
  created_at_ms: number;
  updated_at_ms: number;
}

export interface MemoryEntry {
  id: string;
  thread_id: string;
  message: JsonValue;
  tool_calls?: JsonValue;
  tool_results?: JsonValue;
  token_count: number;
  created_at_ms: number;
  metadata?: Record<string, JsonValue>;
}

export declare class MockMemory {
  readonly provider: 'memory';
  connect(): void;
  disconnect(): void;
  isConnected(): boolean;
  createThread(agentId: string, metadata?: Record<string, JsonValue>, threadId?: string): Thread;
  getThread(threadId: string): Thread | null;
  updateThread(threadId: string, metadata: Record<string, JsonValue>): Thread;
  deleteThread(threadId: string): void;
  addEntry(entry: { thread_id: string; message: JsonValue; tool_calls?: JsonValue; tool_results?: JsonValue; token_count?: number; metadata?: Record<string, JsonValue> }): MemoryEntry;
  getEntries(query: { thread_id: string; limit?: number; before_ms?: number; after_ms?: number; include_tool_calls?: boolean }): MemoryEntry[];
  getEntry(entryId: string): MemoryEntry | null;
  deleteEntry(entryId: string): void;
  clearThread(threadId: string): void;
  calls(method?: string): Array<{ method: string; args: JsonValue }>;
  reset(): void;
}

export interface ServerOptions {
  port?: number;
  host?: string;
  instant?: boolean;
  /** Close connections slow to send headers or idle this long between requests (ms; 0 never). Default 30000. */
  idle_timeout_ms?: number;
  /** Require this token on /_cuecard/ (Authorization: Bearer <token>). */
  admin_token?: string;
  /** At most this many tests live under /t/{id}/ (least recently used dropped past it; 0 turns the prefix off). Default 1000. */
  max_tests?: number;
  /** Journal entries the tests under /t/{id}/ keep between them (each its newest journal_total / max_tests). Default 100000. */
  journal_total?: number;
  /** Send an OpenTelemetry span of every mocked call (OTLP/HTTP protobuf) to this collector (`http://127.0.0.1:4318`). */
  otlp_endpoint?: string;
}

/** The loopback server speaking the OpenAI and Anthropic wire protocols. */
export declare class Server {
  constructor(mock: MockModel, options?: ServerOptions);
  readonly mock: MockModel;
  readonly baseURL: string;
  readonly openaiBaseURL: string;
  readonly anthropicBaseURL: string;
  readonly port: number;
  stop(): void;
  [Symbol.dispose](): void;
  [Symbol.asyncDispose](): Promise<void>;
}

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A record mode: `none` replays only (the default), `once` records a missing file, `new` records what the file
 * lacks, `all` records anew. */
export type RecordMode = 'none' | 'once' | 'new' | 'all';

export interface RecordingOptions {
  mode?: RecordMode;
  /** Where requests the file lacks go: a URL, or `URL` and `PROTOCOL=URL` entries (default: the providers' APIs). */
  upstream?: string | string[];
  /** Texts never written (the keys a client sends never are). */
  redact?: string[];
  /** Request fields written as `[REDACTED]` and not compared on replay (`messages[*].content`). */
  redactFields?: string[];
  /** Record even though `CI` is set. */
  allowInCi?: boolean;
  description?: string;
  /** What forwards (default: the global `fetch`). */
  fetch?: Fetch;
}

/** A recording file in a record mode, answered by `createFetch(recording)` and the SDK option helpers: replayed,
 * and in a record mode forwarded and recorded where the file lacks a request. */
export declare class Recording {
  constructor(path: string, options?: RecordingOptions);
  readonly path: string;
  /** The mock replaying the file (empty when nothing is replayed): its journal, its checks. */
  readonly mock: MockModel;
  readonly mode: RecordMode;
  readonly replays: boolean;
  readonly records: boolean;
  readonly recorded: number;
  /** What could not be recorded, in order. */
  readonly failures: string[];
}

/** A `fetch` answered in-process by the mock (`instant` skips scripted delays; default: the mock's setting), or by
 * a recording. */
/** A JSON-RPC message of MCP. */
export type JsonRpcMessage = Record<string, unknown>;

/**
 * An MCP `Transport` for the TypeScript SDK's `Client` (`client.connect(new McpTransport(mock))`), answered in process
 * by the mock's scripted MCP server (the `mcp` section of its scenario): no socket, no child process.
 */
export declare class McpTransport {
  constructor(mock: MockModel, options?: { server?: string; instant?: boolean });
  /** The session `initialize` opened. */
  sessionId?: string;
  onmessage?: (message: JsonRpcMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  start(): Promise<void>;
  send(message: JsonRpcMessage): Promise<void>;
  close(): Promise<void>;
}

export declare function createFetch(mock: MockModel | Recording, options?: { instant?: boolean }): Fetch;
/** A WebSocket constructor answered in-process by the mock's realtime sessions (OpenAI Realtime, the Responses
 * WebSocket mode, Gemini Live): `createWebSocket(mock)(url, protocols)` behaves as `new WebSocket(url, protocols)`
 * against `cuecard serve`, with no server. What the OpenAI Agents SDK's `createWebSocket` option takes. */
export declare function createWebSocket(mock: MockModel, options?: { instant?: boolean }): (url: string | URL, protocols?: string | string[]) => WebSocket;

/** An AWS SDK v3 request handler (`requestHandler:` of `BedrockRuntimeClient` and others) answered in-process by
 * `mock` through the wire encoders: the SDK's own serializers, event-stream decoder, errors and retries run. */
export declare function awsRequestHandler(mock: MockModel, options?: { instant?: boolean }): {
  metadata: { handlerProtocol: string };
  handle(request: unknown, options?: { abortSignal?: AbortSignal }): Promise<{ response: unknown }>;
  updateHttpClientConfig(key: string, value: unknown): void;
  httpHandlerConfigs(): Record<string, unknown>;
  destroy(): void;
};
/** `{apiKey, baseURL, fetch}` for `new OpenAI(...)`, plus `extra`. */
export declare function openaiOptions<E extends object = {}>(mock: MockModel, extra?: E & { fetchOptions?: { instant?: boolean } }): { apiKey: string; baseURL: string; fetch: Fetch } & Omit<E, 'fetchOptions'>;
/** For a recording: no test key when it records (the SDK's own key is sent). */
export declare function openaiOptions<E extends object = {}>(recording: Recording, extra?: E & { fetchOptions?: { instant?: boolean } }): { apiKey?: string; baseURL: string; fetch: Fetch } & Omit<E, 'fetchOptions'>;
/** `{apiKey, baseURL, fetch}` for `new Anthropic(...)`, plus `extra`. */
export declare function anthropicOptions<E extends object = {}>(mock: MockModel, extra?: E & { fetchOptions?: { instant?: boolean } }): { apiKey: string; baseURL: string; fetch: Fetch } & Omit<E, 'fetchOptions'>;
export declare function anthropicOptions<E extends object = {}>(recording: Recording, extra?: E & { fetchOptions?: { instant?: boolean } }): { apiKey?: string; baseURL: string; fetch: Fetch } & Omit<E, 'fetchOptions'>;
export declare const BASE_URL: string;

/** node:test: a fresh mock for the test `t`, checked in its `after` hook (every step used, no unexpected request;
 * `strict: false` skips the check; `scenario` scripts it). */
export declare function cuecardMock(t: { after(fn: () => void): void }, settings?: MockSettings & { strict?: boolean; scenario?: string | object }): MockModel;

/** node:test (Node 22.6 or later): the test's recording, `recordings/<file>/<names>.yaml` beside the test file (or
 * `recording`, relative to it), in the mode `CUECARD_RECORD` gives (`none` by default); checked in its `after` hook
 * (every replayed exchange used unless `strict: false`; every exchange recorded). */
export declare function cuecardRecording(t: { after(fn: () => void): void; name: string; filePath: string }, options?: Omit<RecordingOptions, 'mode'> & { strict?: boolean; recording?: string }): Recording;

export declare function tokenize(text: string): string[];
export declare function countTokens(text: string): number;

/** One way cuecard's reply differs from a recorded one (`what`: status, content_type, header, field, type, kind,
 * events). */
export interface DriftDifference { what: string; at: string; recorded: string; cuecard: string }
/** The drift report of a recording, as `cuecard drift --json` gives it. */
export interface DriftReport {
  drifted: boolean;
  exchanges: Array<{ route: number; step: number; endpoint: string; stream: boolean;
    differences: DriftDifference[]; only_cuecard: string[] }>;
  not_compared: Array<{ route: number; step: number; why: string }>;
}
/** The drift report of the recording at `path` (cuecard's, or a vcrpy cassette); the native addon only. */
export declare function drift(path: string): DriftReport;
export declare const VERSION: string;
/** The release's version, the same as {@link VERSION} (`require('cuecard').version`). */
export declare const version: string;

// ---- errors ---------------------------------------------------------------------------------------------------

export type ErrorCode =
  | 'invalid_scenario' | 'invalid_request' | 'script_exhausted' | 'no_route_matched' | 'invalid_argument'
  | 'invalid_state' | 'request_count_mismatch' | 'assertion_failed' | 'callback_failed' | 'invalid_utf8' | 'io'
  | 'tool_failed' | 'internal' | 'not_found' | 'request_too_large' | 'host_error' | 'no_recording';

interface CuecardErrorFields {
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
}

/** Base class of cuecard's own errors (`instanceof` holds for every one of them). */
export declare class CuecardError extends Error implements CuecardErrorFields {
  static readonly code: ErrorCode;
  constructor(message: string, data?: Partial<CuecardErrorFields>);
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
}
export declare class InvalidScenarioError extends CuecardError {}
export declare class InvalidRequestError extends CuecardError {}
export declare class ScriptExhaustedError extends CuecardError {}
export declare class NoRouteMatchedError extends CuecardError {}
export declare class InvalidStateError extends CuecardError {}
export declare class RequestCountMismatchError extends CuecardError {}
export declare class CallbackFailedError extends CuecardError {}
export declare class CuecardIOError extends CuecardError {}
export declare class ToolFailedError extends CuecardError {}
export declare class InternalError extends CuecardError {}
export declare class NotFoundError extends CuecardError {}
export declare class HostCallbackError extends CuecardError {}
/** A request matches none of a recording's requests (the message names the nearest one): a `NoRouteMatchedError`. */
export declare class NoRecordingError extends NoRouteMatchedError {}
/** An argument of the wrong type or shape: a `TypeError`. */
export declare class InvalidArgumentError extends TypeError implements CuecardErrorFields {
  static readonly code: ErrorCode;
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
}
export declare class InvalidUtf8Error extends TypeError implements CuecardErrorFields {
  static readonly code: ErrorCode;
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
}
export declare class RequestTooLargeError extends RangeError implements CuecardErrorFields {
  static readonly code: ErrorCode;
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
}
/** A failed check: node:assert's `AssertionError` with the core's message. */
export declare class AssertionFailedError extends Error implements CuecardErrorFields {
  static readonly code: ErrorCode;
  readonly code: ErrorCode;
  readonly number: number;
  readonly issues: Array<{ path: string; message: string }>;
  readonly context: Record<string, JsonValue>;
  readonly actual: unknown;
  readonly expected: unknown;
}

/** A scripted provider failure. */
export declare class ProviderError extends Error {
  constructor(kind: FailureKind, message: string, options?: FailureOptions);
  readonly kind: FailureKind;
  readonly status: number | null;
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  readonly errorType: string | null;
  readonly errorCode: string | null;
}

export declare function errorClassFor(code: string): abstract new (message: string, data?: object) => Error;
