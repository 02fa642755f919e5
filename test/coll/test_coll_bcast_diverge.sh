#!/usr/bin/env bash
# test_coll_bcast_diverge.sh: ranks that select different on-node bcast
# algorithms for one call (a forced LOOM_BCAST_ALGORITHM or
# LOOM_OVERSUBSCRIBED set on some ranks only) must fail with a mismatch,
# never return someone else's bytes as success nor hang: the signature
# names how the data travel (slot, stage, cma; coll_shm.h,
# enum loom_coll_shm_way). prog_bcast_cma diverge at np 2, rank 0 and
# rank 1 with different settings, every pair of stage/cma/shm and both
# roots: no "wrong data", no timeout, each rank fails the bcast or the
# barrier after it, and the message says the selections differ. Then
# prog_bcast_cma after: the calls after a mismatch work again;
# prog_bcast_cma efault: a partial read (np 2: the root's partial write) then EFAULT fails every rank.
#   BUILD=build/release bash test/coll/test_coll_bcast_diverge.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_bcast_cma
RUN="$BUILD/bin/loomrun -q --timeout 30"
export LOOM_ERRORS=return
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi

# diverge <label> <root> <bytes> <rank 0's env> <rank 1's env>
diverge() {
    local label=$1 root=$2 bytes=$3 e0=$4 e1=$5 log rc r
    log=$(timeout -k 5 40 $RUN -n 2 env E0="$e0" E1="$e1" sh -c \
          'if [ "$PMIX_RANK" = 0 ]; then export $E0; else export $E1; fi; exec "$@"' \
          sh "$PROG" diverge "$root" "$bytes" 2>&1)
    rc=$?
    local bad=""
    [[ $rc == 124 || $rc == 137 ]] && bad="timed out (rc $rc)"
    grep -q "diverged bcast: wrong data" <<<"$log" && bad="a rank returned wrong data"
    for r in 0 1; do
        if grep -q "\[rank $r\] diverged bcast: success" <<<"$log" &&
           grep -q "\[rank $r\] barrier after: success" <<<"$log"; then
            bad="rank $r saw no error"
        fi
    done
    grep -q "selected different algorithms" <<<"$log" || bad="${bad:-no mismatch message}"
    if [[ -n $bad ]]; then
        echo "FAIL diverge $label: $bad"; tail -n 12 <<<"$log" | sed 's/^/    | /'; fail=1
    else
        echo "ok   diverge $label"
    fi
}

S=LOOM_BCAST_ALGORITHM=stage C=LOOM_BCAST_ALGORITHM=cma H=LOOM_BCAST_ALGORITHM=shm
diverge "stage root, cma reader" 0 16384 $S $C
diverge "cma root, stage reader" 1 16384 $S $C
diverge "shm root, stage reader" 0 4096 $H $S
diverge "stage root, shm reader" 0 4096 $S $H
diverge "cma root, shm reader" 1 4096 $H $C
# the table: stage only where ranks outnumber cores, as rank 0 believes
diverge "table, LOOM_OVERSUBSCRIBED on rank 0 only" 1 20000 LOOM_OVERSUBSCRIBED=1 \
    LOOM_OVERSUBSCRIBED=0

# the calls after a mismatch work again: a reduce with another count on
# rank 1, then a cma bcast that the ranks behind arrive at absent (their
# signature has the slots' way; the catch-up after it must not take that
# for another algorithm), then a barrier and a bcast that must succeed
for np in 2 3; do
    for force in LOOM_BCAST_ALGORITHM=cma TABLE=1; do   # TABLE: the selection table
        log=$(env $force timeout -k 5 40 $RUN -n "$np" "$PROG" after 2>&1)
        if [[ $? == 0 ]] && grep -q "after: passed" <<<"$log"; then
            echo "ok   after a mismatch np=$np ($force)"
        else
            echo "FAIL after a mismatch np=$np ($force)"
            grep -v "reduce #" <<<"$log" | tail -n 8 | sed 's/^/    | /'; fail=1
        fi
    done
done

# a partly unreadable root buffer (cma): every rank fails, none hangs, and
# the message names both ranks and how much moved: the reader's read at
# np 3; at np 2 the root writes the buffer's second half into the reader's
# (session 18's split), so its write meets the unreadable end
for np in 2 3; do
    log=$(LOOM_BCAST_ALGORITHM=cma timeout -k 5 40 $RUN -n "$np" "$PROG" efault 2>&1)
    rc=$?
    if ((np == 2)); then
        named="rank 0 writing [0-9]+ bytes to rank 1 \(pid [0-9]+\) with process_vm_writev, [0-9]+ of them written: Bad address"
    else
        named="rank 1 reading [0-9]+ bytes of rank 0 \(pid [0-9]+\) with process_vm_readv, [0-9]+ of them read: Bad address"
    fi
    if [[ $rc == 124 || $rc == 137 ]] || grep -q "efault bcast: success" <<<"$log" ||
       [[ $(grep -c "efault bcast:" <<<"$log") != "$np" ]] || ! grep -Eq "$named" <<<"$log"; then
        echo "FAIL efault np=$np (rc $rc)"; tail -n 8 <<<"$log" | sed 's/^/    | /'; fail=1
    else
        echo "ok   efault np=$np: every rank failed, the copy that failed named"
    fi
done
exit $fail
