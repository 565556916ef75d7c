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
#   PINNED=1 bench/server-load.sh   # the fair CPU measure of issue #31 only (see below)
#   PINNED=1 BASELINE_CLI=/path/to/old/cuecard bench/server-load.sh   # and another build beside it, interleaved
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

# Pinned mode (issue #31): the server on CPU 0, wrk -t1 on CPU 1, so the load tool does not share the server's core,
# and the server's CPU time per request read from /proc/PID/stat over each run (user + system ticks / requests).
# cuecard (the whole journal kept) beside a bare hyper server answering the same bytes (captured from cuecard's
# reply), non-streaming (bench/load.json) and a 13-event stream (bench/load-short.json), PAIRS interleaved pairs of
# PINNED_DURATION seconds each. Beside them, two more rows: the bare server reading the request body before it answers
# (the floor of any server that answers from the request), and cuecard with serve's default journal limit.
if [ "${PINNED:-0}" = 1 ]; then
  PAIRS="${PAIRS:-2}"
  PINNED_DURATION="${PINNED_DURATION:-10}"
  start_pinned() { # $1 = output file, then the command: prints the server's first line; its PID in STARTED_PID
    local out="$1"; shift
    rm -f "$out" # so that first_line waits for this server's line, not a stopped one's
    taskset -c 0 "$@" > "$out" & STARTED_PID=$!; PIDS+=($STARTED_PID)
    first_line "$out" > /dev/null
  }
  # The cuecard servers keep their whole journal, which grows by about 1.5 KB of memory per request: each pair of
  # rounds gets fresh ones (a server that had answered the pair before ran slower, against a journal of half a million).
  start_cuecards() {
    for pid in ${LONG_PID:-} ${SHORT_PID:-} ${DEFAULT_LONG_PID:-} ${DEFAULT_SHORT_PID:-} ${BASE_LONG_PID:-} ${BASE_SHORT_PID:-}; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
    start_pinned "$CARGO_TARGET_DIR/pin-long.out" "$BIN/cuecard" serve --port 0 --instant --scenario bench/load.json --journal-limit 100000000
    LONG_PID=$STARTED_PID; LONG_URL="$(head -1 "$CARGO_TARGET_DIR/pin-long.out" | awk '{print $NF}')"
    start_pinned "$CARGO_TARGET_DIR/pin-short.out" "$BIN/cuecard" serve --port 0 --instant --scenario bench/load-short.json --journal-limit 100000000
    SHORT_PID=$STARTED_PID; SHORT_URL="$(head -1 "$CARGO_TARGET_DIR/pin-short.out" | awk '{print $NF}')"
    # And as `cuecard serve` runs by default: the newest 10,000 entries kept, each older one let go as a request comes.
    start_pinned "$CARGO_TARGET_DIR/pin-default-long.out" "$BIN/cuecard" serve --port 0 --instant --scenario bench/load.json
    DEFAULT_LONG_PID=$STARTED_PID; DEFAULT_LONG_URL="$(head -1 "$CARGO_TARGET_DIR/pin-default-long.out" | awk '{print $NF}')"
    start_pinned "$CARGO_TARGET_DIR/pin-default-short.out" "$BIN/cuecard" serve --port 0 --instant --scenario bench/load-short.json
    DEFAULT_SHORT_PID=$STARTED_PID; DEFAULT_SHORT_URL="$(head -1 "$CARGO_TARGET_DIR/pin-default-short.out" | awk '{print $NF}')"
    if [ -n "${BASELINE_CLI:-}" ]; then # another build of the command (before a change), measured in the same rounds
      start_pinned "$CARGO_TARGET_DIR/pin-base-long.out" "$BASELINE_CLI" serve --port 0 --instant --scenario bench/load.json --journal-limit 100000000
      BASE_LONG_PID=$STARTED_PID; BASE_LONG_URL="$(head -1 "$CARGO_TARGET_DIR/pin-base-long.out" | awk '{print $NF}')"
      start_pinned "$CARGO_TARGET_DIR/pin-base-short.out" "$BASELINE_CLI" serve --port 0 --instant --scenario bench/load-short.json --journal-limit 100000000
      BASE_SHORT_PID=$STARTED_PID; BASE_SHORT_URL="$(head -1 "$CARGO_TARGET_DIR/pin-base-short.out" | awk '{print $NF}')"
    fi
  }
  start_cuecards
  # The bytes cuecard answers, body and headers, for the bare servers to answer too (these requests are journaled
  # like the rest). The headers are all but those hyper writes itself (status line, content-type, content-length,
  # transfer-encoding).
  ask() { # $1 = URL, $2 = stream (true/false), $3 = file prefix: writes $3.body and $3.headers
    curl -s -D "$3.head" -H 'content-type: application/json' -d "{\"model\":\"gpt-4o\",\"stream\":$2,\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}" "$1/chat/completions" > "$3.body"
    tr -d '\r' < "$3.head" | grep -vi '^HTTP/\|^content-type:\|^content-length:\|^transfer-encoding:\|^$' > "$3.headers"
  }
  ask "$LONG_URL" false "$CARGO_TARGET_DIR/pin-whole"
  ask "$SHORT_URL" true "$CARGO_TARGET_DIR/pin-stream"
  EVENTS="$(grep -c '^data: ' "$CARGO_TARGET_DIR/pin-stream.body")"
  BARE_BODY="$CARGO_TARGET_DIR/pin-whole.body" BARE_HEADERS="$CARGO_TARGET_DIR/pin-whole.headers" start_pinned "$CARGO_TARGET_DIR/pin-bare.out" "$BIN/examples/bare_server"
  BARE_PID=$STARTED_PID; BARE_URL="$(head -1 "$CARGO_TARGET_DIR/pin-bare.out")/v1"
  BARE_BODY="$CARGO_TARGET_DIR/pin-stream.body" BARE_HEADERS="$CARGO_TARGET_DIR/pin-stream.headers" BARE_CONTENT_TYPE=text/event-stream start_pinned "$CARGO_TARGET_DIR/pin-bare-stream.out" "$BIN/examples/bare_server"
  BARE_STREAM_PID=$STARTED_PID; BARE_STREAM_URL="$(head -1 "$CARGO_TARGET_DIR/pin-bare-stream.out")/v1"
  # The floor of any server that answers from the request: the same bare servers, reading the request body first.
  BARE_READ_BODY=1 BARE_BODY="$CARGO_TARGET_DIR/pin-whole.body" BARE_HEADERS="$CARGO_TARGET_DIR/pin-whole.headers" start_pinned "$CARGO_TARGET_DIR/pin-bare-read.out" "$BIN/examples/bare_server"
  BARE_READ_PID=$STARTED_PID; BARE_READ_URL="$(head -1 "$CARGO_TARGET_DIR/pin-bare-read.out")/v1"
  BARE_READ_BODY=1 BARE_BODY="$CARGO_TARGET_DIR/pin-stream.body" BARE_HEADERS="$CARGO_TARGET_DIR/pin-stream.headers" BARE_CONTENT_TYPE=text/event-stream start_pinned "$CARGO_TARGET_DIR/pin-bare-read-stream.out" "$BIN/examples/bare_server"
  BARE_READ_STREAM_PID=$STARTED_PID; BARE_READ_STREAM_URL="$(head -1 "$CARGO_TARGET_DIR/pin-bare-read-stream.out")/v1"
  cpu_us_per_request() { # $1 = pid, $2 = url, $3 = stream (0/1): prints "req/s us-CPU/request"
    local before after out
    before="$(awk '{print $14 + $15}' "/proc/$1/stat")"
    out="$(STREAM="$3" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${PINNED_DURATION}s" -s bench/chat.lua "$2/chat/completions")"
    after="$(awk '{print $14 + $15}' "/proc/$1/stat")"
    python3 -c 'import re,sys; out=sys.argv[4]; n=int(re.search(r"(\d+) requests in", out).group(1)); rps=float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)); print(f"{rps:.0f} {(int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3]) * 1e6 / n:.2f}")' "$before" "$after" "$(getconf CLK_TCK)" "$out"
  }
  ROWS=()
  for pair in $(seq 1 "$PAIRS"); do
    [ "$pair" = 1 ] || start_cuecards
    STREAM=0 taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d1s -s bench/chat.lua "$LONG_URL/chat/completions" > /dev/null  # warm up
    ROWS+=("bare-whole:$(cpu_us_per_request "$BARE_PID" "$BARE_URL" 0 | tr ' ' :)")
    ROWS+=("bareread-whole:$(cpu_us_per_request "$BARE_READ_PID" "$BARE_READ_URL" 0 | tr ' ' :)")
    ROWS+=("cuecard-whole:$(cpu_us_per_request "$LONG_PID" "$LONG_URL" 0 | tr ' ' :)")
    ROWS+=("default-whole:$(cpu_us_per_request "$DEFAULT_LONG_PID" "$DEFAULT_LONG_URL" 0 | tr ' ' :)")
    [ -n "${BASELINE_CLI:-}" ] && ROWS+=("baseline-whole:$(cpu_us_per_request "$BASE_LONG_PID" "$BASE_LONG_URL" 0 | tr ' ' :)")
    ROWS+=("bare-stream:$(cpu_us_per_request "$BARE_STREAM_PID" "$BARE_STREAM_URL" 1 | tr ' ' :)")
    ROWS+=("bareread-stream:$(cpu_us_per_request "$BARE_READ_STREAM_PID" "$BARE_READ_STREAM_URL" 1 | tr ' ' :)")
    ROWS+=("cuecard-stream:$(cpu_us_per_request "$SHORT_PID" "$SHORT_URL" 1 | tr ' ' :)")
    ROWS+=("default-stream:$(cpu_us_per_request "$DEFAULT_SHORT_PID" "$DEFAULT_SHORT_URL" 1 | tr ' ' :)")
    [ -n "${BASELINE_CLI:-}" ] && ROWS+=("baseline-stream:$(cpu_us_per_request "$BASE_SHORT_PID" "$BASE_SHORT_URL" 1 | tr ' ' :)")
  done
  python3 - "$EVENTS" "$CONNECTIONS" "$PINNED_DURATION" "${ROWS[@]}" <<'PY'
import statistics, sys
events, connections, duration, *rows = sys.argv[1:]
runs = {}
for row in rows:
    name, rps, cpu = row.split(":")
    runs.setdefault(name, []).append((float(rps), float(cpu)))
print(f"pinned: server on CPU 0, wrk -t1 -c{connections} on CPU 1, {duration} s runs, CPU per request from /proc:")
for kind, label in (("whole", "non-streaming, whole journal kept"), ("stream", f"{events}-event stream, whole journal kept")):
    bare, cuecard = runs[f"bare-{kind}"], runs[f"cuecard-{kind}"]
    print(f"  {label}:")
    print(f"    bare hyper, same bytes (body and headers): {' '.join(f'{c:.2f}' for _, c in bare)} us CPU/request  ({' '.join(f'{r:.0f}' for r, _ in bare)} req/s)")
    print(f"    cuecard serve --instant: {' '.join(f'{c:.2f}' for _, c in cuecard)} us CPU/request  ({' '.join(f'{r:.0f}' for r, _ in cuecard)} req/s)")
    ratios = [c / b for (_, b), (_, c) in zip(bare, cuecard)]
    print(f"    cuecard / bare: {' '.join(f'{r:.2f}x' for r in ratios)} (median {statistics.median(ratios):.2f}x)")
    # For bench/figures.py: the ratio has a ceiling there (whole 1.6x, stream 1.8x), the day's bare figure beside it.
    print(f"figure server/pinned/{kind}/over-bare {statistics.median(ratios):.3f} x")
    print(f"figure server/pinned/{kind}/bare {statistics.median(c for _, c in bare):.3f} us")
    print(f"figure server/pinned/{kind}/cuecard {statistics.median(c for _, c in cuecard):.3f} us")
    others = (("bareread", "bare hyper reading the request body first"), ("default", "cuecard serve --instant, journal limit 10000 (the default)"), ("baseline", "baseline build"))
    for name, title in others:
        runs_of = runs.get(f"{name}-{kind}")
        if runs_of:
            ratios = [c / b for (_, b), (_, c) in zip(bare, runs_of)]
            print(f"    {title}: {' '.join(f'{c:.2f}' for _, c in runs_of)} us CPU/request  ({' '.join(f'{r:.0f}' for r, _ in runs_of)} req/s), / bare: median {statistics.median(ratios):.2f}x")
PY
  exit 0
fi

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
# For bench/figures.py.
for name, value, unit in (("bare", bare, "req/s"), ("whole", cuecard, "req/s"), ("whole/of-bare", cuecard / bare, "x"),
                          ("stream-events", stream * int(events), "events/s"), ("short-stream-events", short * int(short_events), "events/s"),
                          ("cold-start", int(cold) / 1000, "ms"), ("idle-rss", int(idle) / 1024, "MiB")):
    print(f"figure server/load/{name} {value:.4g} {unit}")
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
