'use strict';
// The package's `native` in a browser bundle (build.mjs puts it in place of lib/native.js): the adapted wasm module
// (addon-web.js), initialised with the error factory.

const native = require('./addon-web.js');
const { makeError } = require('../lib/errors.js');
const computed = require('../lib/computed.js');

native.init(makeError, computed.dispatch);

module.exports = native;
