'use strict';
// `node:assert`'s `AssertionError` for browsers and workers: the base of cuecard's `AssertionFailedError`, with
// the fields test runners print (`expected`, `actual`, `operator`, `generatedMessage`, `code`).

class AssertionError extends Error {
  constructor(options = {}) {
    super(options.message);
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
    this.expected = options.expected;
    this.actual = options.actual;
    this.operator = options.operator;
    this.generatedMessage = !options.message;
  }
}

module.exports = { AssertionError };
