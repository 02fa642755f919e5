#!/usr/bin/env python3
"""
layers.py: loom's include rule, from layers.txt, made executable.

    layers.py --check [--doc docs/ARCHITECTURE.md]
        every quoted #include of every tracked C file in a layer's folder
        against the table; with --doc, also the table between the markers
        "<!-- layers:begin -->" and "<!-- layers:end -->" in that file.
        Exit 1 naming each file, line, header and the rule it breaks.
    layers.py --make
        make variables: LAYER_NAMES, LAYER_INC_ALL and, per layer, the -I
        paths its files compile with (LAYER_INC_<layer>, also set as
        LAYER_INC for the objects of its folder: its own folder and the layers it
        uses, with theirs, since an exported header may include its own
        layer's headers). The compiler then cannot find a header of a layer
        above; --check catches the rest (a layer below used without being
        listed, an unexported header).
    layers.py --markdown
        the table as docs/ARCHITECTURE.md shows it.

Headers are found as the compiler finds them: next to the including file,
then under each folder of the include path. test/ is white-box and not
checked; generated headers (mpi_proto.h) and include/ are public.
"""
import os
import re
import subprocess
import sys

# LOOM_LAYERS_TOP: check another tree (the self-test builds a small one)
TOP = os.environ.get("LOOM_LAYERS_TOP") or \
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(TOP, "layers.txt")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
DOC_BEGIN = "<!-- layers:begin -->"
DOC_END = "<!-- layers:end -->"


class Layer:
    def __init__(self, name, uses, exports, lineno):
        self.name = name
        self.uses = uses
        self.exports = exports   # header -> set of layers allowed, or None (all)
        self.export_all = "*" in exports
        self.lineno = lineno


def parse_table(path=TABLE):
    """The layers in table order (bottom first); errors name the line."""
    layers = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) < 3:
                sys.exit(f"{path}:{lineno}: expected 'layer uses... exports...'")
            layers.append(parse_row(path, lineno, line))
    check_table(path, layers)
    return layers


def parse_row(path, lineno, words):
    """One row: name, then 'uses' (layer names) until the first header or '-'/'*'."""
    name, rest = words[0], words[1:]
    uses, exports = [], {}
    i = 0
    if rest and rest[0] == "-":
        i = 1
    else:
        while i < len(rest) and not rest[i].endswith(".h") and "@" not in rest[i] \
                and rest[i] not in ("*", "-"):
            uses.append(rest[i])
            i += 1
    for word in rest[i:]:
        if word == "-":
            continue
        header, _, only = word.partition("@")
        exports.setdefault(header, set())
        if only:
            exports[header].add(only)
        else:
            exports[header] = None
    return Layer(name, uses, exports, lineno)


def check_table(path, layers):
    """Every used layer is listed earlier (below): the table is a stack."""
    seen = set()
    for layer in layers:
        for used in layer.uses:
            if used not in seen:
                sys.exit(f"{path}:{layer.lineno}: layer {layer.name} uses {used}, "
                         f"which is not a layer listed below it")
        seen.add(layer.name)


def closure(layers, name):
    """The layer and every layer it uses, directly or not, in table order."""
    by_name = {l.name: l for l in layers}
    want, stack = set(), [name]
    while stack:
        n = stack.pop()
        if n not in want:
            want.add(n)
            stack.extend(by_name[n].uses)
    return [l.name for l in layers if l.name in want]


def tracked_sources():
    out = subprocess.run(["git", "-C", TOP, "ls-files", "*.c", "*.h"],
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.split() if os.path.exists(os.path.join(TOP, p))]


def resolve(including, header, search):
    """The repository path the compiler would open for "header", or None."""
    here = os.path.normpath(os.path.join(os.path.dirname(including), header))
    if os.path.exists(os.path.join(TOP, here)):
        return here
    for folder in search:
        cand = os.path.normpath(os.path.join(folder, header))
        if os.path.exists(os.path.join(TOP, cand)):
            return cand
    return None


def check_include(by_name, layer, path, header, target):
    """An error message, or None if the rule allows it."""
    owner = target.split("/", 1)[0]
    if owner == layer.name or owner == "include" or owner not in by_name:
        return None
    base = os.path.basename(target)
    if owner not in layer.uses:
        return (f"layer {layer.name} may not include {target} (layer {owner}); "
                f"it uses {' '.join(layer.uses) or 'no layer'}")
    exp = by_name[owner]
    if exp.export_all:
        return None
    if base not in exp.exports:
        return (f"{target} is internal to layer {owner} (it exports "
                f"{' '.join(sorted(exp.exports)) or 'nothing'})")
    only = exp.exports[base]
    if only is not None and layer.name not in only:
        return f"{target} is exported by {owner} to {' '.join(sorted(only))} only"
    return None


def check_sources(layers):
    by_name = {l.name: l for l in layers}
    errors = []
    for path in tracked_sources():
        layer = by_name.get(path.split("/", 1)[0])
        if layer is None:
            continue
        search = closure(layers, layer.name) + [l.name for l in layers]
        with open(os.path.join(TOP, path), errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = resolve(path, m.group(1), search)
                if target is None:
                    continue   # generated (mpi_proto.h) or a system header
                msg = check_include(by_name, layer, path, m.group(1), target)
                if msg:
                    errors.append(f"{path}:{lineno}: #include \"{m.group(1)}\": {msg}")
    return errors


def markdown(layers):
    rows = ["| layer (folder) | may include (its exported headers) | exports |",
            "|---|---|---|"]
    for l in reversed(layers):
        uses = ", ".join(f"`{u}/`" for u in l.uses) or "public headers only"
        if l.export_all:
            exp = "all its headers"
        elif not l.exports:
            exp = "nothing"
        else:
            exp = ", ".join(f"`{h}`" + (f" (to {', '.join(sorted(o))})" if o else "")
                            for h, o in l.exports.items())
        rows.append(f"| `{l.name}/` | {uses} | {exp} |")
    return "\n".join(rows) + "\n"


def check_doc(layers, doc):
    with open(doc) as f:
        text = f.read()
    if DOC_BEGIN not in text or DOC_END not in text:
        return [f"{doc}: no '{DOC_BEGIN}' ... '{DOC_END}' block for the layer table"]
    shown = text.split(DOC_BEGIN, 1)[1].split(DOC_END, 1)[0].strip() + "\n"
    if shown != markdown(layers):
        return [f"{doc}: the layer table differs from layers.txt; replace the block "
                f"with the output of scripts/layers.py --markdown"]
    return []


def make_vars(layers):
    lines = [f"LAYER_NAMES := {' '.join(l.name for l in layers)}",
             "LAYER_INC_ALL := " + " ".join(f"-I{l.name}" for l in layers)]
    for l in layers:
        inc = " ".join(f"-I{n}" for n in reversed(closure(layers, l.name)))
        lines.append(f"LAYER_INC_{l.name} := {inc}")
        lines.append(f"$(BUILD)/obj/{l.name}/%.o: LAYER_INC := $(LAYER_INC_{l.name})")
    return "\n".join(lines) + "\n"


def main(argv):
    layers = parse_table()
    if "--make" in argv:
        sys.stdout.write(make_vars(layers))
        return 0
    if "--markdown" in argv:
        sys.stdout.write(markdown(layers))
        return 0
    if "--check" in argv:
        errors = check_sources(layers)
        if "--doc" in argv:
            errors += check_doc(layers, os.path.join(TOP, argv[argv.index("--doc") + 1]))
        for e in errors:
            print(f"layers: {e}", file=sys.stderr)
        if not errors:
            print(f"layers: {len(layers)} layers, every include follows layers.txt")
        return 1 if errors else 0
    print(__doc__.strip(), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
