#!/usr/bin/env bash
# test_p2p_stack.sh: the files of the p2p engine form a stack (no call
# circle between them; docs/p2p.md "The files as a stack").
#
# scripts/file_cycles.py reads the objects' defined and undefined symbols
# (nm) and fails on a strongly connected component of more than one file.
# First it is shown to fail: two tiny objects compiled here that call each
# other must be reported as a circle (exit 1), and the same two without the
# back call must pass. Then it runs on $BUILD/obj/p2p/*.o. The objects of
# sources that no longer exist (a renamed file's stale .o) are left out.
# Builds nothing of loom; skips when the objects are missing.
set -u
top=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build/release}
[[ $build = /* ]] || build=$top/$build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cycles() { python3 "$top/scripts/file_cycles.py" "$@" 2>&1; }

# ---- the checker can fail: a.c and b.c call each other ----------------------
cat > "$tmp/a.c" <<'C'
int b_fn(int);
int a_fn(int x) { return x > 0 ? b_fn(x - 1) : 0; }
C
cat > "$tmp/b.c" <<'C'
int a_fn(int);
int b_fn(int x) { return x > 0 ? a_fn(x - 1) : 1; }
C
cat > "$tmp/c.c" <<'C'
int b_fn(int);
int b_fn(int x) { return x + 1; }
C
if ! cc -c "$tmp/a.c" -o "$tmp/a.o" || ! cc -c "$tmp/b.c" -o "$tmp/b.o" ||
   ! cc -c "$tmp/c.c" -o "$tmp/c.o"; then
    bad "cannot compile the two-file test objects"
else
    out=$(cycles "$tmp/a.o" "$tmp/b.o")
    rc=$?
    ((rc == 1)) || bad "a circle of two files: exit $rc, expected 1: $out"
    [[ $out == *"CIRCLE (2 files): a.o b.o"* ]] || bad "the circle is not named: $out"
    [[ $out == *"a.o -> b.o: b_fn"* && $out == *"b.o -> a.o: a_fn"* ]] ||
        bad "the circle's edges are not named with their symbols: $out"
    # a calls c, c calls nothing: a stack
    out=$(cycles "$tmp/a.o" "$tmp/c.o")
    rc=$?
    ((rc == 0)) || bad "two files without a circle: exit $rc, expected 0: $out"
    [[ $out == *"a.o -> c.o"* && $out == *"no circle"* ]] || bad "stack output: $out"
    out=$(cycles)
    rc=$?
    ((rc == 2)) || bad "no arguments: exit $rc, expected 2 (usage): $out"
fi

# ---- loom's p2p engine ------------------------------------------------------------
objs=()
for o in "$build"/obj/p2p/*.o; do
    [[ -e $o ]] || continue
    src=$top/p2p/$(basename "$o" .o).c
    [[ -e $src ]] && objs+=("$o")
done
if ((${#objs[@]} == 0)); then
    echo "SKIP: no p2p objects in $build/obj/p2p (build loom first: make BUILD=...)"
else
    nsrc=$(ls "$top"/p2p/*.c | wc -l)
    ((${#objs[@]} == nsrc)) ||
        bad "$((nsrc - ${#objs[@]})) p2p sources have no object in $build/obj/p2p (rebuild)"
    out=$(cycles "${objs[@]}")
    rc=$?
    ((rc == 0)) || bad "the p2p files call each other in a circle (exit $rc):
$(echo "$out" | sed -n '/^CIRCLE/,$p')"
fi

((fail == 0)) && echo "p2p stack: all passed" || echo "p2p stack: $fail failed"
exit $((fail != 0))
