#!/usr/bin/env bash
# test_coll_stack.sh: the files of the collectives layer form a stack (no
# call circle between them; docs/collectives.md "The files as a stack").
#
# scripts/file_cycles.py builds the graph "object A uses a symbol object B
# defines" from nm and fails (exit 1) on a strongly connected component of
# more than one file. The check is first shown able to fail here: two
# small objects compiled by this script that call each other must be
# reported, the same pair without the back call must pass. Then it runs on
# $BUILD/obj/collectives/*.o, and on $BUILD/obj/collectives/patterns/*.o
# together with them when that folder has objects (one graph: a circle
# through both folders is a circle too). Objects whose source no longer
# exists (a moved file's stale .o) are left out; a source without an object
# fails (rebuild). Builds nothing of loom; skips when the objects are missing.
set -u
top=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build/release}
[[ $build = /* ]] || build=$top/$build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
cycles() { python3 "$top/scripts/file_cycles.py" "$@" 2>&1; }

# ---- the checker can fail: up.c and down.c call each other --------------------
cat > "$tmp/up.c" <<'C'
int coll_down(int);
int coll_up(int x) { return x > 0 ? coll_down(x - 1) : 0; }
C
cat > "$tmp/down.c" <<'C'
int coll_up(int);
int coll_down(int x) { return x > 0 ? coll_up(x / 2) : 1; }
C
cat > "$tmp/leaf.c" <<'C'
int coll_down(int);
int coll_down(int x) { return x * 2; }
C
if ! cc -c "$tmp/up.c" -o "$tmp/up.o" || ! cc -c "$tmp/down.c" -o "$tmp/down.o" ||
   ! cc -c "$tmp/leaf.c" -o "$tmp/leaf.o"; then
    bad "cannot compile the test objects"
else
    out=$(cycles "$tmp/up.o" "$tmp/down.o")
    rc=$?
    ((rc == 1)) || bad "two files calling each other: exit $rc, expected 1: $out"
    [[ $out == *"CIRCLE (2 files): down.o up.o"* ]] || bad "the circle is not named: $out"
    out=$(cycles "$tmp/up.o" "$tmp/leaf.o")
    rc=$?
    ((rc == 0)) || bad "a caller and its leaf: exit $rc, expected 0: $out"
fi

# ---- loom's collectives ---------------------------------------------------------
objs=()
nsrc=0
for dir in collectives collectives/patterns; do
    srcs=("$top/$dir"/*.c)
    [[ -e ${srcs[0]} ]] || continue
    have=0
    for o in "$build/obj/$dir"/*.o; do
        [[ -e $o ]] || continue
        [[ -e $top/$dir/$(basename "$o" .o).c ]] || continue   # stale object
        objs+=("$o")
        have=$((have + 1))
    done
    # patterns/ may have no objects of its own (header-only use): then skip it
    [[ $dir == collectives/patterns && $have == 0 ]] && continue
    nsrc=$((nsrc + ${#srcs[@]}))
done
if ((${#objs[@]} == 0)); then
    echo "SKIP: no collectives objects in $build/obj/collectives (build loom first)"
else
    ((${#objs[@]} == nsrc)) ||
        bad "$((nsrc - ${#objs[@]})) collectives sources have no object in $build/obj (rebuild)"
    out=$(cycles "${objs[@]}")
    rc=$?
    ((rc == 0)) || bad "the collectives files call each other in a circle (exit $rc):
$(echo "$out" | sed -n '/^CIRCLE/,$p')"
fi

((fail == 0)) && echo "coll stack: all passed" || echo "coll stack: $fail failed"
exit $((fail != 0))
