'use strict';
// `cuecard/cogitator`: the exports of `@cogitator-ai/test-utils` under the same names, so a Cogitator suite switches
// by changing its import. The scripted backend is a MockModel underneath: its answers are core steps on two routes
// (operation `chat` for `chat()`, `chat_stream` for `chatStream()`), each ending in `repeats()` (Cogitator's sticky
// last answer), and every request is in the core's journal, so `assertThat(backend.model)` and every check work
// too. Differences from Cogitator, each deliberate (docs/concepts/seeds.md, "Cogitator"):
// - ids are deterministic (`mock_00000001`, `call_00000001`, ...), never random;
// - requests are recorded as snapshots (what the seed documents), not by reference (what its source does);
// - `withTimeout` clears its timer, so a settled promise does not keep the event loop alive.

const { MockModel, nativeOf, ask, settle, wait } = require('./mock.js');
const { MockMemory } = require('./memory.js');
const { NotFoundError, callErrorOf, wrongType } = require('./errors.js');
const keys = require('./keys.js');
const { setTimeout: sleep } = require('node:timers/promises');

const CHAT_ROUTE = 0;
const STREAM_ROUTE = 1;

// The virtual epoch of the core's clock (2026-01-01T00:00:00Z): fixtures that Cogitator stamps with "now" use it.
const EPOCH_MS = 1767225600000;

// ---- deterministic ids ---------------------------------------------------------------------------------------

const idCounters = new Map();

/** `prefix` + a counter padded to `length` characters (Cogitator: `prefix` + nanoid(length)). */
function nextId(prefix, length) {
  const n = (idCounters.get(prefix) ?? 0) + 1;
  idCounters.set(prefix, n);
  return prefix + String(n).padStart(length, '0');
}

/** Restarts the fixtures' id counters (each test file starts from 1 anyway, as each has its own module). */
function resetFixtureIds() {
  idCounters.clear();
}

/** `mock_00000003` from the core's `chatcmpl-3`: the mock's own counter, so ids follow the journal. */
function responseId(prefix, coreId) {
  const number = /(\d+)$/.exec(coreId ?? '')?.[1] ?? '0';
  return prefix + number.padStart(8, '0');
}

// ---- Cogitator's request → cuecard's neutral request ------------------------------------------------------------

function contentPart(part) {
  if (part?.type === 'image_url') return { type: 'image', url: part.image_url?.url, ...(part.image_url?.detail ? { detail: part.image_url.detail } : {}) };
  if (part?.type === 'image_base64') return { type: 'image', data: part.image_base64?.data, media_type: part.image_base64?.media_type };
  return part; // text parts as they are; anything else is the core's to refuse, by path
}

function argumentsText(args) {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

function neutralMessage(message) {
  if (!keys.isPlainObject(message)) return message; // the core names what is wrong
  const content = Array.isArray(message.content) ? message.content.map(contentPart) : (message.content ?? '');
  const out = { role: message.role, content };
  if (Array.isArray(message.toolCalls) && message.toolCalls.length) {
    out.tool_calls = message.toolCalls.map((c) => ({ id: c.id ?? '', name: c.name, arguments: argumentsText(c.arguments) }));
  }
  if (message.toolCallId !== undefined) out.tool_call_id = message.toolCallId;
  if (message.name !== undefined) out.name = message.name;
  return out;
}

function toolChoiceOf(choice) {
  if (choice === undefined || typeof choice === 'string') return choice;
  const name = choice?.function?.name ?? choice?.name;
  return name === undefined ? undefined : { tool: { name } };
}

function responseFormatOf(format) {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_schema') {
    const schema = format.jsonSchema ?? format.json_schema ?? {};
    return { type: 'json_schema', schema: schema.schema ?? {}, ...(schema.name ? { name: schema.name } : {}) };
  }
  return { type: 'json_object' };
}

function snapshotOf(request) {
  // What was sent at that moment: later changes to the caller's live message array do not reach it.
  return { ...request, messages: Array.isArray(request.messages) ? request.messages.map((m) => (keys.isPlainObject(m) ? { ...m } : m)) : request.messages };
}

function neutralRequest(request, operation) {
  if (!keys.isPlainObject(request)) throw wrongType('request', 'a Cogitator ChatRequest object', request);
  const out = {
    model: request.model ?? '',
    messages: Array.isArray(request.messages) ? request.messages.map(neutralMessage) : request.messages,
    metadata: { operation },
  };
  if (Array.isArray(request.tools) && request.tools.length) {
    out.tools = request.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters ?? { type: 'object', properties: {} } }));
  }
  const choice = toolChoiceOf(request.toolChoice);
  if (choice !== undefined) out.tool_choice = choice;
  const format = responseFormatOf(request.responseFormat);
  if (format !== undefined) out.response_format = format;
  if (request.temperature !== undefined) out.temperature = request.temperature;
  if (request.topP !== undefined) out.top_p = request.topP;
  if (request.maxTokens !== undefined) out.max_tokens = request.maxTokens;
  if (Array.isArray(request.stop) && request.stop.length) out.stop = request.stop;
  if (operation === 'chat_stream') out.stream = true;
  return out;
}

// ---- Cogitator's scripted answers → core steps --------------------------------------------------------------------

const FINISH_TO_CORE = { stop: 'stop', tool_calls: 'tool_calls', length: 'length', error: 'other' };

function coreToolCall(call) {
  return { ...(call.id ? { id: call.id } : {}), name: call.name, arguments_json: argumentsText(call.arguments) };
}

function givenUsage(usage) {
  if (!keys.isPlainObject(usage) || typeof usage.inputTokens !== 'number' || typeof usage.outputTokens !== 'number') return undefined;
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, ...(typeof usage.totalTokens === 'number' ? { total_tokens: usage.totalTokens } : {}) };
}

/** Cogitator's rule: `finishReason ?? (toolCalls ? 'tool_calls' : 'stop')` (an empty `toolCalls` array counts). */
function cogitatorFinishReason(response) {
  return response.finishReason ?? (response.toolCalls ? 'tool_calls' : 'stop');
}

function chatStep(response) {
  const usage = givenUsage(response.usage);
  return {
    ...(response.content ? { text: response.content } : { tokens: [] }),
    ...(response.toolCalls?.length ? { tool_calls: response.toolCalls.map(coreToolCall) } : {}),
    finish_reason: FINISH_TO_CORE[cogitatorFinishReason(response)] ?? 'other',
    ...(usage ? { usage } : {}),
    ...(typeof response.delay === 'number' ? { delay_ms: response.delay } : {}),
  };
}

function streamStep(chunks) {
  if (chunks.length === 0) return { tokens: [], usage: { input_tokens: 0, output_tokens: 0 } };
  const tokens = chunks.map((c) => c.content).filter((c) => typeof c === 'string' && c !== '');
  const calls = chunks.flatMap((c) => c.toolCalls ?? []).filter((c) => c.name);
  const last = chunks.at(-1);
  return {
    tokens,
    ...(calls.length ? { tool_calls: calls.map(coreToolCall) } : {}),
    finish_reason: FINISH_TO_CORE[last.finishReason ?? 'stop'] ?? 'other',
  };
}

function checkResponse(response, where) {
  if (!keys.isPlainObject(response)) throw wrongType(where, 'a MockChatResponse object', response);
  if (response.error !== undefined && !(response.error instanceof Error)) throw wrongType(`${where}.error`, 'an Error', response.error);
  return response;
}

function checkChunks(chunks, where) {
  if (!Array.isArray(chunks)) throw wrongType(where, 'an array of stream chunks', chunks);
  chunks.forEach((chunk, i) => {
    if (!keys.isPlainObject(chunk)) throw wrongType(`${where}[${i}]`, 'a stream chunk object', chunk);
  });
  return chunks;
}

// Cogitator's usage estimate, four characters a token (UTF-16 units, JS's `length`): input is at least 1 over the
// messages whose content is a string (multimodal arrays count 0), output is the answer's text. It is Cogitator's own
// rule, not a provider's, so it lives with this facade rather than among the core's usage policies.
const tokensOf = (text) => Math.ceil(text.length / 4);

function estimatedInput(messages) {
  const counted = (Array.isArray(messages) ? messages : []).reduce(
    (sum, m) => sum + (typeof m?.content === 'string' ? tokensOf(m.content) : 0), 0);
  return Math.max(1, counted);
}

/** `chat()`'s usage: the scripted counts where given, else the estimate; `totalTokens` the sum, unless given. */
function chatUsage(input, scripted) {
  const given = keys.isPlainObject(scripted.usage) ? scripted.usage : {};
  const inputTokens = given.inputTokens ?? input;
  const outputTokens = given.outputTokens ?? tokensOf(typeof scripted.content === 'string' ? scripted.content : '');
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, ...given };
}

/** Cogitator's `MockLLMBackend`: scripted `chat` and `chatStream` answers (the last repeats), every request
 * recorded; `model` is the MockModel underneath, for cuecard's checks. */
class MockLLMBackend {
  #model = new MockModel();
  #native = nativeOf(this.#model);
  #responses = [];
  #chunkLists = [];
  #defaultDelay = 0;

  constructor() {
    this.#model.route({ operation: 'chat' });
    this.#model.route({ operation: 'chat_stream' });
    this.#scriptChat();
    this.#scriptStream();
  }

  /** Always `'openai'`, as Cogitator's mock says. */
  get provider() {
    return 'openai';
  }

  /** The MockModel underneath: its journal, `assertThat(backend.model)`, the checks. */
  get model() {
    return this.#model;
  }

  // Each answer is a core step; the last repeats (a tool-calling last answer is a computed step, as the core
  // requires for a step that repeats a tool call); an `error` answer is a step whose function throws that error.
  #script(route, answers, stepOf) {
    this.#native.restartRoute(route);
    answers.forEach((answer, i) => {
      const step = stepOf(answer);
      const last = i === answers.length - 1;
      if (answer.error !== undefined) {
        this.#model.thenResponds(() => {
          throw answer.error;
        });
      } else if (last && step.tool_calls) {
        this.#model.thenResponds(() => step);
      } else {
        this.#model.thenResponds(step);
      }
    });
    this.#model.thenRepeats();
  }

  #scriptChat() {
    this.#script(CHAT_ROUTE, this.#responses.length ? this.#responses : [{}], chatStep);
  }

  #scriptStream() {
    this.#script(STREAM_ROUTE, this.#chunkLists.length ? this.#chunkLists : [[]], streamStep);
  }

  /** Answers every `chat()` with `response` (replaces the answers; calls stay recorded). */
  setResponse(response) {
    return this.setResponses([response]);
  }

  /** Answers `chat()` calls in order; the last repeats. */
  setResponses(responses) {
    if (!Array.isArray(responses)) throw wrongType('responses', 'an array of MockChatResponse objects', responses);
    this.#responses = responses.map((r, i) => checkResponse(r, `responses[${i}]`));
    this.#scriptChat();
    return this;
  }

  /** `setResponse({ content, toolCalls, finishReason: 'tool_calls' })`. */
  setToolCallResponse(toolCalls, content = '') {
    if (!Array.isArray(toolCalls)) throw wrongType('toolCalls', 'an array of tool calls', toolCalls);
    return this.setResponse({ content, toolCalls, finishReason: 'tool_calls' });
  }

  /** Plays these chunks for every `chatStream()`. */
  setStreamChunks(chunks) {
    return this.setMultipleStreamChunks([chunks]);
  }

  /** One chunk list per `chatStream()` call, in order; the last repeats. */
  setMultipleStreamChunks(lists) {
    if (!Array.isArray(lists)) throw wrongType('chunkLists', 'an array of chunk arrays', lists);
    this.#chunkLists = lists.map((chunks, i) => checkChunks(chunks, `chunkLists[${i}]`));
    this.#scriptStream();
    return this;
  }

  /** Waits `ms` before every answer and every stream chunk without a `delay` of its own. */
  setDefaultDelay(ms) {
    if (typeof ms !== 'number' || !(ms >= 0)) throw wrongType('ms', 'a number of milliseconds >= 0', ms);
    this.#defaultDelay = ms;
    this.#model.withDefaultDelay(ms);
    return this;
  }

  /** Forgets answers, stream chunks and recorded calls; the default delay stays. */
  reset() {
    this.#model.reset();
    this.#responses = [];
    this.#chunkLists = [];
    this.#scriptChat();
    this.#scriptStream();
    return this;
  }

  async chat(request) {
    const neutral = neutralRequest(request, 'chat');
    neutral.metadata.extra = { cogitator_request: snapshotOf(request) };
    const input = estimatedInput(request.messages); // now: the runtime goes on appending to its messages
    const outcome = await settle(ask(this.#native, neutral, false));
    if (outcome.error) throw callErrorOf(outcome.error); // an `error` answer: thrown before the delay, as Cogitator does
    await wait(outcome.delay_ms, this.#model.instant);
    const entry = JSON.parse(this.#native.entry(outcome.index) ?? '{}');
    const scripted = this.#responses[entry.step ?? 0] ?? {};
    const response = outcome.response;
    const calls = (response.message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: parseArguments(c.arguments) }));
    return {
      id: responseId('mock_', response.id),
      content: response.message.text ?? '',
      toolCalls: scripted.toolCalls ? calls : undefined,
      finishReason: cogitatorFinishReason(scripted),
      usage: chatUsage(input, scripted),
    };
  }

  async *chatStream(request) {
    const neutral = neutralRequest(request, 'chat_stream');
    neutral.metadata.extra = { cogitator_request: snapshotOf(request) };
    const input = estimatedInput(request.messages);
    const outcome = await settle(ask(this.#native, neutral, true));
    if (outcome.error) throw callErrorOf(outcome.error);
    const entry = JSON.parse(this.#native.entry(outcome.index) ?? '{}');
    const chunks = this.#chunkLists[entry.step ?? 0] ?? [];
    const complete = outcome.events.find((e) => e.type === 'complete')?.response;
    const id = responseId('mock_stream_', complete?.id);
    if (chunks.length === 0) {
      yield { id, delta: { content: '' }, finishReason: 'stop', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } };
      return;
    }
    const output = tokensOf(chunks.map((c) => (typeof c.content === 'string' ? c.content : '')).join(''));
    const usage = { inputTokens: input, outputTokens: output, totalTokens: input + output };
    for (const [i, chunk] of chunks.entries()) {
      await wait(chunk.delay ?? this.#defaultDelay, this.#model.instant);
      const last = i === chunks.length - 1;
      yield {
        id,
        delta: { content: chunk.content, toolCalls: chunk.toolCalls },
        finishReason: last ? (chunk.finishReason ?? 'stop') : undefined,
        usage: last ? usage : undefined,
      };
    }
  }

  /** Every request received (`chat()` and `chatStream()`), as snapshots. */
  getCalls() {
    return this.#model.requests().map((r) => r.metadata?.extra?.cogitator_request);
  }

  getLastCall() {
    return this.getCalls().at(-1);
  }

  getCallCount() {
    return this.#model.requestCount;
  }

  wasCalledWith(predicate) {
    if (typeof predicate !== 'function') throw wrongType('predicate', 'a function of the request', predicate);
    return this.getCalls().some((request) => predicate(request));
  }
}

function parseArguments(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text; // invalid JSON on purpose: the raw text, as a model that produced it would give
  }
}

function createMockLLMBackend() {
  return new MockLLMBackend();
}

// ---- memory ---------------------------------------------------------------------------------------------------------

function threadOf(thread) {
  return thread && {
    id: thread.id, agentId: thread.agent_id, metadata: thread.metadata,
    createdAt: new Date(thread.created_at_ms), updatedAt: new Date(thread.updated_at_ms),
  };
}

function entryOf(entry) {
  if (!entry) return entry;
  const out = { id: entry.id, threadId: entry.thread_id, message: entry.message, tokenCount: entry.token_count, createdAt: new Date(entry.created_at_ms) };
  if (entry.tool_calls !== undefined) out.toolCalls = entry.tool_calls;
  if (entry.tool_results !== undefined) out.toolResults = entry.tool_results;
  if (entry.metadata !== undefined) out.metadata = entry.metadata;
  return out;
}

function msOf(date, where) {
  if (date === undefined || date === null) return null;
  if (date instanceof Date) return date.getTime();
  if (typeof date === 'number') return date;
  throw wrongType(where, 'a Date', date);
}

const ok = (data) => ({ success: true, data });

/** Cogitator's `MockMemoryAdapter`: the core's MockMemory in Cogitator's shapes (`MemoryResult`, camelCase, Dates). */
class MockMemoryAdapter {
  #memory = new MockMemory();
  // The call log as Cogitator keeps it: each method's arguments as given (the caller's objects, `undefined` for an
  // argument left out, a Date as a Date), logged before the call runs, so a call that throws is logged too. The
  // core's MockMemory logs its normalised query (snake_case, milliseconds, defaults filled in) for its own checks.
  #calls = [];

  get provider() {
    return 'memory';
  }

  async connect() {
    this.#calls.push({ method: 'connect', args: [] });
    this.#memory.connect();
    return ok(undefined);
  }

  async disconnect() {
    this.#calls.push({ method: 'disconnect', args: [] });
    this.#memory.disconnect();
    return ok(undefined);
  }

  isConnected() {
    return this.#memory.isConnected();
  }

  async createThread(agentId, metadata, threadId) {
    this.#calls.push({ method: 'createThread', args: [agentId, metadata, threadId] });
    return ok(threadOf(this.#memory.createThread(agentId, metadata, threadId)));
  }

  async getThread(threadId) {
    this.#calls.push({ method: 'getThread', args: [threadId] });
    return ok(threadOf(this.#memory.getThread(threadId)));
  }

  async updateThread(threadId, metadata) {
    this.#calls.push({ method: 'updateThread', args: [threadId, metadata] });
    try {
      return ok(threadOf(this.#memory.updateThread(threadId, metadata)));
    } catch (error) {
      if (error instanceof NotFoundError) return { success: false, error: error.message };
      throw error;
    }
  }

  async deleteThread(threadId) {
    this.#calls.push({ method: 'deleteThread', args: [threadId] });
    this.#memory.deleteThread(threadId);
    return ok(undefined);
  }

  /** Keeps `threadId, message, tokenCount, toolCalls, toolResults, metadata`; other fields are dropped. */
  async addEntry(entry) {
    this.#calls.push({ method: 'addEntry', args: [entry] });
    if (!keys.isPlainObject(entry)) throw wrongType('entry', 'a memory entry object', entry);
    const given = {
      thread_id: entry.threadId, message: entry.message, token_count: entry.tokenCount,
      tool_calls: entry.toolCalls, tool_results: entry.toolResults, metadata: entry.metadata,
    };
    return ok(entryOf(this.#memory.addEntry(given)));
  }

  async getEntries(options) {
    this.#calls.push({ method: 'getEntries', args: [options] });
    if (!keys.isPlainObject(options)) throw wrongType('options', 'a MemoryQueryOptions object', options);
    const query = {
      thread_id: options.threadId,
      limit: options.limit || null, // Cogitator: 0 means no limit
      before_ms: msOf(options.before, 'options.before'),
      after_ms: msOf(options.after, 'options.after'),
      include_tool_calls: options.includeToolCalls ?? true,
    };
    return ok(this.#memory.getEntries(query).map(entryOf));
  }

  async getEntry(entryId) {
    this.#calls.push({ method: 'getEntry', args: [entryId] });
    return ok(entryOf(this.#memory.getEntry(entryId)));
  }

  async deleteEntry(entryId) {
    this.#calls.push({ method: 'deleteEntry', args: [entryId] });
    this.#memory.deleteEntry(entryId);
    return ok(undefined);
  }

  async clearThread(threadId) {
    this.#calls.push({ method: 'clearThread', args: [threadId] });
    this.#memory.clearThread(threadId);
    return ok(undefined);
  }

  /** Every call, `{method, args}` with the arguments as given, oldest first (a copy of the log). */
  getCalls() {
    return [...this.#calls];
  }

  getCallsFor(method) {
    return this.getCalls().filter((c) => c.method === method);
  }

  /** Clears threads, entries, calls and the connection flag. */
  reset() {
    this.#memory.reset();
    this.#calls = [];
  }
}

function createMockMemoryAdapter() {
  return new MockMemoryAdapter();
}

// ---- fixtures -------------------------------------------------------------------------------------------------------

function createTestAgentConfig(overrides = {}) {
  return {
    id: nextId('agent_', 8), name: 'test-agent', model: 'mock/test-model', instructions: 'You are a helpful test assistant.',
    temperature: 0.7, maxIterations: 10, timeout: 30000, tools: [], ...overrides,
  };
}

function createTestAgent(overrides = {}) {
  const config = createTestAgentConfig(overrides);
  const agent = {
    id: config.id, name: config.name, model: config.model, instructions: config.instructions, tools: config.tools, config,
    clone(more = {}) {
      const { id: _id, ...rest } = config;
      return createTestAgent({ ...rest, ...more });
    },
    serialize() {
      return {
        version: '1.0', id: config.id, name: config.name,
        config: {
          model: config.model, instructions: config.instructions, tools: (config.tools ?? []).map((t) => t.name),
          temperature: config.temperature, maxIterations: config.maxIterations, timeout: config.timeout,
        },
        metadata: { serializedAt: new Date(EPOCH_MS).toISOString() },
      };
    },
  };
  return agent;
}

const createUserMessage = (content) => ({ role: 'user', content });
const createAssistantMessage = (content) => ({ role: 'assistant', content });
const createSystemMessage = (content) => ({ role: 'system', content });
const createToolMessage = (toolCallId, content, name) => ({ role: 'tool', content, toolCallId, name });
const createMultimodalMessage = (parts) => ({ role: 'user', content: parts });
const createImageUrlMessage = (text, url) => createMultimodalMessage([{ type: 'text', text }, { type: 'image_url', image_url: { url } }]);

function createConversation(...turns) {
  return turns.map(({ role, content }) => (role === 'user' ? createUserMessage(content) : createAssistantMessage(content)));
}

function createToolCall(name, args = {}) {
  return { id: nextId('call_', 8), name, arguments: args };
}

function createToolResult(call, result, error) {
  return { callId: call.id, name: call.name, result, error };
}

function createMockRunResult(output, options = {}) {
  return {
    output, runId: nextId('run_', 8), agentId: nextId('agent_', 8), threadId: nextId('thread_', 8),
    usage: { inputTokens: 100, outputTokens: 50, totalTokens: 150, cost: 0.001, duration: 100 },
    toolCalls: [], messages: [], trace: { traceId: nextId('trace_', 12), spans: [] }, ...options,
  };
}

const createRunResultWithToolCalls = (output, toolCalls, options = {}) => createMockRunResult(output, { ...options, toolCalls });
const createRunResultWithMessages = (output, messages, options = {}) => createMockRunResult(output, { ...options, messages });

function createTestTool(options = {}) {
  const name = options.name ?? nextId('test_tool_', 4);
  return {
    name,
    description: options.description ?? `A test tool called ${name}`,
    parameters: options.parameters ?? { type: 'object', properties: { input: { type: 'string', description: 'Test input' } }, required: ['input'] },
    execute: options.execute ?? (async (args) => ({ result: `Executed ${name} with ${JSON.stringify(args)}` })),
  };
}

function createCalculatorTool() {
  return {
    name: 'calculator',
    description: 'Perform mathematical calculations',
    parameters: { type: 'object', properties: { expression: { type: 'string', description: 'The expression to evaluate, like "2 + 3"' } }, required: ['expression'] },
    async execute({ expression } = {}) {
      const match = typeof expression === 'string' ? /^(\d+)\s*([+\-*/])\s*(\d+)$/.exec(expression) : null;
      if (!match) return { error: 'Invalid expression' };
      const [a, b] = [Number(match[1]), Number(match[3])];
      const result = { '+': a + b, '-': a - b, '*': a * b, '/': a / b }[match[2]];
      return { result };
    },
  };
}

function createWeatherTool() {
  return {
    name: 'get_weather',
    description: 'Get the current weather for a location',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'The city' }, units: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
    async execute({ city, units = 'celsius' } = {}) {
      return { city, temperature: units === 'celsius' ? 22 : 72, condition: 'sunny', units };
    },
  };
}

function createFailingTool(message = 'Tool execution failed') {
  return {
    name: 'failing_tool',
    description: 'A tool that always fails',
    parameters: { type: 'object', properties: {} },
    async execute() {
      throw new Error(message);
    },
  };
}

function createSlowTool(ms = 1000) {
  return {
    name: 'slow_tool',
    description: 'A tool that takes time to execute',
    parameters: { type: 'object', properties: {} },
    async execute(args) {
      await sleep(ms);
      return { result: 'completed', delay: ms, args };
    },
  };
}

function createToolSchema(name, description) {
  return { name, description: description ?? `Schema for ${name}`, parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } };
}

// ---- helpers --------------------------------------------------------------------------------------------------------

async function collectStreamContent(stream) {
  let text = '';
  for await (const chunk of stream) if (chunk?.delta?.content) text += chunk.delta.content;
  return text;
}

async function collectStreamChunks(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

/** `{name, arguments}` of every streamed tool call entry with both (no merging by id, as Cogitator's helper). */
async function collectStreamToolCalls(stream) {
  const calls = [];
  for await (const chunk of stream) {
    for (const call of chunk?.delta?.toolCalls ?? []) if (call.name && call.arguments) calls.push({ name: call.name, arguments: call.arguments });
  }
  return calls;
}

function createMockReadableStream(strings) {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < strings.length) controller.enqueue(encoder.encode(strings[i++]));
      else controller.close();
    },
  });
}

function delay(ms) {
  return sleep(ms);
}

async function waitFor(condition, { timeout = 5000, interval = 50 } = {}) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const value = await condition();
    if (value) return value;
    await sleep(interval);
  }
  throw new Error(`waitFor timed out after ${timeout}ms`);
}

async function eventually(assertion, { timeout = 5000, interval = 50 } = {}) {
  const deadline = Date.now() + timeout;
  let lastError;
  let ran = false;
  while (Date.now() < deadline) {
    try {
      ran = true;
      return await assertion();
    } catch (error) {
      lastError = error;
    }
    await sleep(interval);
  }
  if (ran) throw lastError;
  throw new Error(`eventually timed out after ${timeout}ms`);
}

function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Operation timed out after ${ms}ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

module.exports = {
  MockLLMBackend, createMockLLMBackend, MockMemoryAdapter, createMockMemoryAdapter,
  createTestAgentConfig, createTestAgent, createUserMessage, createAssistantMessage, createSystemMessage,
  createToolMessage, createMultimodalMessage, createImageUrlMessage, createConversation, createToolCall,
  createToolResult, createMockRunResult, createRunResultWithToolCalls, createRunResultWithMessages, createTestTool,
  createCalculatorTool, createWeatherTool, createFailingTool, createSlowTool, createToolSchema,
  collectStreamContent, collectStreamChunks, collectStreamToolCalls, createMockReadableStream,
  waitFor, eventually, delay, withTimeout, resetFixtureIds,
};
