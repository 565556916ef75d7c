'use strict';
// `cuecard/vitest`: importing it (in a test file or a setup file) adds cuecard's matchers to vitest's `expect`;
// `cuecardMock()` inside a test gives a fresh mock that fails the test if a step was unused or a request
// unexpected.

const { expect, onTestFinished, inject } = require('vitest');
const { matchers } = require('./matchers.js');
const { createChecked, vitestRecording } = require('./per-test.js');
const { vitestShared } = require('./shared.js');

expect.extend(matchers);

/** A fresh mock for this test, checked when it finishes (unless it already failed, or `strict: false`). */
function cuecardMock(settings) {
  const { mock, check } = createChecked(settings);
  onTestFinished(({ task }) => {
    if (task.result?.state !== 'fail') check();
  });
  return mock;
}

/** This test's recording (`recordings/<file>/<describe.test>.yaml` beside the test file, in the mode
 * `CUECARD_RECORD` gives, `none` by default), checked when the test finishes (unless it failed, or
 * `strict: false`). Pass it where a mock goes: `openaiOptions(recording)`, `createFetch(recording)`. */
function cuecardRecording(options) {
  return vitestRecording(expect, onTestFinished, options);
}

/** This test's own mock on the run's shared server (`globalSetup: ['cuecard/vitest-setup']`, or `CUECARD_URL`):
 * `baseURL`, `openaiBaseURL`, `load(scenario)`, `journal()`, `check(...)`. When the test passes, core checks on the
 * server that its loaded steps were all used and no request was unexpected (not with `strict: false`); then the
 * test is dropped from the server. */
function cuecardShared(options) {
  return vitestShared(expect, onTestFinished, inject, options);
}

module.exports = { matchers, cuecardMock, cuecardRecording, cuecardShared };
