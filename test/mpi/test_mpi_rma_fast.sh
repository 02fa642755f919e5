#!/usr/bin/env bash
# test_mpi_rma_fast.sh: the MPI binding's inline one-sided path
# (mpi_rma_fast.c): epoch and range errors through it, every inline element
# operation with a known result, and no lost update when inline
# fetch-and-op / accumulate race general-path accumulates from every rank,
# on Win_allocate, Win_allocate_shared and Win_create windows, at np 1..4,
# with LOOM_RMA_CMA=acc (Win_create accumulates by CMA) and over self,tcp
# (no segment: the general path must give the same answers). Sanitizer
# builds run fewer ranks and rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_fast.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_fast
mdl_require "$loomrun" "$progs"/mpi_rma_fast

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 3"; iters=40 ;;
*)                                 ranks="1 2 3 4"; iters=300 ;;
esac

run 0 mpi_rma_fast.singleton timeout 60 "$progs/mpi_rma_fast" "$iters"
for n in $ranks; do
    run 0 "mpi_rma_fast.n$n" timeout 90 "$loomrun" -n "$n" "$progs/mpi_rma_fast" "$iters"
done
run 0 mpi_rma_fast.cma_acc.n3 timeout 90 env LOOM_RMA_CMA=acc \
    "$loomrun" -n 3 "$progs/mpi_rma_fast" "$iters"
run 0 mpi_rma_fast.tcp.n3 timeout 90 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 3 "$progs/mpi_rma_fast" "$iters"

mdl_summary "mpi rma fast" "(logs in $logdir)"
