#!/usr/bin/env bash
# Runs every fuzz target for a bounded time (seconds, default 30) from the committed seed corpus, with nightly and
# cargo-fuzz (installed when missing). New inputs go to a temporary corpus, so the checkout stays clean; a crash
# leaves its input in fuzz/artifacts/<target>/ and fails the run.
#   fuzz/run.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-30}"
if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install -q cargo-fuzz --version 0.13.2 --locked
fi
targets=(scenario wire tokenizer face record)
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cargo +nightly fuzz build
passed=0
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: a hostile input may not grow memory without bound.
  if ! cargo +nightly fuzz run "$target" "$scratch/$target" "corpus/$target" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 > "$scratch/$target.log" 2>&1; then
    tail -n 40 "$scratch/$target.log"
    echo "fuzz: $target found a crash; the input is in fuzz/artifacts/$target/"
    exit 1
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)" "$scratch/$target.log" || true
  echo "fuzz: $target ran ${seconds}s without a finding"
  passed=$((passed + 1))
done
echo "fuzz: $passed passed, 0 failed"
