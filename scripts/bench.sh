#!/usr/bin/env bash
# Runs the benchmarks: the /v3 query bench on the embedded store and, against moto (started
# here like in test.sh), the DynamoDB adapter's round trips.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$(pwd)/.venv"
if [ ! -x "$VENV/bin/moto_server" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'moto[server]>=5.1,<6' 'cfn-lint>=1,<2'
fi
mkdir -p target
PORT=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" scripts/moto_server.py -H 127.0.0.1 -p "$PORT" > target/moto-bench.log 2>&1 &
MOTO_PID=$!
trap 'kill "$MOTO_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/moto-api/" > /dev/null 2>&1 && break; sleep 0.1; done
export AWS_ENDPOINT_URL="http://127.0.0.1:$PORT" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
cargo bench -p api-tests --bench queries
cargo bench -p api-tests --bench audience
cargo bench -p api-tests --bench media
