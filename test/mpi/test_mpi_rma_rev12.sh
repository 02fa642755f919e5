#!/usr/bin/env bash
# test_mpi_rma_rev12.sh: the review of session 12's active-message protocol
# (mpi_rma_rev12.c): a flush under MPI_THREAD_MULTIPLE that must send the
# batch another thread queued while it waited; two threads per rank sharing
# one lock_all epoch's batches (puts, accumulates, flushes; TSan checks the
# engine lock covers the queues). Over self,tcp (every window by active
# messages, so puts are batched) at np 2 and 3, and mtstress over the
# default transports; exclusive locks of rank 0 (by itself too) mixed with
# lock_all readers (mixlock) at np 1, 3, 4 over self,tcp and np 3 over the
# default transports. Sanitizer builds run fewer rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev12.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev12
mdl_require "$loomrun" "$progs"/mpi_rma_rev12

case "$BUILD" in
*-address*|*-thread*|*-undefined*) k=10 ;;
*)                                 k=50 ;;
esac

run 0 mpi_rma_rev12.mtflush.tcp.n2 timeout 40 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 2 "$progs/mpi_rma_rev12" mtflush
for n in 2 3; do
    run 0 "mpi_rma_rev12.mtstress.tcp.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma_rev12" mtstress "$k"
done
run 0 mpi_rma_rev12.mtstress.n3 timeout 60 "$loomrun" -n 3 "$progs/mpi_rma_rev12" mtstress "$k"
for n in 1 3 4; do
    run 0 "mpi_rma_rev12.mixlock.tcp.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma_rev12" mixlock "$k"
done
run 0 mpi_rma_rev12.mixlock.n3 timeout 60 "$loomrun" -n 3 "$progs/mpi_rma_rev12" mixlock "$k"

mdl_summary "mpi rma rev12" "(logs in $logdir)"
