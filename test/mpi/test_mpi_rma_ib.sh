#!/usr/bin/env bash
# test_mpi_rma_ib.sh: mpi_rma_ib.c (the checks of the verbs RDMA windows,
# rma/rma_ib.c) on this host, where no transport offers one-sided ops:
# the same answers must come from the shared segment and CMA (default
# transports) and from the active-message fallback (self,tcp). The RDMA
# path itself runs in the soft-RoCE guest (test/verbs/run.sh, steps rma-*).
# "noprogress" (a target making no MPI call) only where no message is
# needed: shared memory, CMA windows with LOOM_RMA_CMA=acc. Sanitizer
# builds run fewer rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_ib.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_ib
mdl_require "$loomrun" "$progs"/mpi_rma_ib

# Sanitizer builds skip the misaligned int64 accumulate: UBSan reports the
# shared-memory/message paths' reduce on it (collectives/op.c), not ours.
case "$BUILD" in
*-address*|*-thread*|*-undefined*) iters=20; export MPI_RMA_IB_MISALIGNED=0 ;;
*)                                 iters=100 ;;
esac

run 0 mpi_rma_ib.singleton timeout 60 "$progs/mpi_rma_ib" "$iters"
for n in 2 3; do
    run 0 "mpi_rma_ib.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_rma_ib" "$iters"
    run 0 "mpi_rma_ib.tcp.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma_ib" "$iters"
done
run 0 mpi_rma_ib.noprogress.n3 timeout 90 env LOOM_RMA_CMA=acc \
    "$loomrun" -n 3 "$progs/mpi_rma_ib" "$iters" noprogress

mdl_summary "mpi rma ib" "(logs in $logdir)"
