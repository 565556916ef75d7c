'use strict';
// `cuecard/jest`: importing it (in a test file or `setupFilesAfterEach`) adds cuecard's matchers to jest's
// `expect`; `useCuecardMock()` at the top of a file or `describe` gives each test a fresh mock (read it as
// `cuecard.mock`) that fails the test if a step was unused or a request unexpected.

const { matchers } = require('./matchers.js');
const { createChecked, createRecording } = require('./per-test.js');
const { createShared } = require('./shared.js');

function jestGlobals() {
  if (typeof expect === 'function' && typeof beforeEach === 'function') {
    // eslint-disable-next-line no-undef
    return { expect, beforeEach, afterEach };
  }
  return require('@jest/globals');
}

const globals = jestGlobals();
globals.expect.extend(matchers);

/** Registers a fresh, checked mock per test; `settings` as for `new MockModel`, plus `strict` and `scenario`. */
function useCuecardMock(settings) {
  let current = null;
  globals.beforeEach(() => {
    current = createChecked(settings);
  });
  globals.afterEach(() => {
    const ended = current;
    current = null;
    ended?.check();
  });
  return {
    get mock() {
      if (current === null) throw new Error('useCuecardMock: the mock exists only while a test runs');
      return current.mock;
    },
  };
}

/** Registers a recording per test (`recordings/<file>/<describe test>.yaml` beside the test file, in the mode
 * `CUECARD_RECORD` gives, `none` by default; read it as `cuecard.recording`), checked after each test. */
function useCuecardRecording(options) {
  let current = null;
  globals.beforeEach(() => {
    const { testPath, currentTestName } = globals.expect.getState();
    current = createRecording(testPath, [currentTestName], options);
  });
  globals.afterEach(() => {
    const ended = current;
    current = null;
    ended?.check();
  });
  return {
    get recording() {
      if (current === null) throw new Error('useCuecardRecording: the recording exists only while a test runs');
      return current.recording;
    },
  };
}

/** Registers each test's own part of the run's shared server (`globalSetup: 'cuecard/jest-setup'` and
 * `globalTeardown: 'cuecard/jest-teardown'`, or `CUECARD_URL`; read it as `cuecard.shared`): after each test,
 * core checks on the server that its loaded steps were all used and no request was unexpected (not with `strict:
 * false`), and the test is dropped from the server. */
function useCuecardShared(options) {
  let current = null;
  globals.beforeEach(() => {
    const { testPath, currentTestName } = globals.expect.getState();
    current = createShared(testPath, [currentTestName], undefined, options);
  });
  globals.afterEach(async () => {
    const ended = current;
    current = null;
    await ended?.finish(false);
  });
  return {
    get shared() {
      if (current === null) throw new Error('useCuecardShared: the shared test exists only while a test runs');
      return current.test;
    },
  };
}

module.exports = { matchers, useCuecardMock, useCuecardRecording, useCuecardShared };
