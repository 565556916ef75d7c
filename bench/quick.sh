#!/usr/bin/env bash
# Every benchmark of the repository in a quick mode, each figure set beside its last accepted one
# (bench/figures.json) by bench/figures.py, with the ratio: a regression shows at the stop that made it. The
# server's cost against a bare hyper server is read against its ceilings (pinned CPU: whole answer 1.6x, 13-event
# stream 1.8x, with the day's bare figure beside it; instructions: 2.6x and 3.5x). Nothing fails on a time; the table
# is read.
#
#   bench/quick.sh                       # every part whose tools are here (about 15 minutes with the builds)
#   bench/quick.sh criterion node go     # some parts: criterion wire server node python go jvm c
#   RECORD=1 bench/quick.sh ...          # accept this run's figures as the recorded ones
#
# Parts: criterion (cargo bench --quick, every bench of the core), wire (bench/wire-cost.sh, valgrind), server
# (bench/server-cost.sh for both kinds, valgrind; bench/server-load.sh pinned and short, wrk), node (the addon's
# benchmark, dist profile), python (the wheel's per-call and SDK benchmarks, in a venv of its own), go, jvm, c.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
PARTS=("$@")
[ "${#PARTS[@]}" -gt 0 ] || PARTS=(criterion wire server node python go jvm c)
RECORD_ARGS=()
[ "${RECORD:-0}" = 1 ] && RECORD_ARGS=(--record)
has() { command -v "$1" >/dev/null 2>&1; }
skip() { echo "bench/quick.sh: $1 skipped ($2)" >&2; }

run_part() {
  case "$1" in
    criterion)
      cargo bench -q --locked -p cuecard --all-features -- --quick --noplot > "$CARGO_TARGET_DIR/criterion-quick.log" 2>&1 \
        || { cat "$CARGO_TARGET_DIR/criterion-quick.log" >&2; return 1; }
      echo "criterion: $(grep -c 'time:' "$CARGO_TARGET_DIR/criterion-quick.log") benchmarks run (their log: $CARGO_TARGET_DIR/criterion-quick.log)" ;;
    wire)
      if has valgrind; then bench/wire-cost.sh; else skip wire "valgrind missing"; fi ;;
    server)
      if has valgrind; then ROUNDS=1 bench/server-cost.sh; STREAM=1 ROUNDS=1 bench/server-cost.sh; else skip server-cost "valgrind missing"; fi
      if has wrk && has taskset; then
        PINNED=1 PAIRS=1 PINNED_DURATION=3 bench/server-load.sh
        DURATION=2 TAIL_DURATION=0 bench/server-load.sh
      else skip server-load "wrk missing"; fi ;;
    node)
      (cd node && { [ -d node_modules ] || npm ci --no-audit --no-fund --silent; } && npm run --silent bench -- --quick) ;;
    python)
      local venv="$CARGO_TARGET_DIR/bench-venv"
      [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
      "$venv/bin/pip" install --quiet --disable-pip-version-check maturin==1.16.0 -r python/tests/requirements.txt \
        -r tests/sdk/python/requirements.txt
      (cd python && "$venv/bin/maturin" build --quiet --locked --release --out "$CARGO_TARGET_DIR/bench-wheel")
      "$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$CARGO_TARGET_DIR"/bench-wheel/cuecard-*.whl
      "$venv/bin/python" python/bench/bench_calls.py
      "$venv/bin/python" python/bench/bench_sdk_transport.py --quick ;;
    go)
      if has go || [ -x /usr/local/go/bin/go ]; then
        local go; go="$(command -v go || echo /usr/local/go/bin/go)"
        go/build.sh && (cd go && "$go" test -count=1 -run '^$' -bench . -benchtime 20000x .)
        (cd tests/sdk/go && "$go" test -count=1 -run '^$' -bench OpenAIGo -benchtime 10000x .)
      else skip go "go missing"; fi ;;
    jvm)
      if has mvn; then (cd jvm && mvn -B -ntp -q test-compile exec:exec@bench -Dbench.args=--quick); else skip jvm "mvn missing"; fi ;;
    c)
      cargo build -q --release --locked -p cuecard-ffi
      cc -O2 -Iinclude ffi/bench/bench_calls.c -L"$CARGO_TARGET_DIR/release" -lcuecard_ffi -o "$CARGO_TARGET_DIR/bench_calls"
      LD_LIBRARY_PATH="$CARGO_TARGET_DIR/release" "$CARGO_TARGET_DIR/bench_calls" ;;
    *) echo "bench/quick.sh: no part named $1 (criterion wire server node python go jvm c)" >&2; return 2 ;;
  esac
}

CRITERION_ARGS=()
for part in "${PARTS[@]}"; do [ "$part" = criterion ] && CRITERION_ARGS=(--criterion "$CARGO_TARGET_DIR/criterion"); done
# A part that fails is named at the end; the others still run and their figures are still shown (and recorded).
FAILED="$CARGO_TARGET_DIR/bench-quick-failed"
rm -f "$FAILED"
for part in "${PARTS[@]}"; do
  echo "=== $part ==="
  set +e
  (set -e; run_part "$part") # errexit holds inside the subshell, which is not part of a condition
  status=$?
  set -e
  [ "$status" = 0 ] || echo "$part (exit $status)" >> "$FAILED"
done | python3 bench/figures.py "${CRITERION_ARGS[@]}" "${RECORD_ARGS[@]}"
if [ -s "$FAILED" ]; then
  echo "bench/quick.sh: these parts failed: $(paste -sd, "$FAILED")" >&2
  exit 1
fi
