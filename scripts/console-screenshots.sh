#!/usr/bin/env bash
# Refreshes the console's screenshots in docs/img/console/ (docs/console.md): runs the
# browser test of the console (tests/api/console_browser.rs, embedded store) with
# SCREENSHOTS set, so each page it checks is saved as a PNG as Chromium rendered it.
# Needs what the test command installs (Chromium, tests/node's npm packages).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d tests/node/node_modules/axe-core ] || (cd tests/node && npm ci --no-audit --no-fund --loglevel=error)
OUT="$(pwd)/docs/img/console"
mkdir -p "$OUT"
SCREENSHOTS="$OUT" cargo test -p api-tests --test api --quiet -- --exact console_browser::a_trafficker_s_day_in_the_console_in_chromium::embedded
ls -1 "$OUT"
