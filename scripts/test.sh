#!/usr/bin/env bash
# Runs every test: unit tests, the store contract and the HTTP tests on the embedded store
# and on the moto emulator (DynamoDB wire protocol), plus the gates: cargo fmt --check,
# cargo clippy -D warnings (run beside the tests), cfn-lint and `sam validate --lint` on template.yaml, the LocalStack
# init verified on moto; then schemathesis against the local server's OpenAPI document
# (scripts/schemathesis.sh) and each fuzz target for a bounded time (scripts/fuzz.sh,
# cargo-fuzz with the nightly compiler).
# Installs what it needs (ffmpeg and chromium from Debian, a venv with moto and cfn-lint, the npm
# player clients and puppeteer-core), starts moto on a free loopback
# port, and stops it on exit, also when tests fail.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"
mkdir -p target
RUN_START=$(date +%s)
# Each step's line says when it started (seconds into the run) and the disk space left, so
# the log shows where the time and the space go.
phase() { echo "== [$(( $(date +%s) - RUN_START )) s, $(df -Pm . | awk 'NR==2 {print $4}') MB free] $*"; }
# A clean build gains nothing from incremental compilation, and its caches took 1.6 GB of a
# CI disk (the tests', clippy's): off.
export CARGO_INCREMENTAL=0
# What the work tree looks like now: the run must leave it so (checked at the end).
TREE_BEFORE=$(git status --porcelain 2>/dev/null || true)
# Every process the run starts carries this mark in its environment; at the end none may be
# left (scripts/leftovers.py), whatever parent it was reparented to.
export TEST_RUN_MARK="test-run-$$-$RUN_START"

# The two Python venvs (moto and cfn-lint; the SAM CLI) install in the background while the
# gates and the test build run: they wait on the network and pip, the build on the CPU
# (about a minute of the run saved); the run waits for them before it uses either.
SAM_VENV="$ROOT/.venv-sam"
install_venvs() {
  if [ ! -x "$VENV/bin/moto_server" ] || [ ! -x "$VENV/bin/cfn-lint" ]; then
    echo "installing moto[server] and cfn-lint into .venv"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check 'moto[server]>=5.1,<6' 'cfn-lint>=1,<2'
  fi
  if [ ! -x "$SAM_VENV/bin/sam" ]; then
    echo "installing aws-sam-cli into .venv-sam"
    python3 -m venv "$SAM_VENV"
    "$SAM_VENV/bin/pip" install --quiet --disable-pip-version-check 'aws-sam-cli>=1.100,<2'
  fi
}
phase "the Python venvs (moto, cfn-lint; the SAM CLI), installed in the background"
# A session of its own, so that a run that stops early stops pip too.
VENV="$VENV" SAM_VENV="$SAM_VENV" setsid bash -c "set -euo pipefail; $(declare -f install_venvs); install_venvs" > target/venvs.log 2>&1 &
VENVS=$!
trap 'kill -- "-$VENVS" 2>/dev/null || true' EXIT

# Debian packages the tests run: ffmpeg/ffprobe (the media pipeline; every test clip is
# made by ffmpeg), Chromium (the browser test), rsvg-convert (renders the charts to PNG),
# Node.js and npm (the player-side clients), xmllint (served documents against the IAB's
# VAST schemas).
missing=()
command -v ffmpeg > /dev/null && command -v ffprobe > /dev/null || missing+=(ffmpeg)
command -v chromium > /dev/null || missing+=(chromium)
command -v rsvg-convert > /dev/null || missing+=(librsvg2-bin)
command -v node > /dev/null || missing+=(nodejs)
command -v npm > /dev/null || missing+=(npm)
command -v xmllint > /dev/null || missing+=(libxml2-utils)
if [ ${#missing[@]} -gt 0 ]; then
  phase "apt-get install ${missing[*]}"
  apt-get update -q > /dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" > /dev/null
fi
# The player-side VAST/VMAP clients the serving tests parse documents with (tests/player.rs)
# and puppeteer-core, which drives Chromium in the browser tests (tests/api/player_browser.rs,
# tests/api/console_browser.rs), with axe-core checking every console page.
if [ ! -d tests/node/node_modules/@dailymotion/vast-client ] || [ ! -d tests/node/node_modules/puppeteer-core ] || [ ! -d tests/node/node_modules/axe-core ]; then
  phase "npm ci in tests/node (@dailymotion/vast-client, @dailymotion/vmap, @xmldom/xmldom, puppeteer-core, axe-core)"
  (cd tests/node && npm ci --no-audit --no-fund --loglevel=error)
fi

phase "cargo fmt --check"
cargo fmt --all --check

phase "module import cycles (scripts/module-cycles.py)"
python3 scripts/module-cycles.py

phase "the paths and names docs/architecture.md gives exist (scripts/doc-paths.py)"
python3 scripts/doc-paths.py

START=$(date +%s)
# The test binaries are built first and then run without cargo, so that cargo's build lock is
# free for two jobs that run beside them at the lowest CPU priority: clippy (on this target
# directory) and the fuzz targets' build (fuzz/target). An HTTP test mostly waits (on moto, a
# worker, a bidder stub), so they use the CPU the tests leave idle; a failure of either fails
# the run once the tests are done (docs/testing.md, "Time budget").
phase "cargo test --no-run (the test binaries) and the local server for schemathesis"
cargo test --workspace --locked --no-run --message-format=json-render-diagnostics > target/test-build.json
cargo build --locked --quiet -p local
export LOCAL_SERVER_BUILT=1
phase "waiting for the Python venvs"
VENVS_RC=0
wait "$VENVS" || VENVS_RC=$?
cat target/venvs.log
[ "$VENVS_RC" -eq 0 ] || { phase "installing the Python venvs failed"; exit 1; }
phase "cfn-lint template.yaml"
"$VENV/bin/cfn-lint" template.yaml
echo "cfn-lint: template.yaml clean"

# sam validate --lint, offline (the SAM transform runs locally; dummy credentials).
phase "sam validate --lint"
SAM_CLI_TELEMETRY=0 AWS_REGION=eu-west-1 AWS_DEFAULT_REGION=eu-west-1 AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test \
  "$SAM_VENV/bin/sam" validate --lint

PORT=$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# moto through a launcher that serialises its DynamoDB backend (see scripts/moto_server.py)
"$VENV/bin/python" scripts/moto_server.py -H 127.0.0.1 -p "$PORT" > target/moto.log 2>&1 &
MOTO_PID=$!
# Stop moto on exit: SIGTERM, then SIGKILL after 5 s (a busy moto can ignore SIGTERM).
stop_moto() {
  kill "$MOTO_PID" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$MOTO_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$MOTO_PID" 2>/dev/null || true
  wait "$MOTO_PID" 2>/dev/null || true
}
# The jobs that run beside the tests (below) stop with the run.
BESIDE=""
stop_all() {
  [ -z "$BESIDE" ] || kill -- "-$BESIDE" 2>/dev/null || true
  stop_moto
}
trap stop_all EXIT
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$PORT/moto-api/" > /dev/null 2>&1; then break; fi
  sleep 0.1
done
curl -sf "http://127.0.0.1:$PORT/moto-api/" > /dev/null || { echo "moto did not start"; cat target/moto.log; exit 1; }
phase "moto server on 127.0.0.1:$PORT"
# The LocalStack init (the stack's resources from template.yaml), run and verified on moto.
AWS_ENDPOINT_URL="http://127.0.0.1:$PORT" AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=eu-west-1 STACK_NAME=init-check \
  "$VENV/bin/python" scripts/localstack_init.py --verify | tail -1

export AWS_ENDPOINT_URL="http://127.0.0.1:$PORT"
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
export TEST_TABLE_NAME="adserver-test"

mapfile -t TEST_BINARIES < <(python3 scripts/test_binaries.py target/test-build.json)
phase "beside the tests, at the lowest priority: cargo clippy --workspace --all-targets -- -D warnings, then the fuzz build"
rm -f target/clippy.rc target/fuzz-build.rc
# A session of its own, so that a run that ends early stops the whole job (stop_all).
setsid bash -c '
  nice -n 19 cargo clippy --workspace --all-targets --locked -- -D warnings > target/clippy.log 2>&1
  echo $? > target/clippy.rc
  FUZZ_BUILD_ONLY=1 nice -n 19 ./scripts/fuzz.sh > target/fuzz-build.log 2>&1
  echo $? > target/fuzz-build.rc
' &
BESIDE=$!
rm -f target/test-output.log
set +e
# Four tests at a time on 2 cores: most of an HTTP test's time is waiting, so 4 threads
# take 274 s for the HTTP suite where 2 took 349 s; 8 took no less (279 s). Override with
# TEST_THREADS. Each binary runs in its package's directory, as `cargo test` runs it.
STATUS=0
for entry in "${TEST_BINARIES[@]}"; do
  dir=${entry%%$'\t'*}
  exe=${entry#*$'\t'}
  echo "     Running $exe" | tee -a target/test-output.log
  (cd "$dir" && RUST_TEST_THREADS=${TEST_THREADS:-4} "$exe") 2>&1 | tee -a target/test-output.log
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || STATUS=$rc
done
set -e
END=$(date +%s)

emb=$(grep -cE '::embedded \.\.\. ok$' target/test-output.log || true)
dyn=$(grep -cE '::dynamodb \.\.\. ok$' target/test-output.log || true)
emb_f=$(grep -cE '::embedded \.\.\. FAILED$' target/test-output.log || true)
dyn_f=$(grep -cE '::dynamodb \.\.\. FAILED$' target/test-output.log || true)
once=$(grep -cE '::store_independent \.\.\. ok$' target/test-output.log || true)
phase "per store: embedded ${emb} passed, ${emb_f} failed; dynamodb (moto) ${dyn} passed, ${dyn_f} failed; store-independent (run once) ${once} passed"
phase "cargo test took $((END - START)) s"
[ "$STATUS" -eq 0 ] || exit "$STATUS"

# The OpenAPI contract from outside: schemathesis against the local server (scripts/schemathesis.sh),
# on the embedded store and on DynamoDB, S3 and SQS (moto, eu-west-1), the two side by side (each
# mostly waits on its server). 10 examples per operation on the embedded store (the script's
# default is 30), 5 on moto (the wire path; the generated inputs are the embedded run's too): the
# test command stays within CI's time budget (docs/testing.md); `EXAMPLES=100
# ./scripts/schemathesis.sh` for a deeper run.
phase "schemathesis against the local server's /openapi.json: embedded store and moto, side by side"
ST_INSTALL_ONLY=1 ./scripts/schemathesis.sh
free_port() { "$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
EXAMPLES=${EXAMPLES:-10} ST_PORT=$(free_port) ./scripts/schemathesis.sh > target/schemathesis-embedded.log 2>&1 &
ST_EMBEDDED=$!
EXAMPLES=${EXAMPLES_MOTO:-5} ST_PORT=$(free_port) ST_STORE=dynamodb AWS_REGION=eu-west-1 ./scripts/schemathesis.sh > target/schemathesis-moto.log 2>&1 &
ST_MOTO=$!
ST_RC=0
wait "$ST_EMBEDDED" || ST_RC=1
echo "--- schemathesis, embedded store"; cat target/schemathesis-embedded.log
wait "$ST_MOTO" || ST_RC=1
echo "--- schemathesis, DynamoDB, S3 and SQS (moto)"; cat target/schemathesis-moto.log
[ "$ST_RC" -eq 0 ] || { phase "schemathesis failed"; exit 1; }

# What ran beside: clippy's verdict, the fuzz build, and the doc tests (cargo's lock is free now).
phase "waiting for clippy and the fuzz build"
wait "$BESIDE" || true
grep -v '^\s*\(Checking\|Compiling\|Blocking\)' target/clippy.log || true
[ "$(cat target/clippy.rc 2>/dev/null)" = 0 ] || { phase "cargo clippy failed"; exit 1; }
phase "cargo clippy --workspace --all-targets -- -D warnings: clean"
[ "$(cat target/fuzz-build.rc 2>/dev/null)" = 0 ] || { cat target/fuzz-build.log; phase "the fuzz build failed"; exit 1; }
cargo test --workspace --locked --doc --quiet

# The README's and the operations guide's blocks, pasted in order against a fresh local
# server, as a new user would (scripts/check-docs.sh), beside the bench scripts' smoke runs
# and the fuzz targets: the blocks mostly wait on their server, so the three share the run's
# last minutes instead of following one another.
phase "the README's and the operations guide's blocks (scripts/check-docs.sh), beside the bench smoke runs and the fuzz targets"
LOCAL_SERVER_BUILT=1 ./scripts/check-docs.sh > target/check-docs.log 2>&1 &
DOCS=$!

# The bench scripts, each run as written for a second on the debug build (scripts/bench-smoke.sh).
phase "the bench scripts' smoke runs (scripts/bench-smoke.sh)"
./scripts/bench-smoke.sh

# The fuzz targets, each for a bounded time on the committed corpus (scripts/fuzz.sh; built above).
phase "fuzzing (each target ${FUZZ_SECONDS:-10} s)"
FUZZ_SECONDS=${FUZZ_SECONDS:-10} ./scripts/fuzz.sh

DOCS_RC=0
wait "$DOCS" || DOCS_RC=$?
echo "--- scripts/check-docs.sh"; cat target/check-docs.log
[ "$DOCS_RC" -eq 0 ] || { phase "the README's or the operations guide's blocks failed"; exit 1; }

# The run leaves no process behind: moto and the jobs beside are stopped, then every process
# that carries this run's mark is one it left running (a server a script forgot).
stop_all
trap - EXIT
phase "processes left behind by the run (scripts/leftovers.py)"
python3 scripts/leftovers.py "$TEST_RUN_MARK" $$

# The run leaves the work tree as it found it: caches, lock files and crash records stay out.
TREE_AFTER=$(git status --porcelain 2>/dev/null || true)
if [ "$TREE_BEFORE" != "$TREE_AFTER" ]; then
  phase "the test run changed the work tree:"
  diff <(echo "$TREE_BEFORE") <(echo "$TREE_AFTER") || true
  exit 1
fi
phase "the work tree is as the run found it; the whole test command took $(( $(date +%s) - RUN_START )) s"
