#!/usr/bin/env bash
# test_reduce_cma.sh: reduce "cma" (collectives/reduce_cma.c) forced, through
# prog_reduce_cma.c:
#   - data at np 1-8 (np 1 2 3 5 under a sanitizer): large sums at every
#     root, in place at the root, count 0, a non-commutative user op,
#     checked exactly against the serial fold; np 2 (the split copy) also
#     with both ranks on one CPU;
#   - a non-root dying after it published its buffer (the root reads a dead
#     process): every surviving rank's reduce fails with a peer failure
#     (or the launcher stops the job), never hangs nor succeeds; the same
#     with the rank dying before it calls the reduce;
#   - LOOM_SHM_CMA=off: the CMA set-up step finds "no" for reduce too, and
#     the data are right through the message-based algorithms.
# (Forced rounds and the deterministic hash of cma are in test_coll.sh.)
#   BUILD=build/release bash test/coll/test_reduce_cma.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_reduce_cma
RUN="$BUILD/bin/loomrun -q --timeout 50"
export LOOM_ERRORS=return LOOM_REDUCE_ALGORITHM=cma
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
# delay: ms the survivors wait before their reduce, so that the dying rank
# is gone (a sanitizer's exit unmaps its shadow memory, which takes longer:
# at 300 ms TSan's root still read a live process; at 2 s the launcher may
# stop the job first, so there the root's own report is not required)
nps="1 2 3 4 5 6 7 8" delay=300 san=0
case $BUILD in
*address* | *thread* | *undefined*) nps="1 2 3 5" delay=2000 san=1 ;;
esac

for np in $nps; do
    log=$(timeout -k 5 60 $RUN -n "$np" "$PROG" data 2>&1)
    if [[ $? == 0 ]] && grep -q "prog_reduce_cma: passed" <<<"$log"; then
        echo "ok   data np=$np"
    else
        echo "FAIL data np=$np"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
    fi
done

# np 2 splits the copy (the other rank writes the end of its input into
# the root's result while the root reads the start): on one CPU the root
# runs first and must wait for that part before it folds into it
log=$(taskset -c 0 timeout -k 5 60 $RUN -n 2 "$PROG" data 2>&1)
if [[ $? == 0 ]] && grep -q "prog_reduce_cma: passed" <<<"$log"; then
    echo "ok   data np=2, one CPU"
else
    echo "FAIL data np=2, one CPU"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
fi

for mode in die die_early; do
    for np in 2 3; do
        log=$(timeout -k 5 60 $RUN -n "$np" "$PROG" $mode $delay 2>&1)
        rc=$?
        if [[ $rc == 124 || $rc == 137 ]] || grep -q "reduce after the death: success" <<<"$log" ||
           { [[ $mode == die && $san == 0 ]] && ! grep -q "\[rank 0\] reduce after the death: peer process failed" <<<"$log"; } ||
           ! grep -Eq "reduce after the death: peer process failed|stopping the job" <<<"$log"; then
            echo "FAIL $mode np=$np (rc $rc)"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
        else
            echo "ok   $mode np=$np: peer failure reported"
        fi
    done
done

log=$(LOOM_SHM_CMA=off LOOM_LOG=info:coll timeout -k 5 60 $RUN -n 3 "$PROG" data 2>&1)
if [[ $? == 0 ]] && grep -q "prog_reduce_cma: passed" <<<"$log" &&
   grep -q "process_vm_readv is not available between every pair of ranks" <<<"$log"; then
    echo "ok   LOOM_SHM_CMA=off np=3: message-based fallback"
else
    echo "FAIL LOOM_SHM_CMA=off np=3"; grep -v INFO <<<"$log" | tail -n 10 | sed 's/^/    | /'; fail=1
fi
exit $fail
