// Run by test/vitest-runner.test.mjs in a child vitest: a per-test mock with an unused step must fail its test.
import { test } from 'vitest';
import { cuecardMock } from 'cuecard/vitest';

test('leaves a step unused', () => {
  cuecardMock().thenResponds('never asked');
});
