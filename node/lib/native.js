'use strict';
// The addon, initialised for this JS thread: it throws the package's error classes, and the server's threads
// run computed answers through `dispatch`.

// `CUECARD_BACKEND=wasm` runs the package on the WebAssembly module instead (one JS suite, two backends).
const native = process.env.CUECARD_BACKEND === 'wasm' ? require('./wasm-backend.js') : require('../native/index.js');
const { makeError } = require('./errors.js');
const computed = require('./computed.js');

native.init(makeError, computed.dispatch);

module.exports = native;
