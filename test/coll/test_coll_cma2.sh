#!/usr/bin/env bash
# test_coll_cma2.sh: bcast "cma" (collectives/bcast_cma.c) and "stage"
# (bcast_shm.c) through
# prog_bcast_cma.c, and gather/scatter/allgather/alltoall "cma"
# (collectives/move_cma.c) through prog_move_cma.c:
#   - data at np 1-8 (np 1 2 3 5 under a sanitizer) with cma forced (np 2
#     also with both ranks on one CPU: the split copy's wait) and
#     with the selection table (which gives cma above 8 KiB on one node,
#     also when ranks outnumber cores): every root, odd sizes up to 2.3 MiB,
#     eager shm bcasts right before and after, two ibcasts in flight,
#     count 0, reductions in between, checked byte for byte;
#   - a reader dying after it arrived, the root dying after it published,
#     a rank dying before the call: the root's bcast fails with a peer
#     failure or the launcher stops the job (it waits for the dead reader);
#     the readers of a dead root fail themselves (process_vm_readv: ESRCH);
#     nothing hangs; a live reader of a live root may finish;
#   - LOOM_SHM_CMA=off: the CMA set-up step finds "no" and the data are
#     right through the message-based algorithms;
#   - move_cma: data at the same np, forced (np 2 also on one CPU: the
#     split copy of gather and scatter) and with the table: blocks of
#     1 B-300001 B, every root, in place and not (alltoall in place is
#     refused by the selection and must still be right); a rank dying in
#     an allgather: the survivors fail or are stopped, never hang or
#     succeed.
# (reduce cma, whose non-roots now wait for the root only:
# test_reduce_cma.sh.)
#   BUILD=build/release bash test/coll/test_coll_cma2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_bcast_cma
RUN="$BUILD/bin/loomrun -q --timeout 50"
export LOOM_ERRORS=return
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
# delay: see test_reduce_cma.sh (a sanitizer's exit takes longer)
nps="1 2 3 4 5 6 7 8" tnps="2 4" delay=300 san=0
case $BUILD in
*address* | *thread* | *undefined*) nps="1 2 3 5" tnps="3" delay=2000 san=1 ;;
esac

data() {   # data <label> <np> [env...]   ($PROG, its "passed" line)
    local label=$1 np=$2 log
    shift 2
    log=$(env "$@" timeout -k 5 60 $RUN -n "$np" "$PROG" data 2>&1)
    if [[ $? == 0 ]] && grep -q "$(basename "$PROG"): passed" <<<"$log"; then
        echo "ok   data $label np=$np"
    else
        echo "FAIL data $label np=$np"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
    fi
}

for np in $nps; do
    data "forced cma" "$np" LOOM_BCAST_ALGORITHM=cma
done
# np 2 splits the copy (the root writes the second half while the reader
# reads the first): with both ranks on one CPU the reader runs first, so
# a reader that left before the root's half landed would see old bytes
data "forced cma, one CPU" 2 LOOM_BCAST_ALGORITHM=cma taskset -c 0
for np in $tnps; do
    data "table" "$np"
    # the eager staged bcast up to 64 KiB (larger calls: the table, warned)
    data "forced stage" "$np" LOOM_BCAST_ALGORITHM=stage
done

for mode in die die_root die_early; do
    for np in 2 3; do
        log=$(LOOM_BCAST_ALGORITHM=cma timeout -k 5 60 $RUN -n "$np" "$PROG" $mode $delay 2>&1)
        rc=$?
        # a reader that is not the dead rank may finish (it needs the root
        # only, as a leaf of a tree would); the root never; in die_root
        # every reader reads a dead process and reports it itself
        bad_ok="\[rank 0\] bcast after the death: success"
        [[ $mode == die_root ]] && bad_ok="bcast after the death: success"
        if [[ $rc == 124 || $rc == 137 ]] || grep -Eq "$bad_ok" <<<"$log" ||
           { [[ $mode == die_root && $san == 0 ]] && ! grep -q "\[rank 0\] bcast after the death: peer process failed" <<<"$log"; } ||
           ! grep -Eq "bcast after the death: peer process failed|stopping the job" <<<"$log"; then
            echo "FAIL $mode np=$np (rc $rc)"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
        else
            echo "ok   $mode np=$np: peer failure reported"
        fi
    done
done

log=$(LOOM_SHM_CMA=off LOOM_LOG=info:coll timeout -k 5 60 $RUN -n 3 "$PROG" data 2>&1)
if [[ $? == 0 ]] && grep -q "prog_bcast_cma: passed" <<<"$log" &&
   grep -q "process_vm_readv is not available between every pair of ranks" <<<"$log"; then
    echo "ok   LOOM_SHM_CMA=off np=3: message-based fallback"
else
    echo "FAIL LOOM_SHM_CMA=off np=3"; grep -v INFO <<<"$log" | tail -n 10 | sed 's/^/    | /'; fail=1
fi
PROG=$BUILD/test/coll/prog_move_cma
if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
FORCE=(LOOM_GATHER_ALGORITHM=cma LOOM_SCATTER_ALGORITHM=cma LOOM_ALLGATHER_ALGORITHM=cma
       LOOM_ALLTOALL_ALGORITHM=cma)
for np in $nps; do
    data "move forced cma" "$np" "${FORCE[@]}"
done
# np 2 splits gather's and scatter's copy: on one CPU the receiving rank
# runs first and must wait for the other's part
data "move forced cma, one CPU" 2 "${FORCE[@]}" taskset -c 0
for np in $tnps; do
    data "move table" "$np"
done
for np in 2 3; do
    log=$(env "${FORCE[@]}" timeout -k 5 60 $RUN -n "$np" "$PROG" die $delay 2>&1)
    rc=$?
    if [[ $rc == 124 || $rc == 137 ]] || grep -q "allgather after the death: success" <<<"$log" ||
       ! grep -Eq "allgather after the death: peer process failed|stopping the job" <<<"$log"; then
        echo "FAIL allgather die np=$np (rc $rc)"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
    else
        echo "ok   allgather die np=$np: peer failure reported"
    fi
done
exit $fail
