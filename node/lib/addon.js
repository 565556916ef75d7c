'use strict';
// The backend, loaded and not yet initialised: the napi addon, or the WebAssembly module under
// `CUECARD_BACKEND=wasm` (one JS suite, two backends). native.js initialises it; errors.js and computed.js, which
// native.js needs for that, read the backend from here, so the files require one another one way only.

module.exports = process.env.CUECARD_BACKEND === 'wasm' ? require('./wasm-backend.js') : require('../native/index.js');
