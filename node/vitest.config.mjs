// vitest runs only test/vitest/ (the rest of test/ is node --test's).
export default {
  test: {
    include: ['test/vitest/**/*.test.ts'],
    reporters: ['default'],
  },
};
