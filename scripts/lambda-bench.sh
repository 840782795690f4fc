#!/usr/bin/env bash
# Builds every Lambda (release profile: LTO, opt-level z, one codegen unit, stripped) and
# the baseline function, then times their cold starts under an emulated Lambda Runtime API
# (infra/lambda-bench): binary size, spawn → first /next, first invoke, peak RSS, each
# against infra/lambda-baseline run alternately; lambda-baseline-calls (the baseline plus the
# SDK operations our adapters send) is measured as the first row. RUNS=N sets the starts per function.
set -euo pipefail
cd "$(dirname "$0")/.."
HTTP=(clients contacts campaigns goals assets ads insertion-policy queries reference docs stitchers demand operations audience targeting-template forecast serving tracking)
WORKERS=(asset-worker audience-worker events-worker forecast-worker notices-worker asset-janitor compile-worker)
cargo build --release --locked -p functions -p lambda-baseline -p lambda-bench
# The floor: the baseline plus one call of each SDK operation the adapters send (built with
# the lambda-baseline package), measured like a function.
args=(lambda-baseline-calls=target/release/lambda-baseline-calls)
for f in "${HTTP[@]}" "${WORKERS[@]}"; do args+=("$f=target/release/$f"); done
exec target/release/lambda-bench --runs "${RUNS:-15}" --baseline target/release/lambda-baseline "${args[@]}"
