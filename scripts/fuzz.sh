#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets) for a bounded time on top of the committed
# corpus (fuzz/corpus/<target>, read only here: new inputs go to a scratch directory), and
# fails on the first crash (a panic or a 5xx).
#
#   ./scripts/fuzz.sh              # each target 20 s (what the test command runs)
#   FUZZ_SECONDS=600 ./scripts/fuzz.sh xml_beans
#
# cargo-fuzz needs a nightly compiler for its instrumentation flags: `cargo +nightly` when
# rustup has one, else the stable compiler with RUSTC_BOOTSTRAP=1.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_EACH=${FUZZ_SECONDS:-20}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(xml_beans json_bodies matrix_paths audience_rows dates documents)
command -v cargo-fuzz > /dev/null || cargo install cargo-fuzz --locked --quiet
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  FUZZ=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  FUZZ=(cargo fuzz)
fi
# The committed lock file is the one built (as `--locked`): a stale one fails here instead
# of being rewritten in the work tree.
cargo metadata --locked --format-version 1 > /dev/null
# The same flags for the build and the runs (different ones would rebuild): no sanitizer,
# the release profile (fuzz/Cargo.toml: opt-level 1), 16 codegen units.
FLAGS=(-s none -O --codegen-units 16)
"${FUZZ[@]}" build "${FLAGS[@]}"
# FUZZ_BUILD_ONLY=1: the build alone (the test command runs it beside the tests).
[ -z "${FUZZ_BUILD_ONLY:-}" ] || exit 0
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
# Two targets at a time (one a core): each run is a process of its own on its own scratch corpus.
run_one() {
  local t=$1
  mkdir -p "$SCRATCH/$t"
  "${FUZZ[@]}" run "${FLAGS[@]}" "$t" "$SCRATCH/$t" "corpus/$t" -- -max_total_time="$SECONDS_EACH" -print_final_stats=1 > "$SCRATCH/$t.log" 2>&1
  echo $? > "$SCRATCH/$t.rc"
}
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-2}" ]; do wait -n || true; done
  run_one "$t" &
done
wait
for t in "${TARGETS[@]}"; do
  if [ "$(cat "$SCRATCH/$t.rc" 2>/dev/null)" != 0 ]; then
    tail -40 "$SCRATCH/$t.log"
    echo "== fuzz target $t FAILED (the crashing input is under fuzz/artifacts/$t)"
    exit 1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$SCRATCH/$t.log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz $t: $runs runs in ${SECONDS_EACH} s, corpus $(ls "corpus/$t" | wc -l) + $(ls "$SCRATCH/$t" | wc -l) new, no crash"
done
