// `cuecard/jest`: importing it adds the matchers to jest's `expect` (types below) and gives `useCuecardMock`.
import type { MockModel, MockSettings } from './index.js';
import type { CuecardMatchers } from './matchers.js';

export { matchers } from './matchers.js';
export type { CuecardMatchers } from './matchers.js';

/** Gives each test a fresh mock (`.mock`), checked after it: every step used and no unexpected request. */
export declare function useCuecardMock(settings?: MockSettings & { strict?: boolean; scenario?: string | object }): { readonly mock: MockModel };

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends CuecardMatchers<R> {}
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends CuecardMatchers<R> {}
  }
}
