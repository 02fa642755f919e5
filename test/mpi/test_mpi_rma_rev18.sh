#!/usr/bin/env bash
# test_mpi_rma_rev18.sh: the review of session 18's one-sided change
# (mpi_rma_rev18.c).
#   noop: MPI_Accumulate with MPI_NO_OP, small and large, batched behind a
#   LOCK and between SUMs, under lock, lock_all (an Raccumulate too) and
#   fence, to the next rank and to itself: every call MPI_SUCCESS, the
#   window exactly the SUMs (a batched no-op was refused as malformed:
#   MPI_ERR_ARG at the flush). Over self,tcp for Win_create, Win_allocate
#   and dynamic windows; over shm by active messages (LOOM_RMA_CMA=off), on
#   the default paths (CMA window, shared segment) and with CMA accumulates
#   (LOOM_RMA_CMA=passive); and a singleton.
# Sanitizer builds run fewer ranks.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev18.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev18
mdl_require "$loomrun" "$progs"/mpi_rma_rev18
mdl_must_mention="mpi_rma_rev18: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; shm_ranks="2" ;;
*)                                 tcp_ranks="1 2 3 4"; shm_ranks="2 3" ;;
esac
prog=$progs/mpi_rma_rev18

for n in $tcp_ranks; do
    for f in create allocate dynamic; do
        run 0 "noop.tcp.$f.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" noop "$f"
    done
done
for n in $shm_ranks; do
    for f in create dynamic; do
        run 0 "noop.shm-am.$f.n$n" env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" noop "$f"
    done
    for f in create allocate; do
        run 0 "noop.shm.$f.n$n" "$loomrun" -n "$n" "$prog" noop "$f"
    done
    run 0 "noop.shm-cma-acc.create.n$n" env LOOM_RMA_CMA=passive "$loomrun" -n "$n" "$prog" noop create
done
run 0 noop.singleton "$prog" noop create

mdl_summary "mpi rma rev18" "(logs in $logdir)"
