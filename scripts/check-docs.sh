#!/usr/bin/env bash
# Runs the README's and docs/operations-guide.md's shell blocks, in order, as a new user
# pastes them, against a fresh local server (embedded store) in a scratch directory: a
# block that fails, or a promise the blocks make that does not hold (an ad served, the
# RTB goal's impression counted), fails the run. The blocks that need what this machine
# has not (AWS, Docker, a second server on the emulator) are left out; a download from a
# remote URL is left out too (no network here).
#
# The local server is `target/debug/local-server` (LOCAL_SERVER_BUILT=1: the test command
# built it) on a free port; the stub bidders of the README come from `cargo run` as the
# README says. Usage: scripts/check-docs.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
[ -n "${LOCAL_SERVER_BUILT:-}" ] || cargo build --quiet -p local
cargo build --quiet -p api-tests --example stub_bidders
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
BIDDER_PORT=$(free_port)
WORK=$(mktemp -d)
SERVER=""
cleanup() {
  if [ -n "$SERVER" ]; then
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
  fi
  # `cargo run --example stub_bidders -- <port>` and the example it runs (`stub_bidders <port>`).
  pkill -f "stub_bidders (-- )?$BIDDER_PORT" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# `exec`: the subshell becomes the server, so $! is the server's own PID and the cleanup
# stops the server itself.
(cd "$WORK" && DEMAND_ALLOW_PRIVATE_URLS=1 RUST_LOG=warn PORT=$PORT DATA_DIR=.data \
  exec "${CARGO_TARGET_DIR:-$ROOT/target}/debug/local-server" > server.log 2>&1) &
SERVER=$!
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v0/categories")" = "401" ] && break
  sleep 0.1
done

# The blocks, in order: the README's, then the operations guide's.
python3 - "$ROOT" "$PORT" "$BIDDER_PORT" > "$WORK/blocks.sh" <<'PY'
import re, sys
root, port, bidder = sys.argv[1], sys.argv[2], sys.argv[3]
SKIP = ("cargo run -p local", "sam ", "docker", "moto_server", "./scripts/")
print("set -e")
print("fail() { echo \"check-docs: $*\"; exit 1; }")
# What a block promises, checked right after it (its variables set).
PROMISES = {
    'DOC=$(curl -s "${URL/': """echo "$DOC" | grep -q '<Ad ' || fail "the README's exported URL served no ad" """,
    'RTB=$(curl': """RTB_IMP=$(curl -s -H "$K" "$B/v3/goals/$RTB?embed=metrics" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"]["impression"])')
[ "$RTB_IMP" -ge 1 ] || fail "the RTB goal's impression was not counted ($RTB_IMP)" """,
}
print("cd \"$(dirname \"$0\")\"")
n = 0
for doc in ("README.md", "docs/operations-guide.md"):
    text = open(f"{root}/{doc}", encoding="utf-8").read()
    for m in re.finditer(r"```sh\n(.*?)```", text, re.S):
        block = m.group(1)
        if any(s in block for s in SKIP):
            continue
        n += 1
        line = text.count("\n", 0, m.start()) + 2
        lines = [l for l in block.splitlines() if '"downloadUri":"https://' not in l]
        body = "\n".join(lines).replace("127.0.0.1:3000", f"127.0.0.1:{port}").replace("-- 9100", f"-- {bidder}").replace("127.0.0.1:9100", f"127.0.0.1:{bidder}")
        body = body.replace("cargo run -q -p api-tests", f"cargo run -q --manifest-path {root}/Cargo.toml -p api-tests")
        print(f"echo '== {doc}:{line}'")
        print(body)
        for key, check in PROMISES.items():
            if key in body:
                print(check)
print(f"echo '== {n} blocks ran'")
PY

echo 'echo "check-docs: the blocks ran and their promises hold"' >> "$WORK/blocks.sh"
# The blocks run where a user pastes them, the repository's root: its tests/ (the guide's
# browser driver) is there; the server's data and the files the blocks make stay scratch.
ln -s "$ROOT/tests" "$WORK/tests"
if ! timeout 600 bash "$WORK/blocks.sh" > "$WORK/out.log" 2>&1; then
  tail -60 "$WORK/out.log"
  echo "--- server log"; tail -20 "$WORK/server.log"
  echo "check-docs: a block failed (above: its output; the last '==' line names it)"
  exit 1
fi
grep -E '^(== |check-docs)' "$WORK/out.log"
