'use strict';
// The per-test mock: fresh for each test, and the test fails when a step was left unused or a request was
// unexpected (as the Python `cuecard_mock` fixture does). Each runner registers the end-of-test check its way.

const native = require('./native.js');
const { MockModel } = require('./mock.js');
const { Recording } = require('./recording.js');
const { assertThat } = require('./verify.js');

const RECORD_MODES = ['none', 'once', 'new', 'all'];

/** A fresh mock checked when the test ends: `strict: false` skips the check. */
function createChecked(settings = {}) {
  const { strict = true, scenario, ...rest } = settings;
  const mock = scenario === undefined ? new MockModel(rest) : MockModel.fromScenario(scenario, rest);
  const check = () => {
    if (strict) assertThat(mock).scriptFullyUsed();
  };
  return { mock, check };
}

/** The record mode of per-test recordings: `CUECARD_RECORD`, else `none` (replay only, never live). */
function recordMode() {
  const mode = process.env.CUECARD_RECORD || 'none';
  if (!RECORD_MODES.includes(mode)) throw new TypeError(`CUECARD_RECORD=${JSON.stringify(mode)} is not a record mode (one of ${RECORD_MODES.join(', ')})`);
  return mode;
}

/** A test's recording: `recordings/<file>/<names>.yaml` beside the test file (core's rule), or `options.recording`
 * (relative to the test file), in the mode `CUECARD_RECORD` gives; checked when the test ends (a replayed exchange
 * left unused fails it, as an unused step does; `strict: false` skips that). */
function createRecording(testFile, names, options = {}) {
  const { strict = true, recording: named, ...settings } = options;
  // Paths by hand: this module is in the browser bundle too, where `node:path` is not.
  const file = testFile.startsWith('file:') ? decodeURIComponent(new URL(testFile).pathname) : testFile;
  const cut = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  const dir = file.slice(0, cut + 1);
  const module = file.slice(cut + 1).replace(/\.[cm]?[jt]sx?$/, '');
  const absolute = (p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
  const where = named === undefined ? dir + native.recordingPathForTest(module, names) : absolute(named) ? named : dir + named;
  const recording = new Recording(where, { mode: recordMode(), ...settings });
  const check = () => {
    if (recording.failures.length > 0) throw new Error(`cuecard: ${recording.failures.join('; ')}`);
    if (strict && recording.replays && !recording.records) assertThat(recording.mock).scriptFullyUsed();
  };
  return { recording, check };
}

/** vitest (CommonJS and ESM alike, each with its own `expect`): this test's recording, named by the test file
 * and `describe > test` names, checked when the test finishes unless it failed. */
function vitestRecording(expect, onTestFinished, options) {
  const { testPath, currentTestName } = expect.getState();
  if (typeof testPath !== 'string') throw new Error('cuecardRecording(): call it inside a running test');
  const { recording, check } = createRecording(testPath, currentTestName.split(' > '), options);
  onTestFinished(({ task }) => {
    if (task.result?.state !== 'fail') check();
  });
  return recording;
}

/** node:test: `const recording = cuecardRecording(t)` inside a test (Node 22.6 or later: `t.filePath`); checked in
 * the test's `after` hook. */
function cuecardRecording(t, options) {
  if (t === null || typeof t !== 'object' || typeof t.after !== 'function' || typeof t.filePath !== 'string') {
    throw new TypeError('cuecardRecording(t): pass the node:test context of the test');
  }
  // `fullName` (Node 22.3) is `suite > test`; `name` alone before it.
  const names = typeof t.fullName === 'string' ? t.fullName.split(' > ') : [t.name];
  const { recording, check } = createRecording(t.filePath, names, options);
  t.after(check);
  return recording;
}

/** node:test: `const mock = cuecardMock(t)` inside a test; the check runs in the test's `after` hook. */
function cuecardMock(t, settings) {
  if (t === null || typeof t !== 'object' || typeof t.after !== 'function') {
    throw new TypeError('cuecardMock(t): pass the node:test context of the test');
  }
  const { mock, check } = createChecked(settings);
  t.after(check);
  return mock;
}

module.exports = { createChecked, cuecardMock, createRecording, cuecardRecording, vitestRecording, recordMode };
