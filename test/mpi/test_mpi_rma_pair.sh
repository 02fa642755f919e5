#!/usr/bin/env bash
# test_mpi_rma_pair.sh: one-sided calls on the value+index pair types
# (MPI_DOUBLE_INT & co.) land whole C structs at the target and reduce them
# with MPI_MAXLOC/MPI_MINLOC (ties: the lower index), session 20: runs
# test/mpi/mpi_rma_pair (every pair type; put/get, accumulate MAXLOC and
# MINLOC from every rank, MPI_REPLACE, get_accumulate with MAXLOC, MINLOC,
# MPI_REPLACE and MPI_NO_OP, fetch_and_op; disp units 1 and the struct's
# size; fence and lock; counts 1 to 300) on Win_create and Win_allocate
# windows: over shm on the default paths (CMA window, shared segment), by
# active messages (LOOM_RMA_CMA=off), by the origin's read-modify-write
# (LOOM_RMA_CMA=passive), and over self,tcp, at 1-4 ranks. Sanitizer
# builds run fewer ranks.
#   BUILD=build/release bash test/mpi/test_mpi_rma_pair.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_pair
mdl_require "$loomrun" "$progs/mpi_rma_pair"
mdl_must_mention="mpi_rma_pair: passed on"
prog=$progs/mpi_rma_pair

case $BUILD in
*address*|*thread*|*undefined*) shm_ranks="2 3"; tcp_ranks="2" ;;
*)                              shm_ranks="2 3 4"; tcp_ranks="2 3 4" ;;
esac

for n in $shm_ranks; do
    run 0 "shm.n$n" "$loomrun" -n "$n" "$prog"
done
for n in $tcp_ranks; do
    run 0 "tcp.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog"
done
run 0 shm-am.create.n2 env LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" create
run 0 cma-passive.create.n3 env LOOM_RMA_CMA=passive "$loomrun" -n 3 "$prog" create
run 0 singleton timeout 60 "$prog"

mdl_summary "mpi rma pair" "(logs in $logdir)"
