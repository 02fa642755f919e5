#!/usr/bin/env bash
# test_mpi_rma_rev12.sh: the review of session 12's active-message protocol
# (mpi_rma_rev12.c): a flush under MPI_THREAD_MULTIPLE that must send the
# batch another thread queued while it waited. Over self,tcp (every window
# by active messages, so puts are batched) at np 2.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev12.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev12
mdl_require "$loomrun" "$progs"/mpi_rma_rev12

run 0 mpi_rma_rev12.mtflush.tcp.n2 timeout 40 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 2 "$progs/mpi_rma_rev12" mtflush

mdl_summary "mpi rma rev12" "(logs in $logdir)"
