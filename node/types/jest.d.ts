// `cuecard/jest`: importing it adds the matchers to jest's `expect` (types below) and gives `useCuecardMock`.
import type { MockModel, MockSettings, Recording, RecordingOptions } from './index.js';
import type { CuecardMatchers } from './matchers.js';
import type { SharedTest } from './shared.js';

export { matchers } from './matchers.js';
export type { CuecardMatchers } from './matchers.js';
export type { SharedTest } from './shared.js';

/** Gives each test a fresh mock (`.mock`), checked after it: every step used and no unexpected request. */
export declare function useCuecardMock(settings?: MockSettings & { strict?: boolean; scenario?: string | object }): { readonly mock: MockModel };

/** Gives each test a recording (`.recording`: `recordings/<file>/<test name>.yaml` beside the test file, in the mode
 * `CUECARD_RECORD` gives), checked after it. */
export declare function useCuecardRecording(options?: Omit<RecordingOptions, 'mode'> & { strict?: boolean; recording?: string }): { readonly recording: Recording };

/** Gives each test its own part of the run's shared server (`.shared`; `globalSetup: 'cuecard/jest-setup'` and
 * `globalTeardown: 'cuecard/jest-teardown'`, or `CUECARD_URL`), checked on the server after it and dropped. */
export declare function useCuecardShared(options?: { strict?: boolean }): { readonly shared: SharedTest };

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends CuecardMatchers<R> {}
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends CuecardMatchers<R> {}
  }
}
