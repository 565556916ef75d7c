'use strict';
// The package's `addon` in a browser bundle (build.mjs puts it in place of lib/addon.js): the wasm module the
// entry instantiated before loading the package, adapted as under Node. native-web.js initialises it.

const { adaptWasm } = require('../lib/wasm-adapt.js');

const wasm = globalThis[Symbol.for('cuecard.wasm')];
if (wasm === undefined) throw new Error('cuecard: load the package through the browser entry (await load())');

module.exports = adaptWasm(wasm);
