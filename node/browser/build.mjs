// Bundles the package for browsers, Deno and workers into dist-browser/: `cuecard.mjs` (ESM, `await load()`),
// its chunks, and the wasm module from wasm-web/ (wasm/build.sh writes it). lib/native.js and lib/addon.js become
// browser/native-web.js and browser/addon-web.js, and Node's built-ins the two shims; nothing else of the package changes.
// `--page` also bundles test/browser/page.mjs (the headless Chromium test's page, with the openai SDK).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const out = here('../dist-browser/');

const browserSide = {
  name: 'cuecard-browser',
  setup(b) {
    b.onResolve({ filter: /^\.\/native\.js$/ }, (args) => (args.importer.includes('/lib/') ? { path: here('./native-web.js') } : undefined));
    b.onResolve({ filter: /^\.\/addon\.js$/ }, (args) => (args.importer.includes('/lib/') ? { path: here('./addon-web.js') } : undefined));
    // Pages in this repository import the package by name, as a user's would: the entry's source here.
    b.onResolve({ filter: /^cuecard\/browser$/ }, () => ({ path: here('./entry.mjs') }));
    b.onResolve({ filter: /^node:timers\/promises$/ }, () => ({ path: here('./timers-shim.js') }));
    b.onResolve({ filter: /^node:assert$/ }, () => ({ path: here('./assert-shim.js') }));
  },
};

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const entryPoints = { cuecard: here('./entry.mjs') };
if (process.argv.includes('--page')) entryPoints.page = here('../test/browser/page.mjs');
await build({
  entryPoints,
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  outExtension: { '.js': '.mjs' },
  plugins: [browserSide],
  logLevel: 'warning',
});
copyFileSync(here('../wasm-web/cuecard_wasm_bg.wasm'), `${out}cuecard_wasm_bg.wasm`);
console.log(`browser bundle: ${out}`);
