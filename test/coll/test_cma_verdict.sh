#!/usr/bin/env bash
# test_cma_verdict.sh: large nonblocking allreduces posted while the ranks
# differ in what they know of the CMA verdict (prog_cma_verdict.c), under
# LOOM_SHM_CMA=off, at 2 and 3 ranks. Every call must take the same
# on-node operation number on every rank whatever a rank knew when it
# posted it; else the small on-node collectives after them pair different
# operations (a mismatch report, wrong data or a hang). Each np runs with the
# table (which skips cma when ranks outnumber cores: np 3 on 2 cores) and
# with cma forced (which runs it whatever the cores).
#   BUILD=build/release bash test/coll/test_cma_verdict.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_cma_verdict
RUN="$BUILD/bin/loomrun -q --timeout 30"
export LOOM_ERRORS=return
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
for np in 2 3; do
  for alg in "" cma; do
    log=$(LOOM_SHM_CMA=off LOOM_ALLREDUCE_ALGORITHM=$alg timeout -k 5 45 \
          $RUN -n "$np" "$PROG" 2>&1)
    if [[ $? == 0 ]] && grep -q "prog_cma_verdict: passed" <<<"$log"; then
        echo "ok   np=$np LOOM_SHM_CMA=off ${alg:+LOOM_ALLREDUCE_ALGORITHM=$alg}"
    else
        echo "FAIL np=$np LOOM_SHM_CMA=off ${alg:+LOOM_ALLREDUCE_ALGORITHM=$alg}"
        tail -n 15 <<<"$log" | sed 's/^/    | /'
        fail=1
    fi
  done
done
exit $fail
