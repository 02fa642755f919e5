# coll_one.sh: one() for the session drivers of the collectives
# (test_coll_s14.sh, test_coll_s15.sh), sourced after they set RUN (the
# loomrun command), PROG (the data-check program), log (a scratch file),
# fail and ONE_TIMEOUT (seconds for one run).
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
