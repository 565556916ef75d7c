'use strict';
// `cuecard/vitest`: importing it (in a test file or a setup file) adds cuecard's matchers to vitest's `expect`;
// `cuecardMock()` inside a test gives a fresh mock that fails the test if a step was unused or a request
// unexpected.

const { expect, onTestFinished } = require('vitest');
const { matchers } = require('./matchers.js');
const { createChecked } = require('./per-test.js');

expect.extend(matchers);

/** A fresh mock for this test, checked when it finishes (unless it already failed, or `strict: false`). */
function cuecardMock(settings) {
  const { mock, check } = createChecked(settings);
  onTestFinished(({ task }) => {
    if (task.result?.state !== 'fail') check();
  });
  return mock;
}

module.exports = { matchers, cuecardMock };
