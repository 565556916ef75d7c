#!/usr/bin/env bash
# Instructions per request of the whole server (hyper, tokio, the wire layer, the journal), counted by cachegrind:
# `cuecard serve --instant` (whole journal kept) beside the bare hyper server answering the same bytes. Exact and
# free of the timing noise of a shared VM (issue #31: the A/B of a change to the request path). Each figure is the
# difference of two runs (200 and 1,200 non-streaming requests over one keep-alive connection), which cancels the
# start-up. STREAM=1: a 13-event stream (bench/load-short.json) instead, against bare servers writing the same events.
#
#   apt-get install valgrind
#   bench/server-cost.sh            (ROUNDS=3: each figure the median of three measures)
#   CUECARD_CLI=/path/to/old/cuecard bench/server-cost.sh    (an A/B: another build of the command, same bare server)
#   STREAM=1 bench/server-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
cargo build -q --profile dist --locked -p cuecard-cli
cargo build -q --profile dist --locked -p cuecard --features server --example bare_server
BIN="$CARGO_TARGET_DIR/dist"
CLI="${CUECARD_CLI:-$BIN/cuecard}"
OUT="$CARGO_TARGET_DIR/server-cost"
mkdir -p "$OUT"
if [ "${STREAM:-0}" = 1 ]; then
  STREAMING=true SCENARIO=bench/load-short.json KIND="streamed request (13 events)"; export BARE_CONTENT_TYPE=text/event-stream
else
  STREAMING=false SCENARIO=bench/load.json KIND="non-streaming request"
fi
export REQUEST_BODY="{\"model\":\"gpt-4o\",\"stream\":$STREAMING,\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"}]}"

requests() { # $1 = base URL ending in /v1, $2 = count: POSTs of REQUEST_BODY over one keep-alive connection, each answered 200
  python3 - "$1" "$2" <<'PY'
import http.client, os, sys, urllib.parse
url, n = urllib.parse.urlparse(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection(url.hostname, url.port)
body = os.environ["REQUEST_BODY"]
for _ in range(n):
    connection.request("POST", url.path + "/chat/completions", body, {"content-type": "application/json"})
    reply = connection.getresponse()
    reply.read()
    assert reply.status == 200, reply.status
PY
}

instructions() { # $1 = count, then the server's command: its instructions over start-up and $1 requests
  local count="$1"; shift
  : > "$OUT/server.out"
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" > "$OUT/server.out" 2> "$OUT/server.err" &
  local pid=$!
  for _ in $(seq 1 200); do [ -s "$OUT/server.out" ] && break; sleep 0.1; done
  local url
  url="$(head -1 "$OUT/server.out" | awk '{print $NF}')"
  case "$url" in */v1) ;; *) url="$url/v1" ;; esac
  requests "$url" "$count"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null || true
  awk '/I *refs/ {gsub(",", "", $4); print $4}' "$OUT/server.err"
}

# The bytes cuecard answers, for the bare server to answer too.
"$CLI" serve --port 0 --instant --scenario "$SCENARIO" > "$OUT/once.out" 2> /dev/null & ONCE=$!
for _ in $(seq 1 200); do [ -s "$OUT/once.out" ] && break; sleep 0.02; done
curl -s -D "$OUT/whole.head" -H 'content-type: application/json' -d "$REQUEST_BODY" \
  "$(head -1 "$OUT/once.out" | awk '{print $NF}')/chat/completions" > "$OUT/whole.body"
kill "$ONCE"; wait "$ONCE" 2>/dev/null || true
# Its headers but the ones hyper writes itself (status line, content-type, content-length, transfer-encoding).
tr -d '\r' < "$OUT/whole.head" | grep -vi '^HTTP/\|^content-type:\|^content-length:\|^transfer-encoding:\|^$' > "$OUT/whole.headers"

per_request() { # the server's command: instructions per request, the median of ROUNDS measures
  # One measure varies by about 2.5% either way: how often tokio's workers park and wake depends on timing.
  local few many round figures=()
  for round in $(seq 1 "${ROUNDS:-3}"); do
    few="$(instructions 200 "$@")"
    many="$(instructions 1200 "$@")"
    figures+=($(( (many - few) / 1000 )))
  done
  printf '%s\n' "${figures[@]}" | sort -n | sed -n "$(( (${#figures[@]} + 1) / 2 ))p"
}
CUECARD="$(per_request "$CLI" serve --port 0 --instant --scenario "$SCENARIO" --journal-limit 100000000)"
export BARE_BODY="$OUT/whole.body"
BARE_BODY_ONLY="$(per_request "$BIN/examples/bare_server")"
BARE="$(BARE_HEADERS="$OUT/whole.headers" per_request "$BIN/examples/bare_server")"
# The floor of any server that answers from the request: hyper handing over the body (a channel and a wake-up).
BARE_READING="$(BARE_READ_BODY=1 BARE_HEADERS="$OUT/whole.headers" per_request "$BIN/examples/bare_server")"
echo "instructions per $KIND (cachegrind, user space): cuecard serve $CUECARD;" \
  "bare hyper writing the same bytes (body and $(wc -l < "$OUT/whole.headers") headers) $BARE ($(python3 -c "print(f'{$CUECARD / $BARE:.2f}')")x);" \
  "bare hyper with the same body only $BARE_BODY_ONLY ($(python3 -c "print(f'{$CUECARD / $BARE_BODY_ONLY:.2f}')")x);" \
  "bare hyper reading the request body, then writing the same bytes $BARE_READING ($(python3 -c "print(f'{$CUECARD / $BARE_READING:.2f}')")x)"
# For bench/figures.py: instructions per request, and the ratio to the bare server writing the same bytes.
FIGURE="server-cost/$([ "${STREAM:-0}" = 1 ] && echo stream || echo whole)"
echo "figure $FIGURE/cuecard $CUECARD instructions"
echo "figure $FIGURE/bare $BARE instructions"
echo "figure $FIGURE/over-bare $(python3 -c "print(f'{$CUECARD / $BARE:.3f}')") x"
