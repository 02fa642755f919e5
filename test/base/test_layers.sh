#!/usr/bin/env bash
# test_layers.sh: the include-rule checker (scripts/layers.py) on a small
# tree of its own, so it is shown to fail on each kind of violation and to
# pass a tree that follows its table; then on loom itself.
set -u
top=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

mkdir -p "$tmp/scripts" "$tmp/low" "$tmp/mid" "$tmp/high" "$tmp/docs"
cp "$top/scripts/layers.py" "$tmp/scripts/"
cat > "$tmp/layers.txt" <<'T'
low     -          *
mid     low        mid_api.h mid_rt.h@high
high    low mid    -
T
echo '/* low */'                    > "$tmp/low/low_int.h"
echo '#include "low_int.h"'         > "$tmp/mid/mid_api.h"
echo '/* mid internals */'          > "$tmp/mid/mid_priv.h"
echo '/* for high only */'          > "$tmp/mid/mid_rt.h"
printf '#include "mid_api.h"\n#include "mid_rt.h"\n' > "$tmp/high/high.c"
printf '#include "low_int.h"\n#include "mid_priv.h"\n' > "$tmp/mid/mid.c"
git -C "$tmp" init -q && git -C "$tmp" add -A

run() { LOOM_LAYERS_TOP=$tmp python3 "$tmp/scripts/layers.py" "$@" 2>&1; }

out=$(run --check) || bad "a tree that follows its table was refused: $out"

# an upward include: low uses nothing
echo '#include "mid_api.h"' > "$tmp/low/up.c"; git -C "$tmp" add -A
out=$(run --check) && bad "an upward include passed"
[[ $out == *"low/up.c:1"*"layer low may not include mid/mid_api.h"* ]] ||
    bad "upward include: message does not name file, line and rule: $out"
git -C "$tmp" rm -q -f low/up.c

# an internal header of another layer
echo '#include "mid_priv.h"' > "$tmp/high/priv.c"; git -C "$tmp" add -A
out=$(run --check) && bad "an unexported header passed"
[[ $out == *"high/priv.c:1"*"mid/mid_priv.h is internal to layer mid"* ]] ||
    bad "internal header: wrong message: $out"
git -C "$tmp" rm -q -f high/priv.c

# a header exported to one layer only, used by another
cat > "$tmp/layers.txt" <<'T'
low     -          *
mid     low        mid_api.h mid_rt.h@high
side    mid        -
high    low mid    -
T
mkdir -p "$tmp/side"; echo '#include "mid_rt.h"' > "$tmp/side/s.c"; git -C "$tmp" add -A
out=$(run --check) && bad "a header exported to high passed in side"
[[ $out == *"side/s.c:1"*"exported by mid to high only"* ]] ||
    bad "restricted export: wrong message: $out"
git -C "$tmp" rm -q -f side/s.c

# a table that is not a stack
printf 'a  b  *\nb  -  *\n' > "$tmp/layers.txt"
out=$(run --check) && bad "a layer using one above it passed"
[[ $out == *"layer a uses b, which is not a layer listed below it"* ]] ||
    bad "table order: wrong message: $out"
printf 'low -  *\nmid low mid_api.h mid_rt.h@high\nhigh low mid -\n' > "$tmp/layers.txt"

# the documentation's copy of the table
run --markdown > "$tmp/table.md"
{ echo '<!-- layers:begin -->'; cat "$tmp/table.md"; echo '<!-- layers:end -->'; } > "$tmp/docs/A.md"
out=$(run --check --doc docs/A.md) || bad "a matching doc table was refused: $out"
sed -i 's/`mid\/`/`MID\/`/' "$tmp/docs/A.md"
out=$(run --check --doc docs/A.md) && bad "a stale doc table passed"
[[ $out == *"differs from layers.txt"* ]] || bad "stale doc: wrong message: $out"

# loom itself
out=$(cd "$top" && python3 scripts/layers.py --check --doc docs/ARCHITECTURE.md) ||
    bad "loom breaks its own include rule: $out"

((fail == 0)) && echo "layers: all passed" || echo "layers: $fail failed"
exit $((fail != 0))
