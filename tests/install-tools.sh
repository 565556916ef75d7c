#!/usr/bin/env bash
# Installs the command-line tools the test steps use, each only when it is missing (all from crates.io or rustup):
# wasm-bindgen-cli 0.2.130 (the wasm step; it must match the crate's wasm-bindgen exactly, and is not --locked: see
# design/toolchain.md), mdBook 0.5.4 with mdbook-linkcheck2 0.13.0 (the book), and nightly with cargo-fuzz 0.13.2
# (the fuzz step). About seven minutes of compiling on 2 cores when none is there.
#
# tests/run-all.sh runs this in the background from its start, at low priority, so the compiling fills the time
# its test steps leave a core idle (test runs, downloads, valgrind); each step that needs a tool waits for it.
#   tests/install-tools.sh
set -euo pipefail

# Each install in its own target directory, never the run's shared one (whose lock the test steps hold).
unset CARGO_TARGET_DIR

if ! wasm-bindgen --version 2>/dev/null | grep -q " 0.2.130"; then
  cargo install -q wasm-bindgen-cli --version 0.2.130
fi
if ! mdbook --version 2>/dev/null | grep -q "v0.5.4"; then
  cargo install -q --locked mdbook --version 0.5.4 --no-default-features --features search
fi
if ! command -v mdbook-linkcheck2 >/dev/null 2>&1; then
  cargo install -q --locked mdbook-linkcheck2 --version 0.13.0
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install -q cargo-fuzz --version 0.13.2 --locked
fi
echo "tools: wasm-bindgen $(wasm-bindgen --version | cut -d' ' -f2), $(mdbook --version), mdbook-linkcheck2, $(cargo fuzz --version)"
