#!/bin/sh
# Builds the Go package's engine: the go/face crate for wasm32 (profile `go-face`: opt-level 3 and fat LTO, as every
# `go test` call runs it: 50 µs a chat completion through Transport against 76 µs at the browser module's
# opt-level z, for 2.7 MB instead of 1.9 MB), its debug sections stripped by npm's binaryen, into go/cuecard.wasm,
# which the package embeds (`//go:embed`). tests/run-all.sh runs it before `go test`; scripts/release.sh puts the
# file in the module.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
cd "$ROOT"
cargo build -q --locked -p cuecard-go-face --target wasm32-unknown-unknown --profile go-face
"$ROOT/node/node_modules/.bin/wasm-opt" --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue --strip-debug --strip-producers \
  "$TARGET/wasm32-unknown-unknown/go-face/cuecard_go_face.wasm" -o "$ROOT/go/cuecard.wasm"
echo "go/cuecard.wasm: $(wc -c < "$ROOT/go/cuecard.wasm") bytes"
