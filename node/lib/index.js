'use strict';
// The package `cuecard`: see README.md, "From Node".

const native = require('./native.js');
const errors = require('./errors.js');
const { MockModel, MockStream } = require('./mock.js');

module.exports = {
  MockModel,
  MockStream,
  tokenize: native.tokenize,
  countTokens: native.countTokens,
  VERSION: native.version(),
  ...Object.fromEntries(Object.entries(errors).filter(([name]) => /Error$/.test(name))),
};
