#!/usr/bin/env bash
# Server benchmarks on loopback only, bounded in time: `cuecard serve` beside a bare hyper server that returns a
# fixed body (the practical ceiling of this machine), both under wrk at concurrency 16; per-token streaming, long
# (bench/load.json) and short (bench/load-short.json, 13 SSE events a response);
# `cuecard serve` cold start; memory before and after the load with a bounded journal. Then the tail: p99 at
# concurrency 16 and 64 with the whole journal kept, each run beside the bare server (TAIL_DURATION seconds each,
# 60 by default as issue #15 asks; TAIL_DURATION=0 skips it), with the server's CPU time per request.
#
#   apt-get install wrk          # Debian's wrk
#   apt-get install nghttp2-client  # h2load, for the HTTP/2 row (skipped without it)
#   bench/server-load.sh         # DURATION=5 seconds per run by default
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-16}"
TAIL_DURATION="${TAIL_DURATION:-60}"
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
# The same bare server keeping the CPU busy 1, 2 and 5 us per request: how steeply throughput falls below the
# ceiling once answering costs anything, with wrk on the same two cores.
WORK_RPS=()
for work_us in 1 2 5; do
  "$BIN/examples/bare_server" "$((work_us * 1000))" > "$CARGO_TARGET_DIR/bare-work.out" & WORK_PID=$!
  WORK_URL="$(first_line "$CARGO_TARGET_DIR/bare-work.out")"
  WORK_RPS+=("$work_us:$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$WORK_URL/v1/chat/completions" | rps)")
  kill "$WORK_PID"; wait "$WORK_PID" 2>/dev/null || true
done
CUECARD_RPS="$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$CUECARD_URL/chat/completions" | rps)"
STREAM_RPS="$(STREAM=1 wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s bench/chat.lua "$CUECARD_URL/chat/completions" | rps)"
# HTTP/2 with prior knowledge against HTTP/1.1 on the same server and port, both under h2load (Debian's
# nghttp2-client), one request in flight per connection: what the protocol costs the server, not the load tool.
H2_RPS=0; H1_RPS=0
if command -v h2load >/dev/null; then
  python3 -c 'import json; print(json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "What is the weather in Paris?"}]}))' > "$CARGO_TARGET_DIR/h2-body.json"
  h2rps() { grep -E '^finished in' | sed -E 's/.*, ([0-9.]+) req\/s.*/\1/'; }
  H2_RPS="$(h2load -D "$DURATION" -c "$CONNECTIONS" -m 1 -d "$CARGO_TARGET_DIR/h2-body.json" -H 'content-type: application/json' "$CUECARD_URL/chat/completions" | h2rps)"
  H1_RPS="$(h2load --h1 -D "$DURATION" -c "$CONNECTIONS" -d "$CARGO_TARGET_DIR/h2-body.json" -H 'content-type: application/json' "$CUECARD_URL/chat/completions" | h2rps)"
fi
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

# Cold start: process start until the first line (a base URL) is printed, median of 20, for `cuecard serve`, the
# bare server, and /bin/echo (what starting any process costs here); then the idle RSS of a fresh `cuecard serve`.
cold_start_us() {
  python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(20):
    start = time.perf_counter()
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process.stdout.readline()
    times.append(time.perf_counter() - start)
    process.kill()
    process.wait()
print(int(statistics.median(times) * 1e6))
PY
}
COLD_MEDIAN_US="$(cold_start_us "$BIN/cuecard" serve --port 0)"
BARE_COLD_US="$(cold_start_us "$BIN/examples/bare_server")"
ECHO_COLD_US="$(cold_start_us /bin/echo started)"
"$BIN/cuecard" serve --port 0 > "$CARGO_TARGET_DIR/idle.out" & IDLE_PID=$!; PIDS+=($IDLE_PID)
first_line "$CARGO_TARGET_DIR/idle.out" > /dev/null
sleep 0.2
IDLE_RSS="$(awk '/VmRSS/ {print $2}' "/proc/$IDLE_PID/status")"

python3 - "$BARE_RPS" "$CUECARD_RPS" "$STREAM_RPS" "$EVENTS" "$COLD_MEDIAN_US" "$RSS_BEFORE" "$RSS_AFTER" "$TOTAL" "$SHORT_RPS" "$SHORT_EVENTS" "$BARE_COLD_US" "$ECHO_COLD_US" "$IDLE_RSS" "${WORK_RPS[*]}" "$H2_RPS" "$H1_RPS" <<'PY'
import sys
bare, cuecard, stream, events, cold, before, after, total, short, short_events, bare_cold, echo_cold, idle, work, h2, h1 = sys.argv[1:]
bare, cuecard, stream, short = float(bare), float(cuecard), float(stream), float(short)
print(f"bare hyper (ceiling):        {bare:10.0f} req/s")
for pair in work.split():
    work_us, rps = pair.split(":")
    print(f"  the same + {work_us} us work/req: {float(rps):10.0f} req/s  ({float(rps) / bare:.0%} of the ceiling)")
print(f"cuecard non-streaming:       {cuecard:10.0f} req/s  ({cuecard / bare:.0%} of the ceiling)")
print(f"cuecard streaming:           {stream:10.0f} req/s  x {events} SSE events = {stream * int(events):.0f} events/s")
if float(h2) > 0:
    print(f"cuecard over HTTP/2 (h2load): {float(h2):9.0f} req/s  beside HTTP/1.1 under h2load: {float(h1):.0f} req/s")
else:
    print("cuecard over HTTP/2:         skipped (h2load not found: apt-get install nghttp2-client)")
print(f"cuecard short streams:       {short:10.0f} req/s  x {short_events} SSE events = {short * int(short_events):.0f} events/s")
print(f"cold start (median of 20):   {int(cold) / 1000:10.1f} ms cuecard serve, {int(bare_cold) / 1000:.1f} ms bare server, {int(echo_cold) / 1000:.1f} ms /bin/echo")
print(f"idle RSS of cuecard serve:   {int(idle) / 1024:10.1f} MiB")
print(f"RSS before / after the load: {int(before) / 1024:.1f} MiB / {int(after) / 1024:.1f} MiB over {total} journaled requests (journal limit 1000)")
PY

[ "$TAIL_DURATION" -gt 0 ] || exit 0
# The tail with the whole journal kept: a fresh server whose journal limit is never reached.
"$BIN/cuecard" serve --port 0 --instant --scenario bench/load.json --journal-limit 100000000 > "$CARGO_TARGET_DIR/serve-all.out" & ALL_PID=$!; PIDS+=($ALL_PID)
ALL_URL="$(first_line "$CARGO_TARGET_DIR/serve-all.out" | awk '{print $NF}')"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
BARE_PID="$(pgrep -f "$BIN/examples/bare_server" | head -1)"
echo
echo "p99 over ${TAIL_DURATION} s, whole journal kept (server CPU per request from /proc, wrk -t2 on the same 2 cores):"
for connections in 16 64; do
  for server in bare cuecard; do
    if [ "$server" = bare ]; then url="$BARE_URL/v1/chat/completions"; pid="$BARE_PID"; else url="$ALL_URL/chat/completions"; pid="$ALL_PID"; fi
    before="$(cpu_ticks "$pid")"
    out="$(wrk -t2 -c"$connections" -d"${TAIL_DURATION}s" --latency -s bench/chat.lua "$url")"
    after="$(cpu_ticks "$pid")"
    python3 - "$server" "$connections" "$before" "$after" "$(getconf CLK_TCK)" "$out" <<'PY'
import re, sys
server, connections, before, after, hz, out = sys.argv[1:]
requests = int(re.search(r"(\d+) requests in", out).group(1))
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
p99 = re.search(r"\s99%\s+(\S+)", out).group(1)
cpu_us = (int(after) - int(before)) / int(hz) * 1e6 / requests
print(f"  {server:<8} c{connections:<3} {rps:10.0f} req/s  p99 {p99:>8}  {cpu_us:5.1f} us CPU/request")
PY
  done
done
echo "  cuecard RSS after the tail runs: $(awk '/VmRSS/ {print $2}' "/proc/$ALL_PID/status") kB, $(curl -s "${ALL_URL%/v1}/_cuecard/journal?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["count"])') requests journaled"
