// `cuecard/vitest`: importing it adds the matchers to vitest's `expect` (types below) and gives `cuecardMock`.
import type { MockModel, MockSettings, Recording, RecordingOptions } from './index.js';
import type { CuecardMatchers } from './matchers.js';
import type { SharedTest } from './shared.js';

export { matchers } from './matchers.js';
export type { CuecardMatchers } from './matchers.js';
export type { SharedTest } from './shared.js';

/** A fresh mock for this test, checked when it finishes: every step used and no unexpected request. */
export declare function cuecardMock(settings?: MockSettings & { strict?: boolean; scenario?: string | object }): MockModel;

/** This test's recording (`recordings/<file>/<describe.test>.yaml` beside the test file, in the mode `CUECARD_RECORD`
 * gives, `none` by default), checked when the test finishes. */
export declare function cuecardRecording(options?: Omit<RecordingOptions, 'mode'> & { strict?: boolean; recording?: string }): Recording;

/** This test's own mock on the run's shared server (`globalSetup: ['cuecard/vitest-setup']` in the config, or
 * `CUECARD_URL`), checked on the server when the test passes (unless `strict: false`) and dropped after it. */
export declare function cuecardShared(options?: { strict?: boolean }): SharedTest;

declare module 'vitest' {
  interface ProvidedContext {
    /** The shared server's URL, from `cuecard/vitest-setup`. */
    cuecardUrl: string;
  }

  interface Matchers<R extends void | Promise<void> = void | Promise<void>, T = unknown> extends CuecardMatchers<R> {}
}
