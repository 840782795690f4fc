#!/usr/bin/env bash
# Serving throughput against a minimal axum server: the local server (bench
# profile, embedded store) with the demo account plus a generated one of 1,000 active
# goals and 5,000 ads, the exported URL of one of its ads requested by wrk on loopback;
# then a minimal axum server answering that very document (same size, same headers), same
# wrk settings, same run. Prints both rates and their ratio (the target: at least 0.5).
#
#   ./scripts/serve-vs-axum.sh                     # 15 s each, 8 connections, 1 wrk thread
#   DURATION=30 ./scripts/serve-vs-axum.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-8}
command -v wrk > /dev/null || { apt-get install -y -q wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }; }
. scripts/bench-build.sh
bench_build -p local -p admin
bench_build -p api-tests --example fixed_document
BIN=$BIN_DIR
FIXED=$BIN_DIR/examples/fixed_document
DATA=$(mktemp -d)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(port)
BASE="http://127.0.0.1:$PORT"
KEY=alpha-demo-key-7f3c9a1e5b2d4680
start() {
  DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN/local-server" > "$DATA/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && return; sleep 0.1; done
  echo "the server did not start"; cat "$DATA/server.log"; exit 1
}
trap 'kill ${SERVER:-} ${AXUM:-} 2>/dev/null || true; rm -rf "$DATA"' EXIT
start; kill $SERVER; wait $SERVER 2>/dev/null || true
DATA_DIR="$DATA" "$BIN/admin" seed-synthetic demo-alpha "${GOALS:-1000}" "${ADS:-5000}" > /dev/null
start
# The exported URL (docs/queries.md, "VAST URL export") of a pre-roll ad that is served:
# account, ad, its category, format, response type and the random token.
URL=""
for AD in $(curl -sf -H "x-o-api-key: $KEY" "$BASE/v1/ads" | python3 -c 'import json,sys; [print(a["id"]) for a in json.load(sys.stdin)[:20]]'); do
  for CAT in "" $(for i in $(seq 0 9); do for j in 0 1 2 3; do echo "cat-$i-$j"; done; done); do
    U="$BASE/v1/adrequest?account=demo-alpha&ad=$AD&category=$CAT&format=preroll&rt=vast_3_0&rnd=1"
    if curl -sf "$U" | grep -q "<Ad id=\"$AD\""; then URL=$U; break 2; fi
  done
done
[ -n "$URL" ] || { echo "no exported URL serves an ad"; exit 1; }
PATH_Q="/${URL#http://*/}"
curl -sf "$URL" > "$DATA/doc.xml"
echo "== the exported URL: $PATH_Q ($(wc -c < "$DATA/doc.xml") bytes)"
cat > "$DATA/fixed.lua" <<LUA
wrk.path = "$PATH_Q"
function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT rate_per_s=%.0f errors=%d p50_ms=%.2f p99_ms=%.2f\n", summary.requests / (summary.duration / 1e6), errors,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
LUA
run() { wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$DATA/fixed.lua" "$1" | grep RESULT; }
SERVED=$(run "$BASE")
echo "== serving (local server, ${GOALS:-1000} live goals): $SERVED"
kill $SERVER; wait $SERVER 2>/dev/null || true; SERVER=""
APORT=$(port)
"$FIXED" "$DATA/doc.xml" "$APORT" & AXUM=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$APORT/" > /dev/null && break; sleep 0.1; done
FIXED_RES=$(run "http://127.0.0.1:$APORT")
echo "== minimal axum, the same document: $FIXED_RES"
python3 - "$SERVED" "$FIXED_RES" <<'PY'
import re, sys
rate = lambda s: float(re.search(r"rate_per_s=(\d+)", s).group(1))
errs = lambda s: int(re.search(r"errors=(\d+)", s).group(1))
a, b = rate(sys.argv[1]), rate(sys.argv[2])
print(f"== ratio serving / minimal axum: {a / b:.2f} ({a:,.0f} vs {b:,.0f} requests/s)")
sys.exit(1 if errs(sys.argv[1]) else 0)
PY
