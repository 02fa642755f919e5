#!/usr/bin/env python3
"""
mt_guard.py: every public entry point takes the engine lock (base/mt_int.h).

The entry points are every PMPI_X implemented in mpi/*.c (the files that
hold "#pragma weak MPI_X = PMPI_X") and every function that include/loom.h
declares with LOOM_API, wherever the library defines it. Each must start
with the line "    LOOM_MT_GUARD();" (the first line after its opening
brace). A function that must not lock says so with a comment
"/* LOOM_MT_NO_GUARD: why */" as the first line of its body instead.

    mt_guard.py --check
        exit 1 naming each function (file:line) without the guard; the
        files in PENDING (owned by other engineers while this landed) are
        skipped and named.
    mt_guard.py --list
        the files --fix would change, one per line, PENDING ones included
        (what the lead runs --fix on after merging).
    mt_guard.py --fix [FILE...]
        insert the guard (and #include "mt_int.h") where it is missing, in
        the named files or, without names, in every file except PENDING.

LOOM_MT_GUARD_TOP checks another tree (test/base/test_mt_guard.sh).
"""
import os
import re
import sys

TOP = os.environ.get("LOOM_MT_GUARD_TOP") or \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB_DIRS = ["base", "datatype", "transport", "p2p", "collectives", "runtime", "rma", "mpi"]
GUARD = "LOOM_MT_GUARD();"
NO_GUARD = "LOOM_MT_NO_GUARD"
INCLUDE = '#include "mt_int.h"'

# Files other branches own while a change lands: --check skips them until
# the lead runs --fix on them after the merge (then empties this list).
PENDING = []
if os.environ.get("LOOM_MT_GUARD_TOP"):
    PENDING = []

PRAGMA_RE = re.compile(r"^#pragma weak MPI_\w+ = (PMPI_\w+)\s*$", re.M)
API_RE = re.compile(r"^LOOM_API\b[^;(]*?\b(loom_\w+)\s*\(", re.M)


def pending(rel):
    for p in PENDING:
        if p.endswith("/*") and rel.startswith(p[:-1]) or rel == p:
            return True
    return False


def lib_files():
    out = []
    for d in LIB_DIRS:
        for root, _, files in os.walk(os.path.join(TOP, d)):
            for f in sorted(files):
                if f.endswith(".c"):
                    out.append(os.path.relpath(os.path.join(root, f), TOP))
    return sorted(out)


def api_names():
    path = os.path.join(TOP, "include", "loom.h")
    if not os.path.exists(path):
        return set()
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    return set(API_RE.findall(text))


def definitions(text, names):
    """(name, index of the body's '{', line number) of each definition."""
    found = []
    for m in re.finditer(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(", text, re.M):
        name = m.group(1)
        if name not in names or m.group(0).lstrip().startswith(("return", "#")):
            continue
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        rest = re.match(r"[^;{]*\{", text[i:])
        if rest is None:   # a declaration, not a definition
            continue
        found.append((name, i + rest.end() - 1, text.count("\n", 0, m.start()) + 1))
    return found


def first_line(text, brace):
    nl = text.find("\n", brace)
    end = text.find("\n", nl + 1)
    return text[nl + 1:end].strip()


def targets(rel, text, api):
    names = set(api)
    if rel.startswith("mpi/"):
        names |= set(PRAGMA_RE.findall(text))
    return definitions(text, names)


def missing(rel, text, api):
    return [(n, b, ln) for n, b, ln in targets(rel, text, api)
            if not first_line(text, b).startswith((GUARD, "/* " + NO_GUARD))]


def add_include(text):
    if INCLUDE in text:
        return text
    incs = list(re.finditer(r'^#include "[^"]+"\n', text, re.M))
    at = incs[-1].end() if incs else 0
    return text[:at] + INCLUDE + "\n" + text[at:]


def fix(rel, api):
    path = os.path.join(TOP, rel)
    text = open(path).read()
    todo = missing(rel, text, api)
    if not todo:
        return 0
    for _, brace, _ in sorted(todo, key=lambda t: -t[1]):
        nl = text.find("\n", brace)
        text = text[:nl + 1] + "    " + GUARD + "\n" + text[nl + 1:]
    text = add_include(text)
    with open(path, "w") as f:
        f.write(text)
    return len(todo)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("--check", "--list", "--fix"):
        sys.exit(__doc__)
    api = api_names()
    files = lib_files()
    if argv[1] == "--fix":
        todo = argv[2:] or [f for f in files if not pending(f)]
        for rel in todo:
            n = fix(rel, api)
            if n:
                print(f"{rel}: {n} guard(s) inserted")
        return 0
    bad = 0
    for rel in files:
        text = open(os.path.join(TOP, rel)).read()
        miss = missing(rel, text, api)
        if argv[1] == "--list":
            if miss:
                print(rel)
            continue
        if pending(rel):
            continue
        for name, _, line in miss:
            print(f"{rel}:{line}: {name} does not start with {GUARD} "
                  f"(scripts/mt_guard.py --fix {rel})", file=sys.stderr)
            bad += 1
    if argv[1] == "--check":
        skipped = [f for f in files if pending(f) and missing(f, open(os.path.join(TOP, f)).read(), api)]
        if skipped:
            print("mt_guard: skipped (pending --fix after merge): " + " ".join(skipped))
        if bad:
            print(f"mt_guard: {bad} entry point(s) without the engine lock guard",
                  file=sys.stderr)
            return 1
        print("mt_guard: every entry point is guarded")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
