'use strict';
// The wasm module as the package's `native` object: the same classes and functions as the napi addon (see
// wasm/src), with the few differences of wasm-bindgen smoothed here, for Node (`wasm-backend.js`) and browsers
// (`browser/native-web.js`) alike. `readFile(path)` reads a scenario file where the host has files (Node, Deno).

function adaptWasm(wasm, readFile) {
  // wasm-bindgen takes no optional reference to an exported class: `runCheck(check, observer?)` is two methods.
  // And an absent `Option` is `undefined` in wasm-bindgen where napi gives `null`.
  wasm.NativeMock.prototype.runCheck = function runCheck(check, observer) {
    return (observer == null ? this.runCheckAlone(check) : this.runCheckWithObserver(check, observer)) ?? null;
  };
  const entry = wasm.NativeMock.prototype.entry;
  wasm.NativeMock.prototype.entry = function (index) {
    return entry.call(this, index) ?? null;
  };

  // A scenario named by a path: the module has no file system, so the host reads the file and the core parses
  // it; the rule of what names a file, and the errors, are the core's.
  const loadScenario = wasm.NativeMock.prototype.loadScenario;
  wasm.NativeMock.prototype.loadScenario = function (scenario) {
    if (typeof scenario !== 'string' || !wasm.scenarioNamesAFile(scenario)) return loadScenario.call(this, scenario);
    if (readFile === undefined) throw wasm.scenarioReadError(scenario, false, 'this host has no file system');
    let bytes;
    try {
      bytes = readFile(scenario);
    } catch (error) {
      throw wasm.scenarioReadError(scenario, error.code === 'ENOENT', error.message);
    }
    return this.loadScenarioFile(scenario, bytes);
  };

  // A `function`, not an arrow: `new native.NativeServer(...)` must reach the throw.
  const unavailable = (what) =>
    function () {
      throw new Error(`${what} needs the native addon: the wasm module has no threads, sockets or files`);
    };
  return {
    ...wasm,
    backend: 'wasm',
    NativeServer: unavailable('Server'),
    NativeRecordingFile: unavailable('Recording (replay a recording with MockModel.fromScenario(path))'),
    recordingPathForTest: unavailable('a per-test recording'),
    driftReport: unavailable('drift (it reads a recording file)'),
    cliMain: unavailable('the cuecard command'),
    settleComputed: unavailable('a server thread'),
    failComputed: unavailable('a server thread'),
  };
}

module.exports = { adaptWasm };
