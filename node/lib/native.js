'use strict';
// The addon, initialised for this JS thread: it throws the package's error classes, and the server's threads
// run computed answers through `dispatch`.

const native = require('./addon.js');
const { makeError } = require('./errors.js');
const computed = require('./computed.js');

native.init(makeError, computed.dispatch);

module.exports = native;
