// For test/recording.test.mjs only: the per-test recording under vitest.
export default { test: { include: ['test/recording-runners/*.check.ts'], root: new URL('../..', import.meta.url).pathname } };
