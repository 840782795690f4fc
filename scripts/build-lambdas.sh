#!/usr/bin/env bash
# Builds every Lambda for provided.al2023 with cargo-lambda (from PyPI, with zig), into
# target/lambda/<function>/bootstrap (or $CARGO_TARGET_DIR/lambda/...), from where
# infra/sam/Makefile copies each into sam build's artefacts. ARCH=arm64
# (default, as the template's Architecture parameter) or ARCH=x86_64; arm64 needs the
# aarch64-unknown-linux-gnu standard library (rustup target add, done here when missing).
# sam build runs it through infra/sam/Makefile; then sam deploy --guided (needs an AWS
# account), with the same Architecture.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="$(pwd)/.venv"
if [ ! -x "$VENV/bin/cargo-lambda" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda>=1,<2'
fi
export PATH="$VENV/bin:$PATH"
ARCH=${ARCH:-arm64}
case "$ARCH" in
  arm64) FLAG=--arm64; rustup target list --installed | grep -q aarch64-unknown-linux-gnu || rustup target add aarch64-unknown-linux-gnu ;;
  x86_64) FLAG=--x86-64 ;;
  *) echo "ARCH must be arm64 or x86_64"; exit 1 ;;
esac
# The functions: the LogicalId=binary table of infra/sam/Makefile (one list for both); each
# is a binary of the `functions` package (functions/src/bin/<name>.rs).
read -r -a FUNCTIONS <<< "$(grep -oE '[A-Za-z]+Function=[a-z-]+' infra/sam/Makefile | cut -d= -f2 | tr '\n' ' ')"
[ "${#FUNCTIONS[@]}" -gt 0 ] || { echo "no functions in infra/sam/Makefile"; exit 1; }
# Built for speed: the functions where a millisecond is billed most often (the
# release-speed profile, opt-level 3); every other one for size (the release profile,
# opt-level "z"). The choice and its measurement: docs/architecture.md, "Profiles".
SPEED=(serving tracking events-worker)
size=() speed=()
for f in "${FUNCTIONS[@]}"; do
  if [[ " ${SPEED[*]} " == *" $f "* ]]; then speed+=(--bin "$f"); else size+=(--bin "$f"); fi
done
cargo lambda build --release "$FLAG" -p functions "${size[@]}"
[ "${#speed[@]}" -eq 0 ] || cargo lambda build --profile release-speed "$FLAG" -p functions "${speed[@]}"
if [ -z "${QUIET:-}" ]; then
  for f in "${FUNCTIONS[@]}"; do ls -l "${CARGO_TARGET_DIR:-target}/lambda/$f/bootstrap"; done
fi
