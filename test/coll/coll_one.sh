# coll_one.sh: the start and one() of the session drivers of the
# collectives (test_coll_s14.sh, _s15, _s16, _rev15), sourced from the top
# of the tree (the driver's cd "$TOP").
#
# coll_driver <program> [more programs]: BUILD (default build/release), RUN
# (the loomrun command), PROG (the first program, a data-check program in
# $BUILD/test/coll), log (a scratch file, removed at exit), fail=0,
# ONE_TIMEOUT (seconds for one run: 150 unless set), LOOM_ERRORS=return;
# exits 1 naming a program that is not built.
coll_driver() {
    local p
    BUILD=${BUILD:-build/release}
    RUN="$BUILD/bin/loomrun -q --timeout 60"
    PROG=$BUILD/test/coll/$1
    ONE_TIMEOUT=${ONE_TIMEOUT:-150}
    export LOOM_ERRORS=return
    fail=0
    log=/tmp/loom-$1-$$.log
    trap 'rm -f "$log"' EXIT
    for p in "$@"; do
        if [[ ! -x $BUILD/test/coll/$p ]]; then
            echo "FAIL: $BUILD/test/coll/$p is missing (make BUILD=$BUILD tests)"
            exit 1
        fi
    done
}

#
# one <np> <mode> <label> <env...>: run "$PROG <mode>" on <np> ranks under
# the variables <env...>; it must exit 0 and print "<prog> <mode>: passed
# on <np> ranks", else FAIL (fail=1). The "<mode>-hash" line it prints (a
# LOOM_DETERMINISTIC hash, compared across algorithms) is left in $hash.
hash=
one() {
    local np=$1 mode=$2 label=$3 name
    shift 3
    name=$(basename "$PROG")
    if ! env "$@" timeout -k 5 "$ONE_TIMEOUT" $RUN -n "$np" "$PROG" "$mode" >"$log" 2>&1 ||
       ! grep -q "$name $mode: passed on $np ranks" "$log"; then
        echo "FAIL np=$np $mode $label: $*"; grep -v WARN "$log" | tail -5; fail=1; hash=
        return
    fi
    hash=$(sed -n "s/^$mode-hash //p" "$log")
    echo "ok   np=$np $mode $label"
}
