#!/usr/bin/env bash
# The local queue's group commit (docs/operations.md, "The local queue"): the local server
# on the embedded default (the release-speed build), a flood of distinct signed impression
# links of one served ad (wrk, 2 threads, 32 connections, 10 s), then SIGKILL the moment
# wrk ends, a restart on the same data, and every answered call counted by the in-process
# events worker. A call is answered only once its event is committed to the queue's file,
# so none may be lost. One wrk viewer fires far faster than a person watches: most of its
# impressions are counted as invalid traffic (docs/traffic-quality.md), which is counted
# all the same; the check is valid + invalid.
#
#   ./scripts/group-commit-bench.sh            # 10 s, 32 connections, 2 threads
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
THREADS=${THREADS:-2}
LINKS=${LINKS:-100000}
PROFILE=${PROFILE:-release-speed}
command -v wrk > /dev/null || { apt-get install -y -q wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }; }
if [ -n "${SMOKE:-}" ]; then PROFILE=dev DURATION=1 LINKS=300 CONNECTIONS=4; fi
cargo build --profile "$PROFILE" -q -p local -p admin
T=${CARGO_TARGET_DIR:-target}
BIN=$T/$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
. scripts/load/impression-links.sh
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
KEY=alpha-demo-key-7f3c9a1e5b2d4680
UA="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
trap 'kill -9 ${SERVER:-} 2>/dev/null || true; rm -rf "$DATA"' EXIT
start() {
  ACCOUNT_RATE_PER_SEC=0 DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN/local-server" >> "$DATA/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && return; sleep 0.1; done
  echo "the server did not start"; cat "$DATA/server.log"; exit 1
}
# Every impression of the ad counted so far, valid or not.
counted() {
  curl -sf -H "x-o-api-key: $KEY" "$BASE/v3/ads/$AD?embed=metrics" \
    | python3 -c 'import json,sys; m = json.load(sys.stdin)["metrics"]; print(m.get("impression", 0) + m.get("invalid", {}).get("total", 0))'
}
start; kill $SERVER; wait $SERVER 2>/dev/null || true
DATA_DIR="$DATA" "$BIN/admin" seed-synthetic demo-alpha 100 500 > /dev/null
start
impression_links "$BASE" "$LINKS" "$DATA/links.lua" "$UA"
NLINKS=$(grep -c '^"' "$DATA/links.lua")
# Let the ad requests' own work settle before the flood.
sleep 2
BEFORE=$(counted)
R=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$DATA/links.lua" "$BASE" | grep RESULT)
kill -9 $SERVER; wait $SERVER 2>/dev/null || true
echo "== the flood ($THREADS threads, $CONNECTIONS connections, ${DURATION} s, $PROFILE build): $R"
ANSWERED=$(echo "$R" | sed -E 's/.*answered=([0-9]+).*/\1/')
WANT=$((ANSWERED < NLINKS ? ANSWERED : NLINKS))
start
GOT=0
for _ in $(seq 1 600); do GOT=$(( $(counted) - BEFORE )); [ "$GOT" -ge "$WANT" ] && break; sleep 0.5; done
kill $SERVER; wait $SERVER 2>/dev/null || true
echo "== killed (SIGKILL) as wrk ended, restarted: $GOT impressions counted of $WANT distinct links answered"
[ "$GOT" -ge "$WANT" ] || { echo "answered events were lost"; exit 1; }
