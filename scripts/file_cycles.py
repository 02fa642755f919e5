#!/usr/bin/env python3
"""file_cycles.py: find call circles between the object files of one folder.

Usage: python3 scripts/file_cycles.py build/release/obj/p2p/*.o

Design: the linker's view is the truth of who calls whom, so the graph is
built from `nm`, not from the sources. For each object, the symbols it
defines (T, D, B, R, ... : any type letter but U, w, v, N) and the ones it
leaves undefined (U, plus weak undefined w/v) are read. Object A "uses" B
when A leaves undefined a symbol B defines. Only the objects named on the
command line are in the graph: a symbol defined elsewhere (libc, another
folder) is no edge. Static functions and inlined calls never show, which
is right: they create no dependency between files.

The script prints the graph (each file and the files it uses, with the
symbols that make each edge), then every strongly connected component of
more than one file (Tarjan's algorithm): those are the circles. Exit 1 if
there is one, 0 if the files form a stack (a DAG), 2 on a usage error or
when nm fails.
"""

import os
import subprocess
import sys

# nm type letters that do not define a symbol in this object.
UNDEFINED_TYPES = {"U", "w", "v"}
NOT_A_DEFINITION = UNDEFINED_TYPES | {"N", "?", "-"}


def read_symbols(obj):
    """Return (defined, undefined) symbol sets of one object via nm."""
    out = subprocess.run(["nm", "-P", obj], check=True, capture_output=True,
                         text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind in UNDEFINED_TYPES:
            undefined.add(name)
        elif kind not in NOT_A_DEFINITION and kind.isupper():
            defined.add(name)  # global definitions only (lower case: local)
    return defined, undefined


def build_graph(objects):
    """Map each object name to {used object name: sorted symbols}."""
    syms = {os.path.basename(o): read_symbols(o) for o in objects}
    owner = {}
    for name, (defined, _) in syms.items():
        for sym in defined:
            owner.setdefault(sym, name)
    graph = {name: {} for name in syms}
    for name, (_, undefined) in syms.items():
        for sym in undefined:
            target = owner.get(sym)
            if target is not None and target != name:
                graph[name].setdefault(target, []).append(sym)
    for edges in graph.values():
        for target in edges:
            edges[target].sort()
    return graph


def strongly_connected(graph):
    """Tarjan's algorithm: the list of strongly connected components."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def print_graph(graph):
    """Print 'file -> used file: symbols' lines, one file per block."""
    for name in sorted(graph):
        edges = graph[name]
        print(f"{name} -> {', '.join(sorted(edges)) or '(none)'}")
        for target in sorted(edges):
            print(f"    {target}: {' '.join(edges[target])}")


def print_circles(graph, circles):
    """Print each circle with the edges that stay inside it."""
    for comp in circles:
        print(f"CIRCLE ({len(comp)} files): {' '.join(comp)}")
        for name in comp:
            for target in sorted(graph[name]):
                if target in comp:
                    syms = " ".join(graph[name][target])
                    print(f"    {name} -> {target}: {syms}")


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    try:
        graph = build_graph(argv[1:])
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"file_cycles: nm failed: {err}", file=sys.stderr)
        return 2
    print_graph(graph)
    circles = [c for c in strongly_connected(graph) if len(c) > 1]
    if not circles:
        print(f"no circle: the {len(graph)} files form a stack")
        return 0
    print_circles(graph, circles)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
