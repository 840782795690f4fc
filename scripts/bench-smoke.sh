#!/usr/bin/env bash
# The bench scripts' smoke runs, in the test command: each script as written, with SMOKE=1
# (scripts/bench-build.sh: the debug binaries, one-second wrk runs, fewer records), must
# end well and print its figures. A script that no longer runs as pasted (a renamed
# parameter, a changed answer) fails here, not on the day someone measures. Their figures
# are not measurements: run the scripts without SMOKE for those (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
export SMOKE=1
command -v wrk > /dev/null || apt-get install -y -q wrk > /dev/null
check() { # name, the pattern its output must hold, the command
  local name=$1 want=$2; shift 2
  local out start=$(date +%s)
  if ! out=$("$@" 2>&1); then
    echo "$out" | tail -30
    echo "bench smoke: $name failed"
    exit 1
  fi
  echo "$out" | grep -qE "$want" || { echo "$out" | tail -30; echo "bench smoke: $name printed no \"$want\""; exit 1; }
  echo "bench smoke: $name ran as written ($(( $(date +%s) - start )) s)"
}
check auction-bench "auction's own overhead" ./scripts/auction-bench.sh
check serve-vs-axum "ratio|RESULT" env GOALS=50 ADS=200 ./scripts/serve-vs-axum.sh
check serve-load "RESULT|Requests/sec" env GOALS=50 ADS=200 ./scripts/serve-load.sh
check load "RESULT|Requests/sec" ./scripts/load.sh
check ops-bench "bulk edit, 50 goals" ./scripts/ops-bench.sh
check group-commit-bench "impressions counted of" ./scripts/group-commit-bench.sh
