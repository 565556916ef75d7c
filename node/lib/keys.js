'use strict';
// JS spells option names in camelCase; the core's data (the same JSON in every language) in snake_case. Option
// objects are accepted in either spelling. Only the names of the core's own option fields are converted, never
// user data inside them (tool arguments, metadata, JSON schemas).

const STEP_FIELDS = {
  toolCalls: 'tool_calls', finishReason: 'finish_reason', failAfter: 'fail_after', failAfterAs: 'fail_after_as',
  delayMs: 'delay_ms', ttftMs: 'ttft_ms', tokenDelayMs: 'token_delay_ms', stallMs: 'stall_ms', goAwayMs: 'go_away_ms',
};
const TOOL_CALL_FIELDS = { argumentsJson: 'arguments_json' };
const FAILURE_FIELDS = {
  retryAfterMs: 'retry_after_ms', errorType: 'error_type', errorCode: 'error_code',
};
const SETTINGS_FIELDS = {
  onExhausted: 'on_exhausted', providerId: 'provider_id', stepDefaults: 'step_defaults', journalLimit: 'journal_limit',
  answerFaults: 'answer_faults',
  reasoningField: 'reasoning_field',
};
const USAGE_FIELDS = { inputTokens: 'input_tokens', outputTokens: 'output_tokens' };
const ROUTE_FIELDS = { onExhausted: 'on_exhausted' };
const TOOL_FIELDS = { delayMs: 'delay_ms' };
const CONTEXT_FIELDS = { providerId: 'provider_id' };
const RECORDING_FIELDS = { redactFields: 'redact_fields', allowInCi: 'allow_in_ci' };

function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A copy of `object` with the listed camelCase keys renamed (a key given in both spellings keeps both, so the
 * core reports the duplicate as an unknown field rather than one silently winning). */
function rename(object, fields) {
  if (!isPlainObject(object)) return object;
  let out = null;
  for (const key of Object.keys(object)) {
    const snake = fields[key];
    if (snake !== undefined) {
      out ??= { ...object };
      if (!(snake in object)) {
        out[snake] = object[key];
        delete out[key];
      }
    }
  }
  return out ?? object;
}

function step(object) {
  const out = rename(object, STEP_FIELDS);
  if (!isPlainObject(out)) return out;
  let result = out;
  if (Array.isArray(out.tool_calls)) result = { ...result, tool_calls: out.tool_calls.map((c) => rename(c, TOOL_CALL_FIELDS)) };
  if (isPlainObject(out.fail)) result = { ...result, fail: rename(out.fail, FAILURE_FIELDS) };
  if (isPlainObject(out.fail_after)) result = { ...result, fail_after: rename(out.fail_after, FAILURE_FIELDS) };
  if (isPlainObject(out.usage)) result = { ...result, usage: rename(out.usage, USAGE_FIELDS) };
  return result;
}

function settings(object) {
  const out = rename(object, SETTINGS_FIELDS);
  if (!isPlainObject(out)) return out;
  let result = out;
  if (isPlainObject(out.step_defaults)) result = { ...result, step_defaults: rename(out.step_defaults, STEP_FIELDS) };
  if (isPlainObject(out.usage)) result = { ...result, usage: rename(out.usage, USAGE_FIELDS) };
  return result;
}

module.exports = {
  isPlainObject,
  step,
  settings,
  failure: (o) => rename(o, FAILURE_FIELDS),
  route: (o) => rename(o, ROUTE_FIELDS),
  tool: (o) => rename(o, TOOL_FIELDS),
  toolCall: (o) => rename(o, TOOL_CALL_FIELDS),
  context: (o) => rename(o, CONTEXT_FIELDS),
  recording: (o) => rename(o, RECORDING_FIELDS),
};
