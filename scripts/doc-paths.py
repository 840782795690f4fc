#!/usr/bin/env python3
"""Every path and Rust name docs/architecture.md names exists (docs drift when code moves).

A `path` in backticks with a `/` or a file extension is looked for from the repository
root, `shared/` and each crate's `shared/<crate>/src`; a `a::b::name` (or `name()`) must be a word of
the Rust sources. Exit code 1 on the first run that finds one missing. Usage:
scripts/doc-paths.py [docs/architecture.md ...]
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
docs = sys.argv[1:] or [os.path.join(ROOT, "docs", "architecture.md")]

words = set()
for top in ("shared", "functions", "infra", "tests"):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        if "/target" in d:
            continue
        for f in files:
            if f.endswith(".rs"):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", fh.read()))

BASES = ["", "shared", "shared/domain/src", "shared/ports/src", "shared/app/src", "shared/web/src", "functions", "infra", "scripts", "docs"]
EXT = re.compile(r"\.(rs|md|toml|yaml|yml|sh|py|json)$")
missing = []
for doc in docs:
    text = open(doc, encoding="utf-8").read()
    for m in re.finditer(r"`([^`\n]+)`", text):
        tok = m.group(1).strip()
        line = text.count("\n", 0, m.start()) + 1
        if " " in tok or tok.startswith(("$", "-", "/", "http", "A#", "<")):
            continue
        if EXT.search(tok) or (re.fullmatch(r"[\w./<>*-]+/", tok) is not None):
            path = tok.rstrip("/")
            if "<" in path or "*" in path:
                continue
            if not any(os.path.exists(os.path.join(ROOT, b, path)) for b in BASES):
                missing.append(f"{os.path.relpath(doc, ROOT)}:{line}: no file {tok}")
        elif re.fullmatch(r"[a-z_][\w]*(::[A-Za-z_]\w*)+(\(\))?", tok):
            name = tok.rstrip("()").split("::")[-1]
            if name not in words:
                missing.append(f"{os.path.relpath(doc, ROOT)}:{line}: no Rust name {name} ({tok})")
for m in missing:
    print(m)
if missing:
    sys.exit(1)
print(f"doc-paths: every path and Rust name of {', '.join(os.path.relpath(d, ROOT) for d in docs)} exists")
