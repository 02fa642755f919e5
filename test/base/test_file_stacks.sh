#!/usr/bin/env bash
# test_file_stacks.sh: inside each layer that promises it, the files form a
# stack: no call circle between them (docs/ARCHITECTURE.md; docs/p2p.md and
# docs/collectives.md "The files as a stack").
#
# scripts/file_cycles.py reads the objects' defined and undefined symbols
# (nm) and fails on a strongly connected component of more than one file.
# First it is shown to fail: two tiny objects compiled here that call each
# other must be reported as a circle (exit 1), with the symbols of both
# edges, and the same caller with a leaf must pass. Then it runs on each
# folder's objects in $BUILD/obj (a folder and its subfolders form one
# graph: a circle through both is a circle too). Objects whose source no
# longer exists (a moved file's stale .o) are left out; a source without an
# object fails (rebuild). Builds nothing of loom; skips a folder with no
# objects at all.
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

# ---- loom's layers: check_stack NAME FOLDER... -------------------------------
check_stack() {
    local name=$1 dir o have nsrc=0
    local objs=() srcs=()
    shift
    for dir in "$@"; do
        srcs=("$top/$dir"/*.c)
        [[ -e ${srcs[0]} ]] || continue
        have=0
        for o in "$build/obj/$dir"/*.o; do
            [[ -e $o ]] || continue
            [[ -e $top/$dir/$(basename "$o" .o).c ]] || continue   # stale object
            objs+=("$o")
            have=$((have + 1))
        done
        nsrc=$((nsrc + ${#srcs[@]}))
    done
    if ((${#objs[@]} == 0)); then
        echo "SKIP: no $name objects in $build/obj (build loom first)"
        return
    fi
    ((${#objs[@]} == nsrc)) ||
        bad "$((nsrc - ${#objs[@]})) $name sources have no object in $build/obj (rebuild)"
    out=$(cycles "${objs[@]}")
    rc=$?
    if ((rc == 0)); then
        echo "ok: $name: ${#objs[@]} files form a stack"
    else
        bad "the $name files call each other in a circle (exit $rc):
$(echo "$out" | sed -n '/^CIRCLE/,$p')"
    fi
}

check_stack base base
check_stack p2p p2p
check_stack collectives collectives collectives/patterns
check_stack runtime runtime
check_stack rma rma
check_stack datatype datatype

((fail == 0)) && echo "file stacks: all passed" || echo "file stacks: $fail failed"
exit $((fail != 0))
