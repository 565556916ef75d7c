#!/usr/bin/env bash
# Server benchmarks on loopback only, bounded in time: `cuecard serve` beside a bare hyper server that returns a
# fixed body (the practical ceiling of this machine), both under wrk at concurrency 16; per-token streaming, long
# (bench/load.json) and short (bench/load-short.json, 13 SSE events a response);
# `cuecard serve` cold start; memory before and after the load with a bounded journal.
#
#   apt-get install wrk          # Debian's wrk
#   bench/server-load.sh         # DURATION=5 seconds per run by default
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-16}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
cargo build -q --profile dist --locked -p cuecard-cli
cargo build -q --profile dist --locked -p cuecard --features server --example bare_server
BIN="$CARGO_TARGET_DIR/dist"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

first_line() { # $1 = file: wait for the first line a server prints
  for _ in $(seq 1 200); do [ -s "$1" ] && head -1 "$1" && return; sleep 0.02; done; echo "server did not start" >&2; exit 1
}
rps() { grep -E '^Requests/sec' | awk '{print $2}'; }

"$BIN/examples/bare_server" > "$CARGO_TARGET_DIR/bare.out" & PIDS+=($!)
BARE_URL="$(first_line "$CARGO_TARGET_DIR/bare.out")"
"$BIN/cuecard" serve --port 0 --instant --scenario bench/load.json --journal-limit 1000 > "$CARGO_TARGET_DIR/serve.out" & SERVE_PID=$!; PIDS+=($SERVE_PID)
CUECARD_URL="$(first_line "$CARGO_TARGET_DIR/serve.out" | awk '{print $NF}')"

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$SERVE_PID/status"; }
wrk -t2 -c"$CONNECTIONS" -d1s -s bench/chat.lua "$CUECARD_URL/chat/completions" > /dev/null # warm up
RSS_BEFORE="$(rss_kb)"

BARE_RPS="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$BARE_URL/v1/chat/completions" | rps)"
CUECARD_RPS="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$CUECARD_URL/chat/completions" | rps)"
STREAM_RPS="$(STREAM=1 wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$CUECARD_URL/chat/completions" | rps)"
RSS_AFTER="$(rss_kb)"
TOTAL="$(curl -s "${CUECARD_URL%/v1}/_cuecard/journal" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])')"

# Short streams, on a second server: many small responses, where the cost per stream shows.
"$BIN/cuecard" serve --port 0 --instant --scenario bench/load-short.json --journal-limit 1000 > "$CARGO_TARGET_DIR/serve-short.out" & PIDS+=($!)
SHORT_URL="$(first_line "$CARGO_TARGET_DIR/serve-short.out" | awk '{print $NF}')"
SHORT_RPS="$(STREAM=1 wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$SHORT_URL/chat/completions" | rps)"

# SSE events per streamed response: the role chunk, one per token, the finish chunk, [DONE].
TOKENS="$(python3 -c 'import json; print(json.load(open("bench/load.json"))["routes"][0]["steps"][0]["text"])' | "$BIN/cuecard" tokenize --count)"
EVENTS=$((TOKENS + 3))
SHORT_TOKENS="$(python3 -c 'import json; print(json.load(open("bench/load-short.json"))["routes"][0]["steps"][0]["text"])' | "$BIN/cuecard" tokenize --count)"
SHORT_EVENTS=$((SHORT_TOKENS + 3))

# Cold start of `cuecard serve`: process start until the base URL is printed, median of 20.
COLD=()
for _ in $(seq 1 20); do
  start=$(date +%s%N)
  "$BIN/cuecard" serve --port 0 > "$CARGO_TARGET_DIR/cold.out" 2>/dev/null & pid=$!
  while [ ! -s "$CARGO_TARGET_DIR/cold.out" ]; do :; done
  end=$(date +%s%N)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  COLD+=($(( (end - start) / 1000 )))
done
COLD_MEDIAN_US="$(printf '%s\n' "${COLD[@]}" | sort -n | sed -n '10p')"

python3 - "$BARE_RPS" "$CUECARD_RPS" "$STREAM_RPS" "$EVENTS" "$COLD_MEDIAN_US" "$RSS_BEFORE" "$RSS_AFTER" "$TOTAL" "$SHORT_RPS" "$SHORT_EVENTS" <<'PY'
import sys
bare, cuecard, stream, events, cold, before, after, total, short, short_events = sys.argv[1:]
bare, cuecard, stream, short = float(bare), float(cuecard), float(stream), float(short)
print(f"bare hyper (ceiling):        {bare:10.0f} req/s")
print(f"cuecard non-streaming:       {cuecard:10.0f} req/s  ({cuecard / bare:.0%} of the ceiling)")
print(f"cuecard streaming:           {stream:10.0f} req/s  x {events} SSE events = {stream * int(events):.0f} events/s")
print(f"cuecard short streams:       {short:10.0f} req/s  x {short_events} SSE events = {short * int(short_events):.0f} events/s")
print(f"cuecard serve cold start:    {int(cold) / 1000:10.1f} ms (median of 20)")
print(f"RSS before / after the load: {int(before) / 1024:.1f} MiB / {int(after) / 1024:.1f} MiB over {total} journaled requests (journal limit 1000)")
PY
