#!/bin/sh
# Builds the WebAssembly module for the npm package's JS: cargo (profile `wasm`), wasm-bindgen (the same classes
# as the napi addon) for two hosts, then wasm-opt -Oz from npm's binaryen (Debian's binaryen 108 corrupts the
# module): node/wasm-pkg (target nodejs, for CUECARD_BACKEND=wasm) and node/wasm-web (target web, for
# node/browser's bundle). Prints the module's size.
#   CUECARD_WASM_FEATURES=testing wasm/build.sh   # with the test-only export, as the Node suite wants
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/node/wasm-pkg"
OUT_WEB="$ROOT/node/wasm-web"
FEATURES="${CUECARD_WASM_FEATURES:-}"
cd "$ROOT"
cargo build -q --locked -p cuecard-wasm --target wasm32-unknown-unknown --profile wasm ${FEATURES:+--features "$FEATURES"}
optimize() {
  # The features rustc enables for wasm32 by default; wasm-opt must know them to keep the module valid.
  "$ROOT/node/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
    --strip-debug --strip-producers "$1" -o "$1"
}
MODULE="$TARGET/wasm32-unknown-unknown/wasm/cuecard_wasm.wasm"
wasm-bindgen --target nodejs --out-dir "$OUT" "$MODULE"
wasm-bindgen --target web --out-dir "$OUT_WEB" "$MODULE"
optimize "$OUT/cuecard_wasm_bg.wasm" &
optimize "$OUT_WEB/cuecard_wasm_bg.wasm"
wait
BYTES=$(wc -c < "$OUT_WEB/cuecard_wasm_bg.wasm")
GZIPPED=$(gzip -9c "$OUT_WEB/cuecard_wasm_bg.wasm" | wc -c)
echo "cuecard_wasm_bg.wasm: $BYTES bytes, $GZIPPED gzipped"
