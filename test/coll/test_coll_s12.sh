#!/usr/bin/env bash
# test_coll_s12.sh: the eager shared-memory gather and scatter (session 12,
# issue 21: gather_shm.c, scatter_shm.c) and the blocking fast members of
# gather, scatter, allgather and alltoall shm (coll_fast.c). prog_coll's
# data checks (int32 and long double+int blocks, roots size-1 and size/2,
# in place, v variants, nonblocking) with the four forced to shm at np 1-8,
# with the table and with the message algorithms below shm; both
# roots calling scatter at once (eager: the barrier after it fails with
# the root mismatch, the one after that works); a gather whose ranks pass
# different counts (the root names both). Each case can fail: a wrong byte
# in a copy fails the data checks (checked by mutation when written).
#   BUILD=build/release bash test/coll/test_coll_s12.sh
set -u
BUILD=${BUILD:-build/release}
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
RUN="$BUILD/bin/loomrun -q --timeout 60"
PROG=$BUILD/test/coll/prog_coll
export LOOM_ERRORS=return
fail=0
log=/tmp/loom-coll-s12-$$.log

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi

# data <np> <label> <env...>: prog_coll quick (light from np 7)
data() {
    local np=$1 label=$2 mode=quick
    shift 2
    ((np >= 7)) && mode=light
    if ! env "$@" timeout -k 5 90 $RUN -n "$np" "$PROG" "$mode" >"$log" 2>&1; then
        echo "FAIL np=$np $label ($mode): $*"; grep -v WARN "$log" | tail -5; fail=1
    else
        echo "ok   np=$np $label ($mode)"
    fi
}

# sanitizer builds run about 10x slower: fewer rank counts
NPS="1 2 3 4 5 6 7 8"
case $BUILD in
    *-address*|*-thread*|*-undefined*) NPS="1 2 3 5" ;;
esac
for np in $NPS; do
    data "$np" "gather/scatter/allgather/alltoall shm forced" LOOM_GATHER_ALGORITHM=shm \
        LOOM_SCATTER_ALGORITHM=shm LOOM_ALLGATHER_ALGORITHM=shm LOOM_ALLTOALL_ALGORITHM=shm
done
data 4 "table" LOOM_COLL_REBALANCE=1
data 3 "the message algorithms below shm" LOOM_GATHER_ALGORITHM=binomial \
    LOOM_SCATTER_ALGORITHM=binomial LOOM_ALLGATHER_ALGORITHM=bruck LOOM_ALLTOALL_ALGORITHM=bruck

# mismatch <case> <regex>: a clear error naming both ranks, never a hang
mismatch() {
    local c=$1 want=$2 rc
    timeout -k 5 60 $RUN -n 2 "$PROG" mismatch "$c" >"$log" 2>&1
    rc=$?
    if [[ $rc != 0 ]] || ! grep -Eq "$want" "$log"; then
        echo "FAIL mismatch $c (rc $rc, want /$want/)"; tail -5 "$log"; fail=1
    else
        echo "ok   mismatch $c"
    fi
}
mismatch root_scatter "scatter #[0-9]+ on WORLD: rank [01] used root [01] but rank [01] used root [01]"
mismatch count_gather "gather #[0-9]+ on WORLD: rank [01] passed (8|16) bytes but rank [01] passed (8|16) bytes"
rm -f "$log"
exit $fail
