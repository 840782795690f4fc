#!/usr/bin/env bash
# Builds every Lambda for provided.al2023 (x86_64) with cargo-lambda (from PyPI, with zig),
# into target/lambda/<function>/bootstrap, where template.yaml's CodeUri points.
# Then: sam deploy --guided (needs an AWS account).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$(pwd)/.venv"
if [ ! -x "$VENV/bin/cargo-lambda" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda>=1,<2'
fi
export PATH="$VENV/bin:$PATH"
FUNCTIONS=(clients contacts campaigns goals assets asset-worker asset-janitor ads insertion-policy queries reference audience audience-worker targeting-template)
args=()
for f in "${FUNCTIONS[@]}"; do args+=(-p "$f"); done
cargo lambda build --release --x86-64 "${args[@]}"
for f in "${FUNCTIONS[@]}"; do
  ls -l "target/lambda/$f/bootstrap"
done
