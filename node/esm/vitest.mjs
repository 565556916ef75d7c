// `cuecard/vitest` (ESM): cuecard's matchers on vitest's own `expect`, and the per-test mock.
import { expect, onTestFinished, inject } from 'vitest';
import matchersModule from '../lib/matchers.js';
import perTest from '../lib/per-test.js';
import shared from '../lib/shared.js';

export const { matchers } = matchersModule;
expect.extend(matchers);

/** A fresh mock for this test, checked when it finishes (unless it already failed, or `strict: false`). */
export function cuecardMock(settings) {
  const { mock, check } = perTest.createChecked(settings);
  onTestFinished(({ task }) => {
    if (task.result?.state !== 'fail') check();
  });
  return mock;
}

/** This test's recording, checked when it finishes (see `cuecard/vitest`'s CommonJS entry). */
export function cuecardRecording(options) {
  return perTest.vitestRecording(expect, onTestFinished, options);
}

/** This test's own mock on the run's shared server (see `cuecard/vitest`'s CommonJS entry). */
export function cuecardShared(options) {
  return shared.vitestShared(expect, onTestFinished, inject, options);
}
