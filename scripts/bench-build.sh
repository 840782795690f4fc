# Sourced by the bench scripts: builds what a script runs and sets BIN_DIR to where it is.
# One call a kind of target: cargo builds only the examples when `--example` is named, so a
# script that runs binaries and an example calls `bench_build` twice.
# A measurement builds the bench profile (optimised, no LTO; target/release). SMOKE=1 is
# the test command's smoke run of a script (scripts/bench-smoke.sh): the debug binaries
# the test command has built, runs of a second, fewer records; what it prints is no
# measurement, only proof the script runs as written.
bench_build() {
  if [ -n "${SMOKE:-}" ]; then
    cargo build -q "$@"
    BIN_DIR=${CARGO_TARGET_DIR:-target}/debug
  else
    cargo build --profile bench -q "$@"
    BIN_DIR=${CARGO_TARGET_DIR:-target}/release
  fi
}
if [ -n "${SMOKE:-}" ]; then
  DURATION=1
fi
