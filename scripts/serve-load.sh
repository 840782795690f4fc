#!/usr/bin/env bash
# Load test of the serving endpoint: the local server (embedded store, bench
# profile) with the demo account plus a generated one of 1,000 active goals and 5,000 ads
# with mixed targeting (admin seed-synthetic), then wrk on loopback sending varied ad
# requests as fast as the connections go. Prints requests/s, latency percentiles and the
# server's memory (peak and after the load).
#
#   ./scripts/serve-load.sh                      # 30 s, 8 connections, 2 wrk threads
#   DURATION=60 CONNECTIONS=16 ./scripts/serve-load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-30}
CONNECTIONS=${CONNECTIONS:-8}
GOALS=${GOALS:-1000}
ADS=${ADS:-5000}
command -v wrk > /dev/null || { apt-get install -y -q wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }; }
. scripts/bench-build.sh
bench_build -p local -p admin
BIN=$BIN_DIR
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
start() {
  DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN/local-server" > "$DATA/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && return; sleep 0.1; done
  echo "the server did not start"; cat "$DATA/server.log"; exit 1
}
trap 'kill ${SERVER:-} 2>/dev/null || true; rm -rf "$DATA"' EXIT
# The first start seeds the demo accounts; the generated records go in while it is stopped
# (the embedded store is one process's file).
start; kill $SERVER; wait $SERVER 2>/dev/null || true
ACCOUNT=demo-alpha
DATA_DIR="$DATA" "$BIN/admin" seed-synthetic "$ACCOUNT" "$GOALS" "$ADS"
start
export ACCOUNT
T0=$(date +%s%N); curl -sf "$BASE/v1/adrequest?account=$ACCOUNT&format=preroll" > /dev/null; T1=$(date +%s%N)
echo "== first ad request (snapshot built from the store): $(( (T1 - T0) / 1000000 )) ms"
curl -sf "$BASE/v1/adrequest?account=$ACCOUNT&format=midroll&category=cat-1-2&pid=v1" | head -c 300; echo " ..."
echo "== wrk: $CONNECTIONS connections, 2 threads, $DURATION s, loopback"
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s scripts/load/adrequest.lua "$BASE" | tee "$DATA/wrk.txt" | grep -E "RESULT|Requests/sec|Non-2xx|Socket errors" || true
grep -q "errors=0 non_2xx=0" "$DATA/wrk.txt" || { echo "== errors under load"; tail -20 "$DATA/server.log"; exit 1; }
echo "== server memory: $(awk '/VmHWM/ {printf "peak %.0f MB", $2/1024} /VmRSS/ {printf ", now %.0f MB", $2/1024}' "/proc/$SERVER/status")"
