#!/usr/bin/env bash
# Instructions per request through the wire layer (core/examples/wire_cost.rs), counted by cachegrind: exact and
# free of the timing noise of a shared VM, so an A/B of a change to the request path reads these first. Each figure
# is the difference of two runs (100 and 1,100 requests), which cancels the start-up.
#
#   apt-get install valgrind
#   bench/wire-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
cargo build -q --profile bench --locked -p cuecard --features server --example wire_cost
BIN="$CARGO_TARGET_DIR/release/examples/wire_cost"
instructions() { # $1 = requests, $2 = one of the modes below
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$BIN" "$1" "$2" 2>&1 |
    awk '/I *refs/ {gsub(",", "", $4); print $4}'
}
for mode in whole stream messages responses_whole responses gemini_whole gemini_stream ollama_stream converse_stream; do
  few="$(instructions 100 "$mode")"
  many="$(instructions 1100 "$mode")"
  echo "$mode: $(( (many - few) / 1000 )) instructions per request; $("$BIN" 1000 "$mode")"
  echo "figure wire-cost/$mode $(( (many - few) / 1000 )) instructions"  # for bench/figures.py (per request)
done
