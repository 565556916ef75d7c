// Run by test/runners.test.mjs in a child node --test: a per-test mock with an unused step must fail its test.
import { test } from 'node:test';
import { cuecardMock } from 'cuecard';

test('leaves a step unused', (t) => {
  cuecardMock(t).thenResponds('never asked');
});
