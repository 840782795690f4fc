#!/usr/bin/env python3
"""Import cycles between the modules of the crates of `shared/` (domain, ports, app, web).

Each crate re-exports the modules of the crates below it at its root, so `crate::model` names
the same module in every crate: the four source trees are read as one tree of modules. The
crates' dependency graph already refuses an import that goes up a crate (it does not
compile); this script holds the rules inside a crate, and the cycles.

For every file it reads the paths it names (`crate::a::b`, `super::c`, `self::d`, in `use`
lines and in code) and records an edge between the two *sibling* modules under their
nearest common parent (a child using its parent's items, or a parent declaring its
children, is not an edge). Then it reports every cycle among siblings; the exit code is 1
when there is one. It also holds the layers of docs/architecture.md: for each rule in
LAYERS, no module under a `from` top-level module may reach (through any chain of imports,
all modules counted, tests excluded) a module under a `to` one; each breach is printed with
its chain. And only the repositories, the store and the assembly code import the store port. Usage: scripts/module-cycles.py [src dir ...]
"""
import os
import re
import sys

CRATES = ("domain", "ports", "app", "web")
roots = sys.argv[1:] or [os.path.join(os.path.dirname(__file__), "..", "shared", c, "src") for c in CRATES]
roots = [os.path.normpath(r) for r in roots]

def module_of(path, root):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return tuple(rel)

modules = {}
for root in roots:
    for dirpath, _, files in os.walk(root):
        for f in files:
            # Tests in files of their own (`tests.rs`, `<module>_tests.rs`) may reach anywhere.
            if f.endswith(".rs") and f != "tests.rs" and not f.endswith("_tests.rs"):
                p = os.path.join(dirpath, f)
                if module_of(p, root) != ():
                    modules[module_of(p, root)] = p
known = set(modules)

def resolve(cur, path):
    """A path like crate::a::b or super::c, from module `cur`, to the longest known module."""
    parts = path.split("::")
    if parts[0] == "crate":
        base, rest = (), parts[1:]
    elif parts[0] in ("super", "self"):
        base = cur
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
        rest = parts
    else:
        return None
    best = base
    for i in range(1, len(rest) + 1):
        cand = base + tuple(rest[:i])
        if cand in known:
            best = cand
    return best

edges = {}
# Every import edge between two modules (not only siblings), for the layer rules.
all_edges = {}
path_re = re.compile(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")
group_re = re.compile(r"use\s+((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
for mod, p in modules.items():
    src = open(p, encoding="utf-8").read()
    src = re.split(r"#\[cfg\(test\)\]\s*mod tests", src)[0]  # tests may reach anywhere
    src = re.sub(r"//[^\n]*", "", src)
    targets = [m.group(1) for m in path_re.finditer(src)]
    for m in group_re.finditer(src):
        for item in re.split(r",", re.sub(r"\{[^}]*\}", "", m.group(2))):
            item = item.strip().split(" as ")[0].strip()
            if item and item != "self":
                targets.append(m.group(1) + "::" + item)
    for t in targets:
        dst = resolve(mod, t)
        if dst is None or dst == mod:
            continue
        if not (len(dst) < len(mod) and mod[: len(dst)] == dst):
            all_edges.setdefault(mod, set()).add(dst)
        # The two modules' branches under their nearest common parent.
        i = 0
        while i < min(len(mod), len(dst)) and mod[i] == dst[i]:
            i += 1
        if i == len(mod) or i == len(dst):
            continue  # parent and descendant
        a, b = mod[: i + 1], dst[: i + 1]
        edges.setdefault(a, set()).add(b)

# Cycles: strongly connected components with more than one module.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    stack.append(v)
    on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            strong(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(comp)

sys.setrecursionlimit(10000)
for v in list(edges):
    if v not in index:
        strong(v)

name = lambda m: "::".join(m) or "crate"
n_edges = sum(len(v) for v in edges.values())

# The layers (docs/architecture.md): (from, to, why). Transitive: a chain through any
# module counts, so `error.rs` importing the store would put the store under every rule.
LAYERS = [
    (("model", "delivery", "forecast", "domain_error", "limits"),
     ("store", "repo", "api", "error", "workers", "usecases", "blobs", "queue", "media"),
     "rules, the engine and the simulation know nothing of storage, HTTP or the use cases"),
    (("api",), ("workers",), "handlers reach the workers' work only through use cases and jobs/"),
    (("usecases", "caches", "repo", "jobs"), ("api", "workers"), "use cases and repositories sit below the entry points"),
    (("repo",), ("settings", "caches", "usecases"),
     "repositories load and commit records: the settings bound the caches and the use cases, which pass what a repository needs"),
    (("workers",), ("api",), "workers sit beside the API, not on it"),
    (("store", "blobs", "queue", "media", "rate_limit", "cause", "domain_error", "keys", "limits", "settings", "ids", "jobs"),
     ("api",), "below the API: AppError and HTTP live in api/ only (the layers' errors are mapped there once)"),
]
breaches = []
for froms, tos, why in LAYERS:
    for m in sorted(modules):
        if m[:1] and m[0] in froms:
            seen, parent, todo = {m}, {m: None}, [m]
            while todo:
                v = todo.pop()
                for w in all_edges.get(v, ()):
                    if w not in seen:
                        seen.add(w)
                        parent[w] = v
                        todo.append(w)
            for w in sorted(seen):
                if w[:1] and w[0] in tos:
                    chain, x = [], w
                    while x is not None:
                        chain.append(name(x))
                        x = parent[x]
                    breaches.append(f"layer: {name(m)} reaches {name(w)} ({why}): " + " -> ".join(reversed(chain)))
                    break
# The store port (docs/architecture.md): only the repositories, the store itself and the
# code that assembles a process (ports built from settings, the Lambda entry points, the
# admin's and the local server's seeding) name it; everything else reaches data through
# `repo/`; the serving caches (`caches/`) hold the store handle their background refreshes
# and the sample sink's batch writes use. Direct imports (a use case passing `st.store` to a repository does not name it).
# One adapter is built over the port: the local server's durable queue (`queue::durable`
# keeps its messages in the embedded store).
STORE_USERS = {"repo", "caches", "store", "assemble", "state", "lambda", "settings", "keys", "seed", "seed_plan"}
STORE_ADAPTERS = {("queue", "durable")}
for m in sorted(modules):
    if m[:1] and m[0] not in STORE_USERS and tuple(m[:2]) not in STORE_ADAPTERS:
        for w in sorted(all_edges.get(m, ())):
            if w[:1] == ("store",):
                breaches.append(f"store port: {name(m)} imports {name(w)} (only repo/, store/ and the assembly code do)")
# The console (docs/architecture.md, "The console") is an entry point over the use cases:
# none of its modules imports a repository or the store.
for m in sorted(modules):
    if tuple(m[:2]) == ("api", "console"):
        for w in sorted(all_edges.get(m, ())):
            if w[:1] in (("repo",), ("store",)):
                breaches.append(f"console: {name(m)} imports {name(w)} (the console reaches data through the use cases)")
for b in breaches:
    print(b)
if sccs:
    for c in sccs:
        inside = sorted(name(m) for m in c)
        print("import cycle among: " + ", ".join(inside))
        for a in c:
            for b in sorted(edges.get(a, ())):
                if b in c:
                    print(f"  {name(a)} -> {name(b)}")
    sys.exit(1)
if breaches:
    sys.exit(1)
print(f"module-cycles: {len(modules)} modules, {n_edges} edges between siblings, no import cycle, no layer breach")
