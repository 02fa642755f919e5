#!/usr/bin/env bash
# test_coll_rev13.sh: the review of the session 13 merge (scatter and gather
# "stage", rules that apply only when ranks outnumber cores), with
# prog_rev13.c:
#   - verdict: the segment's set-up fails (LOOM_COLL_SHM_FAULT=1), rank 0
#     knows the verdict before its allgather of 32 KiB blocks and the others
#     do not; every rank must still pick the same message algorithm (the
#     shared-cores rule read the segment's state and hung: ring against
#     recursive doubling), np 3-5, oversubscribed;
#   - chain: bcast, scatter and gather through the 64 KiB stage back to back
#     without a barrier, roots moving, slow ranks in turn, every byte.
#   BUILD=build/release bash test/coll/test_coll_rev13.sh
set -u
BUILD=${BUILD:-build/release}
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
RUN="$BUILD/bin/loomrun -q --timeout 30"
PROG=$BUILD/test/coll/prog_rev13
export LOOM_ERRORS=return
fail=0
log=/tmp/loom-coll-rev13-$$.log

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi

# run <np> <label> <case args...> -- <env...>: the case must print "<case>: passed"
run() {
    local np=$1 label=$2 args=()
    shift 2
    while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
    shift
    if ! env "$@" timeout -k 5 60 $RUN -n "$np" "$PROG" "${args[@]}" >"$log" 2>&1 ||
       ! grep -q "^${args[0]}: passed" "$log"; then
        echo "FAIL np=$np $label: $*"; grep -v WARN "$log" | tail -6; fail=1
    else
        echo "ok   np=$np $label"
    fi
}

NPS="3 4 5"
CNPS="2 3 5 6"
ITERS=200
case $BUILD in
    *-address*|*-thread*|*-undefined*) NPS="3"; CNPS="3"; ITERS=50 ;;
esac
for np in $NPS; do
    run "$np" "verdict after a failed segment, oversubscribed" verdict -- \
        LOOM_COLL_SHM_FAULT=1 LOOM_OVERSUBSCRIBED=1
done
for np in $CNPS; do
    run "$np" "bcast/scatter/gather stage chain" chain "$ITERS" -- \
        LOOM_BCAST_ALGORITHM=stage LOOM_SCATTER_ALGORITHM=stage LOOM_GATHER_ALGORITHM=stage
    run "$np" "chain with the table, oversubscribed" chain "$ITERS" -- LOOM_OVERSUBSCRIBED=1
done
rm -f "$log"
exit $fail
