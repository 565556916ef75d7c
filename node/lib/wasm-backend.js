'use strict';
// The wasm module in place of the napi addon under Node (`CUECARD_BACKEND=wasm`), loaded from `CUECARD_WASM_PKG`
// (the directory `wasm-bindgen --target nodejs` wrote) or `../wasm-pkg`.

const path = require('node:path');
const { adaptWasm } = require('./wasm-adapt.js');

const dir = process.env.CUECARD_WASM_PKG ?? path.join(__dirname, '..', 'wasm-pkg');
module.exports = adaptWasm(require(path.join(dir, 'cuecard_wasm.js')), (file) => require('node:fs').readFileSync(file));
