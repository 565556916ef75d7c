'use strict';
// The wasm module in place of the napi addon (`CUECARD_BACKEND=wasm`): the same classes and functions (see
// wasm/src), so everything above `native.js` runs unchanged. Loaded from `CUECARD_WASM_PKG` (the directory
// `wasm-bindgen --target nodejs` wrote) or `../wasm-pkg`.

const path = require('node:path');

const dir = process.env.CUECARD_WASM_PKG ?? path.join(__dirname, '..', 'wasm-pkg');
const wasm = require(path.join(dir, 'cuecard_wasm.js'));

// wasm-bindgen takes no optional reference to an exported class: `runCheck(check, observer?)` is two methods.
// And an absent `Option` is `undefined` in wasm-bindgen where napi gives `null`.
wasm.NativeMock.prototype.runCheck = function runCheck(check, observer) {
  return (observer == null ? this.runCheckAlone(check) : this.runCheckWithObserver(check, observer)) ?? null;
};
const entry = wasm.NativeMock.prototype.entry;
wasm.NativeMock.prototype.entry = function (index) {
  return entry.call(this, index) ?? null;
};

// A scenario named by a path: the module has no file system, so the host reads the file (Node, Deno) and the core
// parses it; the rule of what names a file, and the errors, are the core's.
const loadScenario = wasm.NativeMock.prototype.loadScenario;
wasm.NativeMock.prototype.loadScenario = function (scenario) {
  if (typeof scenario !== 'string' || !wasm.scenarioNamesAFile(scenario)) return loadScenario.call(this, scenario);
  let bytes;
  try {
    bytes = require('node:fs').readFileSync(scenario);
  } catch (error) {
    throw wasm.scenarioReadError(scenario, error.code === 'ENOENT', error.message);
  }
  return this.loadScenarioFile(scenario, bytes);
};

function unavailable(what) {
  return function () {
    throw new Error(`${what} needs the native addon: the wasm module has no threads, sockets or files`);
  };
}

module.exports = {
  ...wasm,
  backend: 'wasm',
  NativeServer: unavailable('Server'),
  cliMain: unavailable('the cuecard command'),
  settleComputed: unavailable('a server thread'),
  failComputed: unavailable('a server thread'),
};
