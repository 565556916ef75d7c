'use strict';
// The package's `native` in a browser bundle (build.mjs puts it in place of lib/native.js): the wasm module the
// entry instantiated before loading the package, adapted as under Node, initialised with the error factory.

const { adaptWasm } = require('../lib/wasm-adapt.js');
const { makeError } = require('../lib/errors.js');
const computed = require('../lib/computed.js');

const wasm = globalThis[Symbol.for('cuecard.wasm')];
if (wasm === undefined) throw new Error('cuecard: load the package through the browser entry (await load())');
const native = adaptWasm(wasm);
native.init(makeError, computed.dispatch);

module.exports = native;
