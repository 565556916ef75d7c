// For test/runners.test.mjs: four vitest workers (forks) running 4 files of 50 tests each against one cuecard
// server that cuecard/vitest-setup starts for the run; each test has its own /t/{id}/.
export default {
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/vitest-shared/*.shared.ts'],
    globalSetup: ['cuecard/vitest-setup'],
    pool: 'forks',
    maxWorkers: 4,
    fileParallelism: true,
  },
};
