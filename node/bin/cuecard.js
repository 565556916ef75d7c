#!/usr/bin/env node
'use strict';
// The `cuecard` command (`npx cuecard serve`), run by the addon: no Rust toolchain needed. The command runs off
// the JS thread; Node receives Ctrl-C and SIGTERM, so this script ends `serve` on them (the server's threads end
// with the process).

const native = require('../lib/native.js');

process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => {
  process.stderr.write('cuecard: stopped\n');
  process.exit(0);
});
native.cliMain(['cuecard', ...process.argv.slice(2)]).then((code) => process.exit(code));
