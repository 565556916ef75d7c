#!/usr/bin/env bash
# Time to first token and inter-token latency of paced streams (a `latency` profile, not instant) as a client
# measures them on the wall clock against the loopback server, beside what the profile drew for the same requests
# (core/examples/paced_stream.rs).
#   bench/paced-stream.sh [STREAMS] [TOKENS]      # defaults 40 50
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build -q --profile dist --locked -p cuecard --features server --example paced_stream
"$CARGO_TARGET_DIR/dist/examples/paced_stream" "${1:-40}" "${2:-50}"
