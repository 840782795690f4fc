#!/usr/bin/env bash
# Times `sam build` of every function, cold, both ways the issue weighed:
#   makefile           template.yaml as committed: infra/sam/Makefile, one shared
#                      `cargo lambda build` of the workspace, a copy per function;
#   rust-cargolambda   the same template with BuildMethod rust-cargolambda (SAM's beta
#                      Rust builder: one cargo lambda build per function, CodeUri the
#                      functions package, BuildProperties.Binary the function's binary).
# Each starts from an empty target directory of its own (CARGO_TARGET_DIR), so neither
# reuses the other's or the tests' artefacts. Then the makefile build once more for the
# other architecture. Prints one line per build; takes an hour or more on 2 cores.
#   ./scripts/measure-sam-build.sh [makefile|cargolambda|x86_64 ...]   (default: all three)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SAM="$ROOT/.venv-sam/bin/sam"
if [ ! -x "$SAM" ]; then
  python3 -m venv "$ROOT/.venv-sam"
  "$ROOT/.venv-sam/bin/pip" install --quiet --disable-pip-version-check 'aws-sam-cli>=1.100,<2'
fi
if [ ! -x "$ROOT/.venv/bin/cargo-lambda" ]; then
  python3 -m venv "$ROOT/.venv"
  "$ROOT/.venv/bin/pip" install --quiet --disable-pip-version-check 'cargo-lambda>=1,<2'
fi
export PATH="$ROOT/.venv/bin:$PATH" SAM_CLI_TELEMETRY=0
rustup target list --installed | grep -q aarch64-unknown-linux-gnu || rustup target add aarch64-unknown-linux-gnu
OUT=${MEASURE_DIR:-/tmp/sam-build-measure}
mkdir -p "$OUT"

# The rust-cargolambda variant of template.yaml.
python3 - "$OUT/template-cargolambda.yaml" <<'PY'
import re, sys
s = open("template.yaml").read()
pkgs = dict(p.split("=") for p in re.findall(r"\w+Function=[a-z-]+", open("infra/sam/Makefile").read()))
s = s.replace("    CodeUri: infra/sam/\n", "")
def swap(m):
    return f"{m.group(1)}    Metadata: {{ BuildMethod: rust-cargolambda, BuildProperties: {{ Binary: {pkgs[m.group(2)]} }} }}\n    Properties:\n      CodeUri: {sys_root}/functions/\n"
sys_root = __import__("os").getcwd()
s = re.sub(r"(\n  (\w+Function):\n    Type: AWS::Serverless::Function\n)    Metadata: \{ BuildMethod: makefile, WorkingDirectory: \./ \}\n    Properties:\n", swap, s)
open(sys.argv[1], "w").write(s)
PY

run() { # name arch template [extra sam flags]
  local name=$1 arch=$2 template=$3; shift 3
  rm -rf "$OUT/target-$name" "$OUT/build-$name"
  local start=$(date +%s)
  if CARGO_TARGET_DIR="$OUT/target-$name" ARCH=$arch "$SAM" build --template-file "$template" \
      --build-dir "$OUT/build-$name" --parameter-overrides "Architecture=$arch" "$@" >"$OUT/$name.log" 2>&1; then
    local secs=$(( $(date +%s) - start ))
    local n=$(find "$OUT/build-$name" -name bootstrap | wc -l)
    local kind=$(file -b "$(find "$OUT/build-$name" -name bootstrap | head -1)" | cut -d, -f2)
    local size=$(du -cb $(find "$OUT/build-$name" -name bootstrap) | tail -1 | cut -f1)
    echo "$name ($arch): sam build ok in ${secs} s; $n bootstrap files,$kind, $((size / 1048576)) MiB together"
  else
    echo "$name ($arch): sam build FAILED after $(( $(date +%s) - start )) s (log: $OUT/$name.log)"; tail -20 "$OUT/$name.log"; return 1
  fi
}
WHAT=("$@"); [ ${#WHAT[@]} -gt 0 ] || WHAT=(makefile cargolambda x86_64)
for w in "${WHAT[@]}"; do
  case $w in
    makefile) run makefile arm64 template.yaml ;;
    cargolambda) run cargolambda arm64 "$OUT/template-cargolambda.yaml" --beta-features ;;
    x86_64) run x86_64 x86_64 template.yaml ;;
    *) echo "unknown: $w"; exit 2 ;;
  esac
done
