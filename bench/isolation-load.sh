#!/usr/bin/env bash
# One server, many tests (issue #30): throughput and the server's CPU per request with 64 tests interleaved on one
# `cuecard serve` (each request to the next test's /t/test{n}/ prefix, so every test's mock and journal are hit in
# turn) beside one test alone and beside the unprefixed default test, in the same run, interleaved ROUNDS times.
# Pinned as issue #31 measures: the server on CPU 0, wrk -t1 on CPU 1, loopback only, DURATION seconds a run.
#
#   apt-get install wrk
#   bench/isolation-load.sh      # DURATION=5 ROUNDS=3 CONNECTIONS=16 JOURNAL_LIMIT=1000 by default
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-5}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-16}"
# Entries kept per journal (each test has its own): 64 tests keep 64 times as many as one.
JOURNAL_LIMIT="${JOURNAL_LIMIT:-1000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
cargo build -q --profile dist --locked -p cuecard-cli
BIN="$CARGO_TARGET_DIR/dist"

taskset -c 0 "$BIN/cuecard" serve --port 0 --instant --scenario bench/load.json --journal-limit "$JOURNAL_LIMIT" > "$CARGO_TARGET_DIR/isolation.out" &
SERVE_PID=$!
trap 'kill "$SERVE_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 200); do [ -s "$CARGO_TARGET_DIR/isolation.out" ] && break; sleep 0.02; done
URL="$(head -1 "$CARGO_TARGET_DIR/isolation.out" | awk '{print $NF}')"
URL="${URL%/v1}"

cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVE_PID/stat"; }
run() { # $1 = tests (0: unprefixed), $2 = seconds: prints "requests/s cpu-us-per-request"
  local before after out
  before="$(cpu_ticks)"
  out="$(TESTS="$1" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${2}s" -s bench/tests.lua "$URL")"
  after="$(cpu_ticks)"
  python3 - "$before" "$after" "$(getconf CLK_TCK)" "$out" <<'PY'
import re, sys
before, after, hz, out = sys.argv[1:]
requests = int(re.search(r"(\d+) requests in", out).group(1))
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
if errors:
    sys.exit(f"{errors.group(1)} requests were not answered 200:\n{out}")
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
print(f"{rps:.0f} {(int(after) - int(before)) / int(hz) * 1e6 / requests:.2f}")
PY
}

run 64 1 > /dev/null   # warm up: makes the 64 tests
run 1 1 > /dev/null
declare -A RESULTS
for round in $(seq 1 "$ROUNDS"); do
  for tests in 1 64 0; do RESULTS[$tests]+="$(run "$tests" "$DURATION"),"; done
done
LIVE="$(curl -s "$URL/_cuecard/tests" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["tests"]))')"

python3 - "${RESULTS[1]}" "${RESULTS[64]}" "${RESULTS[0]}" "$LIVE" "$ROUNDS" "$DURATION" "$CONNECTIONS" "$JOURNAL_LIMIT" <<'PY'
import statistics, sys
one, many, default, live, rounds, duration, connections, limit = sys.argv[1:]
def medians(runs):
    pairs = [tuple(map(float, r.split())) for r in runs.strip(",").split(",")]
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs), [int(p[0]) for p in pairs]
(r1, c1, all1), (r64, c64, all64), (r0, c0, all0) = medians(one), medians(many), medians(default)
print(f"pinned (server CPU 0, wrk -t1 CPU 1), c{connections}, journal limit {limit} per test, {rounds} interleaved rounds of {duration} s, medians:")
print(f"  one test alone (/t/test0/):       {r1:8.0f} req/s  {c1:5.2f} us CPU/request  runs {all1}")
print(f"  64 tests interleaved (/t/test{{n}}/): {r64:6.0f} req/s  {c64:5.2f} us CPU/request  runs {all64}")
print(f"  the default test (unprefixed):    {r0:8.0f} req/s  {c0:5.2f} us CPU/request  runs {all0}")
print(f"  64 tests / one test: throughput {r64 / r1:.3f}, CPU per request {c64 / c1:.3f} ({live} tests live)")
PY
