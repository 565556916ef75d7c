// cuecard in a browser, Deno or a worker: `const cuecard = await load()` instantiates the WebAssembly module
// (next to this file, or at `wasmUrl`) and returns the package's API on it, the same as `require('cuecard')` in
// Node minus `Server` and the bin. `cuecard.ai` and `cuecard.cogitator` are the subpath modules.
import initWasm, * as wasm from '../wasm-web/cuecard_wasm.js';

let loading;

export function load(wasmUrl) {
  loading ??= (async () => {
    await initWasm({ module_or_path: wasmUrl ?? new URL('./cuecard_wasm_bg.wasm', import.meta.url) });
    globalThis[Symbol.for('cuecard.wasm')] = wasm;
    const [core, ai, cogitator, mock, computed, native] = await Promise.all([
      import('../lib/index.js'), import('../lib/ai.js'), import('../lib/cogitator.js'),
      import('../lib/mock.js'), import('../lib/computed.js'), import('./native-web.js'),
    ]);
    // `internals`: what the shared vector runners reach below the API (the module's raw calls).
    const internals = { native: native.default, nativeOf: mock.default.nativeOf, finishAsync: computed.default.finishAsync };
    return { ...core.default, ai: ai.default, cogitator: cogitator.default, internals };
  })();
  return loading;
}
