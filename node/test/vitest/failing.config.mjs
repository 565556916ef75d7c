// For test/runners.test.mjs only: the checks that must fail under vitest.
export default { test: { include: ['test/vitest/**/*.check.ts'], root: new URL('../..', import.meta.url).pathname } };
