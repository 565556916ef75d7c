'use strict';
// JS functions that compute answers, kept under integer keys the addon knows them by. A call the addon stopped
// at a computed step (a `NativePending`) is finished here: the function gets the request, may return a
// Promise, and what it returns (or throws) resumes the call. A function's own error reaches the caller as the
// very same object, after the journal has recorded the failure.

const { CallbackFailedError } = require('./errors.js');

const functions = new Map();
let nextKey = 1;

// A mock's functions go when the mock does.
const forget = new FinalizationRegistry((keys) => {
  for (const key of keys) functions.delete(key);
});

/** Keeps `fn` for `owner` (a mock); returns its key. */
function register(owner, fn, keys) {
  const key = nextKey++;
  functions.set(key, fn);
  if (keys.length === 0) forget.register(owner, keys);
  keys.push(key);
  return key;
}

function isThenable(value) {
  return value != null && typeof value.then === 'function';
}

function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Finishes a pending call: awaits the function, resumes; the outcome JSON, or the function's own error. */
async function finishAsync(pending) {
  const fn = functions.get(pending.key);
  let answer;
  try {
    if (fn === undefined) throw new CallbackFailedError(`no computed answer is registered under key ${pending.key}`);
    answer = await fn(JSON.parse(pending.request));
  } catch (error) {
    pending.fail(describe(error));
    throw error;
  }
  return pending.resume(answer);
}

/** Finishes a pending call without waiting: a function that returns a Promise is a `CallbackFailedError`. */
function finishSync(pending) {
  const fn = functions.get(pending.key);
  let answer;
  try {
    if (fn === undefined) throw new CallbackFailedError(`no computed answer is registered under key ${pending.key}`);
    answer = fn(JSON.parse(pending.request));
  } catch (error) {
    pending.fail(describe(error));
    throw error;
  }
  if (isThenable(answer)) {
    answer.then(() => {}, () => {}); // the answer is discarded; keep its rejection from being unhandled
    const error = new CallbackFailedError(
      'the computed answer returned a Promise; use the async form (await mock.chat(...)) for async functions');
    pending.fail(error.message);
    throw error;
  }
  return pending.resume(answer);
}

/** The addon's dispatcher: the loopback server's threads wait for function `key` to answer `ticket`. */
function dispatch(key, requestJson, ticket) {
  const native = require('./addon.js');
  const fn = functions.get(key);
  Promise.resolve()
    .then(() => {
      if (fn === undefined) throw new CallbackFailedError(`no computed answer is registered under key ${key}`);
      return fn(JSON.parse(requestJson));
    })
    .then(
      (answer) => native.settleComputed(ticket, answer),
      (error) => native.failComputed(ticket, describe(error)),
    )
    .catch((error) => native.failComputed(ticket, describe(error)));
}

module.exports = { register, finishAsync, finishSync, dispatch, isThenable, describe };
