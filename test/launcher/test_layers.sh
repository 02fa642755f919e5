#!/usr/bin/env bash
# test_layers.sh: the launcher's files form a stack, not a circle.
#
# Every launcher/loomrun*.c file has a layer below; a file may use (call,
# or point to) only what files of lower layers define. The shared event
# loop sits below the roles: it reaches the head's and the daemon's code
# only through the role table (loomrun_role_ops_t, set once at start), never
# by name. A new file must be given its layer here, which is the moment to
# decide where it belongs. Reads the sources only (no build needed); fails
# naming each use that goes sideways or up, and each file without a layer.
#   bash test/launcher/test_layers.sh
set -u
cd "$(dirname "$0")/../.." || exit 1

python3 - launcher <<'EOF'
import glob, os, re, sys

# bottom to top; a file may use only files of a lower layer
LAYERS = [
    "util ctl hosts report bind pmix",   # pure helpers, the PMIx server
    "report_sum net proc",               # summaries, framed sockets, processes and output
    "guard",                             # the cleanup guardian (removes files with proc)
    "note",                              # the ranks' notes of a peer's failure
    "loop",                              # the shared event loop and the failure policy
    "hang",                              # hang reports (signal the job through the loop)
    "single route",                      # the single-host role; the head's routing
    "head daemon",                       # the head role (single + daemons); the daemon role
    "loomrun",                           # main: picks the role
]
layer = {}
for i, names in enumerate(LAYERS):
    for n in names.split():
        layer["loomrun.c" if n == "loomrun" else "loomrun_%s.c" % n] = i

def code(path):
    """The source without comments and string literals."""
    s = open(path).read()
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  ' ', s, flags=re.S)

src = {os.path.basename(p): code(p) for p in glob.glob(sys.argv[1] + "/loomrun*.c")}
bad = [f + ": has no layer in test_layers.sh" for f in sorted(set(src) - set(layer))]
defs = {}
for f, s in src.items():
    # non-static functions and objects defined at the start of a line
    for m in re.finditer(r'^(?!static\b)[A-Za-z][\w \*]*?\b(loomrun_\w+)\s*(?:\(|=|\[)', s, re.M):
        if not s[m.end():].lstrip().startswith(";"):
            defs.setdefault(m.group(1), f)
uses = 0
for f, s in sorted(src.items()):
    for name in sorted(set(re.findall(r'\bloomrun_\w+\b', s))):
        g = defs.get(name)
        if g is None or g == f or f not in layer or g not in layer:
            continue
        uses += 1
        if layer[g] >= layer[f]:
            bad.append("%s uses %s of %s: not below it (%s)" %
                       (f, name, g, "same layer" if layer[g] == layer[f] else "above"))
if uses < 50:
    bad.append("only %d uses between files found: the scan is broken" % uses)
for b in bad:
    print("FAIL " + b)
if bad:
    sys.exit(1)
print("ok   %d files, %d uses between them, every one downwards" % (len(src), uses))
EOF
