#!/bin/sh
# Builds the WebAssembly module for the npm package's JS: cargo (profile `wasm`), wasm-bindgen (the nodejs
# target, the same classes as the napi addon), then wasm-opt -Oz from npm's binaryen (Debian's binaryen 108
# corrupts the module). Writes node/wasm-pkg (or the directory given) and prints the module's size.
#   CUECARD_WASM_FEATURES=testing wasm/build.sh   # with the test-only export, as the Node suite wants
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${1:-$ROOT/node/wasm-pkg}"
FEATURES="${CUECARD_WASM_FEATURES:-}"
cd "$ROOT"
cargo build -q --locked -p cuecard-wasm --target wasm32-unknown-unknown --profile wasm ${FEATURES:+--features "$FEATURES"}
wasm-bindgen --target nodejs --out-dir "$OUT" "$TARGET/wasm32-unknown-unknown/wasm/cuecard_wasm.wasm"
# The features rustc enables for wasm32 by default; wasm-opt must know them to keep the module valid.
"$ROOT/node/node_modules/.bin/wasm-opt" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  --strip-debug --strip-producers "$OUT/cuecard_wasm_bg.wasm" -o "$OUT/cuecard_wasm_bg.wasm"
BYTES=$(wc -c < "$OUT/cuecard_wasm_bg.wasm")
GZIPPED=$(gzip -9c "$OUT/cuecard_wasm_bg.wasm" | wc -c)
echo "cuecard_wasm_bg.wasm: $BYTES bytes, $GZIPPED gzipped"
