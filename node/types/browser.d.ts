// `cuecard/browser`: the package on the WebAssembly module, for browsers, Deno and workers (no native addon).
import type * as cuecard from './index';
import type * as ai from './ai';
import type * as cogitator from './cogitator';

/** The package's API on the wasm module: as `import * as cuecard from 'cuecard'` minus `Server` and the bin. */
export type CuecardOnWasm = typeof cuecard & {
  /** `cuecard/ai`. */
  ai: typeof ai;
  /** `cuecard/cogitator`. */
  cogitator: typeof cogitator;
  /** What the shared vector runners reach below the API. Not for tests of your code. */
  internals: unknown;
};

/** Instantiates the module (by default `cuecard_wasm_bg.wasm` next to this file; or a URL, a fetch `Response`, the
 * bytes or a compiled `WebAssembly.Module`) and returns the API on it. Later calls return the same promise. */
export declare function load(wasm?: URL | string | Response | ArrayBuffer | ArrayBufferView | WebAssembly.Module): Promise<CuecardOnWasm>;
