'use strict';
// `cuecard/ai`: a `LanguageModelV4` (the model interface of the `ai` package 7 and `@ai-sdk/provider` 4) answered
// by a MockModel, so `generateText`, `streamText`, `generateObject` and tool loops run against the script with no
// fetch at all. This file only translates: the AI SDK's prompt into cuecard's neutral request (what the journal
// keeps and checks read), and the core's answer or stream events into the AI SDK's content and stream parts.
// A scripted failure is a `ProviderError` that also carries the AI SDK's `APICallError` marker, status and
// retryability, so the AI SDK retries it the way it retries a real provider's (a scripted `retryAfterMs` becomes
// the `retry-after-ms` header it honours).

const { MockModel } = require('./mock.js');
const { ProviderError, providerErrorOf, wrongType } = require('./errors.js');
const keys = require('./keys.js');

const API_CALL_ERROR_MARKERS = [Symbol.for('vercel.ai.error'), Symbol.for('vercel.ai.error.AI_APICallError')];
const MOCK_URL = 'cuecard://mock';

const FINISH_REASONS = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  content_filter: 'content-filter',
  // The AI SDK has no refusal reason; a refusal is the closest of its own, a filtered answer.
  refusal: 'content-filter',
  other: 'other',
};

// ---- the AI SDK's prompt → cuecard's request -----------------------------------------------------------------

/** Base64 of bytes (a string is already base64, as the AI SDK gives it), in Node and in browsers alike. */
function base64Of(data) {
  if (typeof data === 'string') return data;
  let binary = '';
  for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A file part of a user or assistant message as a cuecard content part (an image when its media type says so). */
function filePart(part) {
  const data = part.data ?? {};
  const where =
    data.type === 'url' ? { url: String(data.url) }
    : data.type === 'data' ? { data: base64Of(data.data) }
    : data.type === 'text' ? { data: base64Of(new TextEncoder().encode(data.text)) }
    : data.type === 'reference' ? { file_id: JSON.stringify(data.reference) }
    : {};
  if (typeof part.mediaType === 'string' && part.mediaType.startsWith('image/')) {
    return { type: 'image', ...where, ...(where.data !== undefined ? { media_type: part.mediaType } : {}) };
  }
  return { type: 'file', ...where, media_type: part.mediaType, ...(part.filename ? { filename: part.filename } : {}) };
}

/** What a tool result says, as the text a provider would send back to the model. */
function toolOutputText(output) {
  switch (output?.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'Tool execution denied.';
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : `[${item.mediaType ?? item.type}]`)).join('');
    default:
      return JSON.stringify(output ?? null);
  }
}

function messagesOf(prompt) {
  if (!Array.isArray(prompt)) throw wrongType('options.prompt', 'the AI SDK prompt (an array of messages)', prompt);
  const messages = [];
  for (const message of prompt) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', content: message.content });
        break;
      case 'user':
        messages.push({
          role: 'user',
          content: message.content.map((part) => (part.type === 'text' ? { type: 'text', text: part.text } : filePart(part))),
        });
        break;
      case 'assistant': {
        const content = [];
        let thinking = '';
        const toolCalls = [];
        const results = [];
        for (const part of message.content) {
          if (part.type === 'text') content.push({ type: 'text', text: part.text });
          else if (part.type === 'reasoning') thinking += part.text;
          else if (part.type === 'file') content.push(filePart(part));
          else if (part.type === 'tool-call') {
            const input = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
            toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: input });
          } else if (part.type === 'tool-result') {
            results.push(part); // a provider-executed tool's result, replayed
          }
        }
        messages.push({
          role: 'assistant',
          content,
          ...(thinking ? { thinking } : {}),
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        });
        for (const part of results) messages.push(toolMessage(part));
        break;
      }
      case 'tool':
        for (const part of message.content) if (part.type === 'tool-result') messages.push(toolMessage(part));
        break;
      default:
        throw wrongType('options.prompt[].role', "'system', 'user', 'assistant' or 'tool'", message.role);
    }
  }
  return messages;
}

function toolMessage(part) {
  return { role: 'tool', tool_call_id: part.toolCallId, name: part.toolName, content: toolOutputText(part.output) };
}

function toolChoiceOf(choice) {
  if (choice === undefined) return undefined;
  return choice.type === 'tool' ? { tool: { name: choice.toolName } } : choice.type;
}

function responseFormatOf(format) {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.schema === undefined) return { type: 'json_object' };
  return { type: 'json_schema', schema: format.schema, ...(format.name ? { name: format.name } : {}) };
}

/** The neutral request a call of the AI SDK makes, and the warnings for what cuecard's request cannot carry. */
function requestOf(modelId, options) {
  if (!keys.isPlainObject(options)) throw wrongType('options', 'the AI SDK call options', options);
  const warnings = [];
  const tools = [];
  for (const tool of options.tools ?? []) {
    if (tool.type === 'function') {
      tools.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), parameters: tool.inputSchema });
    } else {
      warnings.push({ type: 'unsupported', feature: `provider-defined tool ${tool.id ?? tool.name}` });
    }
  }
  const cuecardOptions = options.providerOptions?.cuecard ?? {};
  const request = {
    model: modelId,
    messages: messagesOf(options.prompt),
    ...(tools.length ? { tools } : {}),
    ...(options.toolChoice !== undefined ? { tool_choice: toolChoiceOf(options.toolChoice) } : {}),
    ...(responseFormatOf(options.responseFormat) ? { response_format: responseFormatOf(options.responseFormat) } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.topP !== undefined ? { top_p: options.topP } : {}),
    ...(options.maxOutputTokens !== undefined ? { max_tokens: options.maxOutputTokens } : {}),
    ...(options.stopSequences?.length ? { stop: options.stopSequences } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(typeof cuecardOptions.operation === 'string' ? { metadata: { operation: cuecardOptions.operation } } : {}),
  };
  for (const setting of ['topK', 'presencePenalty', 'frequencyPenalty']) {
    if (options[setting] !== undefined) warnings.push({ type: 'unsupported', feature: setting });
  }
  return { request, warnings };
}

// ---- cuecard's answer → the AI SDK's result ---------------------------------------------------------------------

function usageOf(usage) {
  const cached = usage?.cached_tokens;
  return {
    inputTokens: {
      total: usage?.input_tokens,
      noCache: usage === undefined ? undefined : usage.input_tokens - (cached ?? 0),
      cacheRead: cached,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage?.output_tokens, text: undefined, reasoning: undefined },
    ...(usage !== undefined ? { raw: usage } : {}),
  };
}

function finishReasonOf(reason) {
  return { unified: FINISH_REASONS[reason] ?? 'other', raw: reason };
}

function responseMetadataOf(response) {
  return { id: response.id, modelId: response.model, timestamp: new Date(response.created * 1000) };
}

function contentOf(response) {
  const content = [];
  const message = response.message;
  if (message.thinking) content.push({ type: 'reasoning', text: message.thinking });
  if (message.text !== null && message.text !== undefined && message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of message.tool_calls ?? []) {
    content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
  }
  return content;
}

/** The scripted failure, also recognisable by the AI SDK as an `APICallError` (and retried when retryable). */
function asApiCallError(error, request) {
  if (!(error instanceof ProviderError)) return error;
  for (const marker of API_CALL_ERROR_MARKERS) error[marker] = true;
  error.url = MOCK_URL;
  error.requestBodyValues = request;
  error.statusCode = error.status ?? undefined;
  error.isRetryable = error.retryable;
  error.responseHeaders = error.retryAfterMs !== null ? { 'retry-after-ms': String(error.retryAfterMs) } : {};
  error.data = undefined;
  return error;
}

/** Turns one answer's events into the AI SDK's stream parts, in the order it expects (a part list per event). */
class PartTranslator {
  #raw;
  #reasoningOpen = false;
  #textOpen = false;
  #toolInputs = new Map(); // call index → id
  /** The answer ended (completed or failed): no part follows. */
  done = false;

  constructor(includeRawChunks) {
    this.#raw = includeRawChunks;
  }

  #closeOpen(parts) {
    if (this.#reasoningOpen) parts.push({ type: 'reasoning-end', id: 'reasoning-0' });
    if (this.#textOpen) parts.push({ type: 'text-end', id: 'text-0' });
    for (const id of this.#toolInputs.values()) parts.push({ type: 'tool-input-end', id });
    this.#reasoningOpen = this.#textOpen = false;
    this.#toolInputs.clear();
  }

  parts(event) {
    const parts = this.#raw ? [{ type: 'raw', rawValue: event }] : [];
    switch (event.type) {
      case 'thinking_delta':
        if (!this.#reasoningOpen) parts.push({ type: 'reasoning-start', id: 'reasoning-0' });
        this.#reasoningOpen = true;
        parts.push({ type: 'reasoning-delta', id: 'reasoning-0', delta: event.text });
        break;
      case 'text_delta':
        if (!this.#textOpen) parts.push({ type: 'text-start', id: 'text-0' });
        this.#textOpen = true;
        parts.push({ type: 'text-delta', id: 'text-0', delta: event.text });
        break;
      case 'tool_call_delta':
        if (!this.#toolInputs.has(event.index)) {
          this.#toolInputs.set(event.index, event.id);
          parts.push({ type: 'tool-input-start', id: event.id, toolName: event.name });
        }
        if (event.arguments) parts.push({ type: 'tool-input-delta', id: event.id, delta: event.arguments });
        break;
      case 'complete': {
        this.#closeOpen(parts);
        const response = event.response;
        for (const call of response.message.tool_calls ?? []) {
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
        }
        parts.push({ type: 'response-metadata', ...responseMetadataOf(response) });
        parts.push({ type: 'finish', usage: usageOf(response.usage), finishReason: finishReasonOf(response.finish_reason) });
        this.done = true;
        break;
      }
      case 'error':
        this.#closeOpen(parts);
        parts.push({ type: 'error', error: providerErrorOf(event.error) });
        parts.push({ type: 'finish', usage: usageOf(undefined), finishReason: { unified: 'error', raw: event.error.kind } });
        this.done = true;
        break;
      default:
        break; // events with no AI SDK part (usage-only, pings)
    }
    return parts;
  }
}

/** The parts at once, when nothing waits (instant mode, or no scripted delay): enqueued in one go, as the AI
 * SDK's own test streams are, instead of one promise per part. */
function partsAtOnce(events, warnings, includeRawChunks) {
  const translator = new PartTranslator(includeRawChunks);
  const parts = [{ type: 'stream-start', warnings }];
  for (const event of events) {
    parts.push(...translator.parts(event));
    if (translator.done) break;
  }
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}

/** The parts as the events arrive, each after its scripted delay. */
async function* partsAsTheyCome(stream, warnings, includeRawChunks) {
  const translator = new PartTranslator(includeRawChunks);
  yield { type: 'stream-start', warnings };
  for await (const event of stream) {
    yield* translator.parts(event);
    if (translator.done) return;
  }
}

/** A `LanguageModelV4` answered by `mock`. */
class CuecardLanguageModel {
  /** `options`: `modelId` (default `cuecard-mock`), `provider` (default `cuecard`), `supportedUrls` (default none:
   * the AI SDK downloads URLs itself, as for most providers). */
  constructor(mock, options = {}) {
    if (!(mock instanceof MockModel)) throw wrongType('mock', 'a MockModel', mock);
    if (!keys.isPlainObject(options)) throw wrongType('options', 'an options object', options);
    if (options.modelId !== undefined && typeof options.modelId !== 'string') throw wrongType('options.modelId', 'a string', options.modelId);
    if (options.provider !== undefined && typeof options.provider !== 'string') throw wrongType('options.provider', 'a string', options.provider);
    this.specificationVersion = 'v4';
    this.provider = options.provider ?? 'cuecard';
    this.modelId = options.modelId ?? 'cuecard-mock';
    this.supportedUrls = options.supportedUrls ?? {};
    this.mock = mock;
  }

  async doGenerate(options) {
    const { request, warnings } = requestOf(this.modelId, options);
    let response;
    try {
      response = await this.mock.chat(request, { signal: options.abortSignal });
    } catch (error) {
      throw asApiCallError(error, request);
    }
    return {
      content: contentOf(response),
      finishReason: finishReasonOf(response.finish_reason),
      usage: usageOf(response.usage),
      request: { body: request },
      response: { ...responseMetadataOf(response), body: response },
      warnings,
    };
  }

  async doStream(options) {
    const { request, warnings } = requestOf(this.modelId, options);
    const stream = this.mock.stream({ ...request, stream: true }, { signal: options.abortSignal });
    // A failure before the first event rejects here, as a real provider's HTTP error does.
    let events;
    try {
      events = await stream.events();
    } catch (error) {
      throw asApiCallError(error, request);
    }
    const raw = options.includeRawChunks === true;
    const waits = !this.mock.instant && events.some((event) => event.delay_ms > 0);
    return {
      stream: waits ? ReadableStream.from(partsAsTheyCome(stream, warnings, raw)) : partsAtOnce(events, warnings, raw),
      request: { body: request },
    };
  }
}

/** A `LanguageModelV4` answered by `mock` (see `CuecardLanguageModel`). */
function cuecardModel(mock, options) {
  return new CuecardLanguageModel(mock, options);
}

/** The same model as a `LanguageModelV3` (the spec of `ai` 6 and `@ai-sdk/provider` 3), for suites still on ai 6:
 * V4 only added optional fields and parts that this model never produces, so the calls and results are the same. */
class CuecardLanguageModelV3 extends CuecardLanguageModel {
  constructor(mock, options) {
    super(mock, options);
    this.specificationVersion = 'v3';
  }
}

/** A `LanguageModelV3` answered by `mock`. */
function cuecardModelV3(mock, options) {
  return new CuecardLanguageModelV3(mock, options);
}

module.exports = { CuecardLanguageModel, CuecardLanguageModelV3, cuecardModel, cuecardModelV3 };
