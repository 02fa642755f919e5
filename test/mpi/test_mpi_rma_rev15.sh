#!/usr/bin/env bash
# test_mpi_rma_rev15.sh: the review of session 15's one-sided shortcuts
# (mpi_rma_rev15.c): small puts and accumulates built on the stack, short
# integer accumulates applied element by element, the idle progress pass.
#   errs: ops not defined on the type, ranges (negative, wrapping, past the
#   end, an empty window), type mismatch, epoch, MPI_PROC_NULL, count 0 at
#   an empty window. data: self, REPLACE/NO_OP, unaligned int32/int64 SUMs,
#   negative true lower bound, dynamic window. order: small and large
#   accumulates on the same words, exact. passive: a target that only tests
#   a receive still serves every lock and accumulate. mt: two threads per
#   rank (MPI_THREAD_MULTIPLE) through the small-request shortcuts at once.
# Over CMA windows whose accumulates go by message (default),
# LOOM_RMA_CMA=off, LOOM_RMA_CMA=acc, tcp, and Win_allocate.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev15.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev15
mdl_require "$loomrun" "$progs"/mpi_rma_rev15
mdl_must_mention="mpi_rma_rev15: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="3" ;;
*)                                 ranks="2 3" ;;
esac
prog=$progs/mpi_rma_rev15

for n in $ranks; do
    for m in errs data order passive mt; do
        for f in create allocate; do
            run 0 "$m.cma.$f.n$n" timeout 60 "$loomrun" -n "$n" "$prog" "$m" "$f"
            run 0 "$m.shm-am.$f.n$n" timeout 60 env LOOM_RMA_CMA=off \
                "$loomrun" -n "$n" "$prog" "$m" "$f"
            run 0 "$m.tcp.$f.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
                "$loomrun" -n "$n" "$prog" "$m" "$f"
        done
        run 0 "$m.cma-acc.n$n" timeout 60 env LOOM_RMA_CMA=acc \
            "$loomrun" -n "$n" "$prog" "$m" create
    done
done

mdl_summary "mpi rma rev15" "(logs in $logdir)"
