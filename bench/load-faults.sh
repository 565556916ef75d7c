#!/usr/bin/env bash
# Load and faults against the loopback server (core/examples/load_faults.rs), bounded in count and time: 1,000
# keep-alive connections x 100,000 requests with every request answered and journaled once and every step taken
# once in arrival order; clients leaving mid-stream; the scenario replaced under load; the server stopped under load.
#   bench/load-faults.sh [CONNECTIONS] [REQUESTS]      # defaults 1000 100000
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
# Two descriptors per connection (client and server) in one process, plus the runtime's.
ulimit -n "$(( $(ulimit -Hn) < 8192 ? $(ulimit -Hn) : 8192 ))"
cargo build -q --profile dist --locked -p cuecard --features server --example load_faults
"$CARGO_TARGET_DIR/dist/examples/load_faults" "${1:-1000}" "${2:-100000}"
