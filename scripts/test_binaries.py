#!/usr/bin/env python3
"""The test binaries of a `cargo test --no-run --message-format=json` build, one a line as
`<package directory>\t<executable>` (scripts/test.sh runs each in its package's directory,
as cargo does)."""
import json
import os
import sys

seen = set()
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if not line.startswith("{"):
            continue
        m = json.loads(line)
        if m.get("reason") != "compiler-artifact" or not m.get("profile", {}).get("test") or not m.get("executable"):
            continue
        if m["executable"] in seen:
            continue
        seen.add(m["executable"])
        print(f"{os.path.dirname(m['manifest_path'])}\t{m['executable']}")
