#!/usr/bin/env bash
# Speed or size, per function (docs/architecture.md, "Profiles"): in one run, the local
# server built in both release profiles (`release`: opt-level "z"; `release-speed`:
# opt-level 3; both LTO, one codegen unit) measured on the paths of the three functions
# where a millisecond is billed most often:
#   serving        ad requests/s and p50/p99 (wrk, the generated account's varied requests)
#   tracking       distinct signed impression links/s of one served ad (wrk)
#   events worker  impressions counted/s from the flood's start until the last is counted
#                  (the in-process worker drains what tracking queued)
# and the cold init of the serving, tracking and events-worker Lambdas in both profiles
# against the baseline (infra/lambda-bench). LTO builds: about half an hour on 2 cores.
#
#   ./scripts/profile-bench.sh                 # 10 s per wrk run, 8 connections
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-8}
LINKS=${LINKS:-20000}
command -v wrk > /dev/null || { apt-get install -y -q wrk > /dev/null || { echo "wrk is needed (apt-get install wrk)"; exit 1; }; }
T=${CARGO_TARGET_DIR:-target}
for p in release release-speed; do
  cargo build --profile "$p" -q -p local -p admin
  cargo build --profile "$p" -q -p functions --bin serving --bin tracking --bin events-worker
  mkdir -p "$T/profiles/$p"
  for b in local-server admin serving tracking events-worker; do cp "$T/$p/$b" "$T/profiles/$p/$b"; done
done
cargo build --release -q -p lambda-bench -p lambda-baseline
. scripts/load/impression-links.sh
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
KEY=alpha-demo-key-7f3c9a1e5b2d4680
# A player's requests: a script's user agent is invalid traffic, never counted.
UA="Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
measure() { # profile
  local BIN=$T/profiles/$1 DATA PORT BASE SERVER
  DATA=$(mktemp -d); PORT=$(port); BASE="http://127.0.0.1:$PORT"
  start() {
    ACCOUNT_RATE_PER_SEC=0 DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN/local-server" > "$DATA/server.log" 2>&1 &
    SERVER=$!
    for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && return; sleep 0.1; done
    echo "the server did not start"; cat "$DATA/server.log"; exit 1
  }
  # The demo accounts (the first start seeds them), then a generated account's records.
  start; kill $SERVER; wait $SERVER 2>/dev/null || true
  DATA_DIR="$DATA" "$BIN/admin" seed-synthetic demo-alpha 1000 5000 > /dev/null
  start
  # Serving.
  local S; S=$(ACCOUNT=demo-alpha wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s scripts/load/adrequest.lua "$BASE" | grep RESULT)
  # Tracking: distinct impression links of one served ad (the ad forced, each request its own impression id).
  impression_links "$BASE" "$LINKS" "$DATA/links.lua" "$UA"
  local COUNT0 START TR
  COUNT0=$(curl -sf -H "x-o-api-key: $KEY" "$BASE/v3/ads/$AD?embed=metrics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"].get("impression", 0))')
  START=$(date +%s.%N)
  TR=$(wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$DATA/links.lua" "$BASE" | grep RESULT)
  # Events: every distinct link counted once.
  local WANT=$((COUNT0 + $(grep -c '^"' "$DATA/links.lua"))) GOT=0
  for _ in $(seq 1 600); do
    GOT=$(curl -sf -H "x-o-api-key: $KEY" "$BASE/v3/ads/$AD?embed=metrics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"].get("impression", 0))')
    [ "$GOT" -ge "$WANT" ] && break; sleep 0.2
  done
  local EV; EV=$(python3 -c "import time; print(f'{($GOT - $COUNT0) / (time.time() - $START):.0f}')")
  kill $SERVER; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"
  echo "| $1 | $(echo "$S" | sed -E 's/.*rate_per_s=([0-9]+).*p50_ms=([0-9.]+) p90_ms=[0-9.]+ p99_ms=([0-9.]+).*/\1 (p50 \2, p99 \3 ms)/') | $(echo "$TR" | sed -E 's/.*rate_per_s=([0-9]+).*p50_ms=([0-9.]+) p99_ms=([0-9.]+).*/\1 (p50 \2, p99 \3 ms)/') | $EV ($((GOT - COUNT0)) counted) |"
}
echo "| profile | serving: ad requests/s | tracking: impression links/s | events worker: impressions counted/s |"
echo "|---|---|---|---|"
measure release
measure release-speed
echo
args=(lambda-baseline-calls="$T/release/lambda-baseline-calls")
for p in release release-speed; do for b in serving tracking events-worker; do args+=("$p.$b=$T/profiles/$p/$b"); done; done
"$T/release/lambda-bench" --runs "${RUNS:-15}" --baseline "$T/release/lambda-baseline" "${args[@]}"
