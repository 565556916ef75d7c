'use strict';
// `node:timers/promises`'s `setTimeout` for browsers and workers: resolves after `ms`, rejects with the signal's
// reason (an AbortError) when aborted, as Node's does.

function setTimeout(ms, value, options = {}) {
  const signal = options.signal;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = globalThis.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    }, ms);
    function onAbort() {
      globalThis.clearTimeout(timer);
      reject(signal.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

module.exports = { setTimeout };
