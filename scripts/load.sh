#!/usr/bin/env bash
# Load and soak test of the local server: a mixed read/write workload at
# a fixed rate from wrk on loopback, then the figures: requests, errors, p50/p90/p99, and
# the server's resident memory sampled every 10 s (first, last, peak).
#
#   ./scripts/load.sh                 # 60 s at ~500 requests/s
#   DURATION=600 ./scripts/load.sh    # the 10-minute soak
#
# Env: DURATION (s, default 60), CONNECTIONS (default 10), DELAY_MS (per connection between
# requests, default 20: CONNECTIONS x 1000/DELAY_MS requests/s). Installs wrk (Debian) when
# missing. Builds the local server with the bench profile (optimised, no LTO).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
CONNECTIONS=${CONNECTIONS:-10}
export DELAY_MS=${DELAY_MS:-20}
command -v wrk > /dev/null || { apt-get install -y -q wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }; }
. scripts/bench-build.sh
bench_build -p local
BIN=$BIN_DIR/local-server
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ACCOUNT_RATE_PER_SEC=0 DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN" > "$DATA/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -sf "$BASE/v0/categories" -H 'x-o-api-key: x' > /dev/null 2>&1 && break; [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && break; sleep 0.1; done
export API_KEY=$(grep -o 'x-o-api-key: [a-z0-9-]*' "$DATA/server.log" | head -1 | cut -d' ' -f2)
[ -n "$API_KEY" ] || { echo "no demo key in the server's output"; cat "$DATA/server.log"; exit 1; }
H=(-H "x-o-api-key: $API_KEY")
ACC=$(grep -o 'account [a-z0-9-]*' "$DATA/server.log" | head -1 | cut -d' ' -f2)
CLIENT=$(curl -sf "${H[@]}" -H 'content-type: application/xml' -d '<clientBean><name>Load Adv</name><type>ADVERTISER</type></clientBean>' "$BASE/api/1.0/client")
export CAMPAIGN_ID=$(curl -sf "${H[@]}" -H 'content-type: application/xml' -d "<campaignBean><name>Load campaign</name><advertiserId>$CLIENT</advertiserId></campaignBean>" "$BASE/api/1.0/campaign")
START=$(date -u -d '+1 day' +%Y-%m-%dT%H:%M:%SZ); END=$(date -u -d '+30 days' +%Y-%m-%dT%H:%M:%SZ)
export GOAL_ID=$(curl -sf "${H[@]}" -H 'content-type: application/xml' -d "<goalBean><campaignId>$CAMPAIGN_ID</campaignId><name>Load goal</name><type>IMPRESSION</type><variant>NORMAL</variant><start>$START</start><end>$END</end><goalValue>1000</goalValue></goalBean>" "$BASE/api/1.0.cpvext/goal")
AD=$(curl -sf "${H[@]}" -H 'content-type: application/json' -d "{\"name\":\"Load ad\",\"goalId\":\"$GOAL_ID\",\"creative\":{\"type\":\"spotPlaceholder\",\"insertionPoint\":\"preroll\"}}" "$BASE/v1/ads")
export AD_ID=$(echo "$AD" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
export AD_BODY=$(echo "$AD" | python3 -c 'import json,sys; a=json.load(sys.stdin); a["name"]="Load ad (PUT)"; print(json.dumps(a))')
echo "== local server pid $SERVER on $BASE (account $ACC); $CONNECTIONS connections x 1000/$DELAY_MS ms for $DURATION s"
RSS="$DATA/rss.txt"
( while kill -0 $SERVER 2>/dev/null; do awk '/VmRSS/ {print $2}' /proc/$SERVER/status >> "$RSS"; sleep 10; done ) &
SAMPLER=$!
wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s scripts/load/mixed.lua "$BASE" | tee "$DATA/wrk.txt" | grep -E "RESULT|REFUSED|Requests/sec|Non-2xx|Socket errors" || true
kill $SAMPLER 2>/dev/null || true
python3 - "$RSS" <<'PY'
import sys
v = [int(x) / 1024 for x in open(sys.argv[1]).read().split()]
if v:
    warm = v[min(6, len(v) - 1):]
    print(f"RSS MB: first {v[0]:.1f}, last {v[-1]:.1f}, peak {max(v):.1f}, samples {len(v)} (every 10 s); after the first minute: min {min(warm):.1f}, max {max(warm):.1f}, last - first {warm[-1] - warm[0]:+.1f} MB")
PY
grep -q "errors=0 non_2xx=0" "$DATA/wrk.txt" || { echo "== errors under load"; tail -20 "$DATA/server.log"; exit 1; }
