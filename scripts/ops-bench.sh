#!/usr/bin/env bash
# Ad operations' figures (docs/operations-guide.md), on the local server (bench
# profile): a bulk edit of 50 goals in one campaign (priority and enabled: 100 writes, the
# transaction's most) and of 49 goals' end dates (98 writes + the campaign's flight), 20
# times each, p50/p99; and what change history costs: the size of the change items and
# their DynamoDB write units. STORE=embedded (default) or STORE=dynamodb with moto
# (AWS_ENDPOINT_URL set, as scripts/test.sh does).
#
#   ./scripts/ops-bench.sh
#   AWS_ENDPOINT_URL=http://127.0.0.1:4599 STORE=dynamodb ./scripts/ops-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${STORE:-embedded}
. scripts/bench-build.sh
bench_build -p local
BIN=$BIN_DIR
DATA=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BASE="http://127.0.0.1:$PORT"
trap 'kill ${SERVER:-} 2>/dev/null || true; rm -rf "$DATA"' EXIT
extra=()
if [ "$STORE" = dynamodb ]; then extra=(CREATE_TABLE=1 TABLE_NAME="ops-bench-$RANDOM" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1); fi
env ${extra[@]+"${extra[@]}"} STORE="$STORE" DATA_DIR="$DATA" PORT="$PORT" RUST_LOG=warn "$BIN/local-server" > "$DATA/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 300); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v0/categories")" = "401" ] && break; sleep 0.1; done
BASE="$BASE" python3 - <<'PY'
import json, os, statistics, time, urllib.request
B = os.environ["BASE"]; K = {"x-o-api-key": "alpha-demo-key-7f3c9a1e5b2d4680"}
def req(method, path, body=None, ctype="application/json"):
    data = body.encode() if isinstance(body, str) else (json.dumps(body).encode() if body is not None else None)
    r = urllib.request.Request(B + path, data=data, method=method, headers={**K, **({"Content-Type": ctype} if data else {})})
    with urllib.request.urlopen(r) as res:
        return res.read().decode()
X = "application/xml"
adv = req("POST", "/api/1.0/client", "<clientBean><name>Bench</name><type>ADVERTISER</type></clientBean>", X)
c = req("POST", "/api/1.0/campaign", f"<campaignBean><name>Bench</name><advertiserId>{adv}</advertiserId></campaignBean>", X)
goals = [req("POST", "/api/1.0.cpvext/goal", f"<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant>"
             f"<goalValue>20000</goalValue><start>2030-01-01T00:00:00Z</start><end>2030-03-31T00:00:00Z</end><name>G{i}</name></goalBean>", X) for i in range(50)]
def bench(name, ids, sets):
    times = []
    for s in sets:
        t = time.perf_counter(); req("POST", "/v1/goals/bulk", {"ids": ids, "set": s}); times.append((time.perf_counter() - t) * 1000)
    times.sort()
    print(f"{name}: p50 {statistics.median(times):.1f} ms, p99 {times[int(len(times) * 0.99) - 1]:.1f} ms ({len(times)} requests)")
bench("bulk edit, 50 goals (priority, enabled; 100 writes)", goals, [{"priority": 1 + i % 10, "enabled": i % 2 == 0} for i in range(20)])
bench("bulk edit, 49 goals' end dates (98 writes + the campaign)", goals[:49], [{"end": f"2030-04-{1 + i:02d}T00:00:00Z"} for i in range(20)])
ch = json.loads(req("GET", "/v1/changes?kind=goal&limit=200"))["changes"]
upd = [len(json.dumps(x, separators=(",", ":"))) for x in ch if x["operation"] == "UPDATE"]
cre = [len(json.dumps(x, separators=(",", ":"))) for x in json.loads(req("GET", f"/v1/changes?recordId={goals[0]}&limit=200"))["changes"] if x["operation"] == "CREATE"]
keys = 200  # pk, sk, GSI1 keys, version and TTL attributes (upper bound)
u = statistics.median(upd) + keys
print(f"change item of a goal UPDATE: median {u:.0f} bytes ({len(upd)} seen) -> 2 write units in the transaction + 1 for its index entry = 3 WCU")
if cre:
    print(f"change item of a goal CREATE: median {statistics.median(cre) + keys:.0f} bytes -> 3 WCU")
print("a single-record write that was a PutItem (1 WCU per KB) is now a 2-item transaction: the record's own write costs 2 WCU per KB")
PY
