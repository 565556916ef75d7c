'use strict';
// The per-test mock: fresh for each test, and the test fails when a step was left unused or a request was
// unexpected (as the Python `cuecard_mock` fixture does). Each runner registers the end-of-test check its way.

const { MockModel } = require('./mock.js');
const { assertThat } = require('./verify.js');

/** A fresh mock checked when the test ends: `strict: false` skips the check. */
function createChecked(settings = {}) {
  const { strict = true, scenario, ...rest } = settings;
  const mock = scenario === undefined ? new MockModel(rest) : MockModel.fromScenario(scenario, rest);
  const check = () => {
    if (strict) assertThat(mock).scriptFullyUsed();
  };
  return { mock, check };
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

module.exports = { createChecked, cuecardMock };
