// For test/runners.test.mjs only: the checks that must fail under vitest (the shared ones on the run's server,
// which the wasm module cannot start: there they fail for want of one).
export default {
  test: {
    include: ['test/vitest/**/*.check.ts'],
    root: new URL('../..', import.meta.url).pathname,
    globalSetup: process.env.CUECARD_BACKEND === 'wasm' ? [] : ['cuecard/vitest-setup'],
  },
};
