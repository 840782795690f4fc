#!/usr/bin/env bash
# The OpenAPI contract, checked from outside: starts the local server on
# a fresh embedded store, reads its /openapi.json, and runs schemathesis (PyPI, in
# .venv-st) against every operation, JSON and XML, with these checks: no 5xx, every status
# code, content type, header and JSON body as the document says.
#   pass 1: the GET operations with the ids of records made first through the API (a
#           client, campaign, goal, ad, asset, policy, template, batch, finished forecast
#           jobs), so the 200 bodies are checked against their schemas;
#   pass 2: every operation, generated inputs (random ids: mostly the 404 and 400 paths).
#   ./scripts/schemathesis.sh            (EXAMPLES=n per operation, default 30; SEED=n)
# On DynamoDB, S3 and SQS instead (moto or LocalStack; the table and queues are created):
#   ST_STORE=dynamodb AWS_ENDPOINT_URL=http://127.0.0.1:5599 AWS_REGION=eu-west-1 \
#     AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test ./scripts/schemathesis.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv-st"
if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "== installing schemathesis into .venv-st"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'schemathesis>=4.3,<5'
fi
# ST_INSTALL_ONLY=1: only the install (the test command installs once, then runs two at once).
[ -z "${ST_INSTALL_ONLY:-}" ] || exit 0
# The test command builds it first (LOCAL_SERVER_BUILT=1), while clippy holds cargo's lock.
[ -n "${LOCAL_SERVER_BUILT:-}" ] || cargo build --quiet -p local
PORT=${ST_PORT:-3997}
BASE="http://127.0.0.1:$PORT"
KEY=alpha-demo-key-7f3c9a1e5b2d4680
DATA=$(mktemp -d)
WORK=$(mktemp -d)
if [ "${ST_STORE:-embedded}" = dynamodb ]; then
  # A throwaway table, bucket and queues on the emulator the environment names.
  export STORE=dynamodb CREATE_TABLE=1 SEED_DEMO=1 TABLE_NAME="st-$$" BUCKET_NAME="st-$$" QUEUE_PREFIX="st-$$"
else
  export STORE=embedded
fi
ACCOUNT_RATE_PER_SEC=0 PORT=$PORT DATA_DIR="$DATA" "${CARGO_TARGET_DIR:-$ROOT/target}/debug/local-server" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$DATA" "$WORK"' EXIT
for _ in $(seq 1 100); do curl -sf "$BASE/openapi.json" -o "$WORK/openapi.json" && break; sleep 0.1; done
[ -s "$WORK/openapi.json" ] || { cat "$WORK/server.log"; echo "the local server did not start"; exit 1; }
# The document itself against the OpenAPI 3.1 schema (openapi-spec-validator comes with moto in .venv).
if [ -x "$ROOT/.venv/bin/openapi-spec-validator" ]; then
  "$ROOT/.venv/bin/openapi-spec-validator" "$WORK/openapi.json" | sed 's|^.*: OK$|openapi-spec-validator: the document is valid OpenAPI 3.1|'
fi

H=(-H "x-o-api-key: $KEY")
xml() { curl -sf "${H[@]}" -H 'content-type: application/xml' -X "$1" --data-binary "$3" "$BASE$2"; }
jsn() { curl -sf "${H[@]}" -H 'content-type: application/json' -X "$1" --data-binary "$3" "$BASE$2"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
client=$(xml POST /api/1.0/client '<clientBean><name>Acme Foods</name><type>ADVERTISER</type></clientBean>')
contact=$(xml POST /api/1.0/contact '<contactBean><firstName>Ann</firstName><lastName>Lind</lastName></contactBean>')
campaign=$(xml POST /api/1.0/campaign "<campaignBean><name>Spring</name><advertiserId>$client</advertiserId><enabled>true</enabled></campaignBean>")
goal=$(xml POST /api/1.0.cpvext/goal "<goalBean><campaignId>$campaign</campaignId><name>Pre-rolls</name><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>1000</goalValue><start>2026-01-01T00:00:00Z</start><end>2030-01-01T00:00:00Z</end></goalBean>")
ad=$(jsn POST /v1/ads "{\"name\":\"Spot\",\"goalId\":\"$goal\",\"creative\":{\"type\":\"spotPlaceholder\",\"insertionPoint\":\"preroll\"}}" | field "['id']")
asset=$(curl -sf "${H[@]}" -H 'content-type: application/octet-stream' --data-binary 'not really a video' -D - -o /dev/null "$BASE/v1/assets/video?name=spot.mp4" | tr -d '\r' | sed -n 's|^[Ll]ocation: .*/||p')
policy=$(jsn POST /v1/insertion-policy '{"name":"Default"}' | field "['id']")
template=$(jsn POST /api/2.0/targeting-template '{"name":"Sports fans"}' | field "['id']")
stitcher=$(jsn POST /v1/stitchers '{"name":"MediaTailor","sourceCidrs":["192.0.2.0/24"]}' | field "['id']")
# A public address literal: no DNS needed, and nothing is ever asked of it here.
partner=$(jsn POST /v1/demand-partners '{"name":"Acme DSP","endpoint":"https://93.184.215.14/openrtb2","timeoutMs":100}' | field "['id']")
market=$(jsn POST /v1/marketplaces "{\"name\":\"Open\",\"demandPartnerIds\":[\"$partner\"],\"auctionType\":\"SECOND_PRICE\",\"floorCpm\":1}" | field "['id']")
user=$(jsn POST /v1/users '{"email":"ann@example.com","name":"Ann Lee","role":"TRAFFICKER","password":"correct horse battery"}' | field "['id']")
batch=$(curl -sf "${H[@]}" -H 'content-type: text/csv' --data-binary $'viewer-1|age=18-24\n' "$BASE/v1/audience/batch?providerId=demo-alpha-ap-dmp" | field "['batchId']")
job() { curl -sf "${H[@]}" -H 'content-type: application/json' --data-binary "$2" -D - -o /dev/null "$BASE/api/2.0/forecast/$1" | tr -d '\r' | sed -n 's|^[Ll]ocation: .*/||p'; }
start=$(date -u -d '+2 days' +%Y-%m-%dT00:00:00Z); end=$(date -u -d '+9 days' +%Y-%m-%dT00:00:00Z)
inventory=$(job inventory "{\"variant\":\"NORMAL\",\"startDate\":\"$start\",\"endDate\":\"$end\",\"trafficEstimate\":100000,\"targeting\":{}}")
forecast=$(job campaign "{\"campaign\":{\"name\":\"Plan\",\"goals\":[{\"name\":\"G\",\"startDate\":\"$start\",\"endDate\":\"$end\",\"variant\":\"NORMAL\",\"deliveryGoal\":{\"value\":1000,\"type\":\"IMPRESSION\"},\"ads\":[{\"name\":\"A\",\"format\":\"preroll_standard\",\"deviceContainers\":[\"demo-alpha-dc-desktop\"]}]}]}}")
for j in "$inventory" "$forecast"; do
  for _ in $(seq 1 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "${H[@]}" "$BASE/api/2.0/forecast/job/$j")" = 201 ] && break; sleep 0.2
  done
done
for v in client contact campaign goal ad asset policy template stitcher partner market user batch inventory forecast; do
  [ -n "${!v}" ] || { cat "$WORK/server.log" | tail -20; echo "could not create the $v"; exit 1; }
done

# Pass 2's ids, by operation.
{
  op() { printf '[[operations]]\ninclude-name = "GET %s"\nparameters = { %s }\n\n' "$1" "$2"; }
  op "/api/1.0/client/{seg}" "seg = \"by_client_id;id=$client\""
  op "/api/1.0/contact/{seg}" "seg = \"by_contact_id;id=$contact\""
  op "/api/1.0/campaign/{seg}" "seg = \"by_campaign_id;id=$campaign\""
  op "/api/1.0/campaign/notification/{seg}" "seg = \"by_campaign_id;id=$campaign\""
  op "/api/1.0/campaign/rules/{seg}" "seg = \"by_campaign_id;id=$campaign\""
  op "/api/1.0.cpvext/goal/{seg}" "seg = \"by_goal_id;id=$goal\""
  op "/api/1.0.cpvext/goal/rules/{seg}" "seg = \"by_goal_id;id=$goal\""
  op "/v1/ads/{id}" "id = \"$ad\""
  op "/v1/assets/video/{id}" "id = \"$asset\""
  op "/v1/insertion-policy/{id}" "id = \"$policy\""
  op "/api/2.0/targeting-template/{id}" "id = \"$template\""
  op "/v1/stitchers/{id}" "id = \"$stitcher\""
  op "/v1/demand-partners/{id}" "id = \"$partner\""
  op "/v1/marketplaces/{id}" "id = \"$market\""
  op "/v1/users/{id}" "id = \"$user\""
  op "/api/2.0/targeting-template/{id}/rules" "id = \"$template\""
  op "/v1/audience/batch/{id}" "id = \"$batch\""
  op "/v1/audience/provider/{id}" "id = \"demo-alpha-ap-dmp\""
  op "/v1/audience/provider/{id}/segmentations" "id = \"demo-alpha-ap-dmp\""
  op "/v3/campaigns/{id}" "id = \"$campaign\""
  op "/v3/goals/{id}" "id = \"$goal\""
  op "/v3/ads/{ad_id}" "ad_id = \"$ad\""
  op "/v3/ads/{ad_id}/vasturl/{kind}/{id}" "ad_id = \"$ad\", kind = \"category\", id = \"demo-alpha-cat-sports\""
  op "/v0/categories/{id}" "id = \"demo-alpha-cat-sports\""
  op "/v0/content-partners/{id}" "id = \"demo-alpha-cp-studio\""
  op "/v3/banner-areas/{id}" "id = \"demo-alpha-ba-728x90\""
  op "/v1/adrequest" "account = \"demo-alpha\""
  op "/api/2.0/forecast/job/{id}" "id = \"$inventory\""
  op "/api/2.0/forecast/report/{kind}/{id}" "kind = \"inventory\", id = \"$inventory\""
  op "/api/2.0/forecast/report/{kind}/{id}/chart.svg" "kind = \"campaign\", id = \"$forecast\""
} >"$WORK/ids.toml"

CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance
ARGS=(--url "$BASE" -H "x-o-api-key: $KEY" --checks "$CHECKS" -n "${EXAMPLES:-30}" --seed "${SEED:-1}"
  --generation-database none --no-color -w 2)
# Schemathesis keeps its cache (.schemathesis/) in the directory it runs in: the scratch
# directory, so a run leaves the work tree as it found it.
cd "$WORK"
# The GETs with real ids go first: pass 1's stateful phase deletes what the lists show.
echo "== schemathesis pass 1: the GET operations with the ids of records made through the API"
"$VENV/bin/schemathesis" --config-file "$WORK/ids.toml" run "$BASE/openapi.json" "${ARGS[@]}" --include-method GET \
  >"$WORK/pass1.txt" 2>&1 || { cat "$WORK/pass1.txt"; exit 1; }
echo "== schemathesis pass 2: every operation, generated inputs"
"$VENV/bin/schemathesis" run "$BASE/openapi.json" "${ARGS[@]}" >"$WORK/pass2.txt" 2>&1 || { cat "$WORK/pass2.txt"; exit 1; }
cd "$ROOT"
for p in pass1 pass2; do
  echo "$p: $(grep -E '^  (Selected|Tested):' "$WORK/$p.txt" | tr -s ' ' | tr '\n' ' ')$(grep -E 'generated,' "$WORK/$p.txt" | tr -s ' ')"
  grep -E '^  ⚠️' "$WORK/$p.txt" | sed "s/^/  $p /" || true
done
# What the ids did not reach (only the signed tracking links are expected here).
grep -A14 "^Missing test data" "$WORK/pass1.txt" || true
grep -q "5xx\|ST1" "$WORK/pass1.txt" "$WORK/pass2.txt" && { echo "schemathesis reported a failure"; exit 1; }
echo "schemathesis: no 5xx, every response as documented"
