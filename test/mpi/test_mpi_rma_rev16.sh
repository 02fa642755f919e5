#!/usr/bin/env bash
# test_mpi_rma_rev16.sh: the review of session 16's one-sided frames
# (mpi_rma_rev16.c).
#   death: the target is killed with a fetch-and-op and a small get (both
#   answered by a REPLY naming an id) and a lock unserved: the origin's
#   flush fails with the peer's error instead of waiting for ever. Over CMA
#   windows (atomics by message), LOOM_RMA_CMA=off, tcp, Win_allocate over
#   tcp.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev16.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev16
mdl_require "$loomrun" "$progs"/mpi_rma_rev16
prog=$progs/mpi_rma_rev16

# rank 1 dies (137); rank 0 must print its line before loomrun stops it
run -m "death: flush failed with class" 137 death.cma \
    env LOOM_ERRORS=return "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.shm-am \
    env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.tcp \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.tcp-alloc \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death allocate
expect_log death.shm-am "awaiting its reply (id 1, 8 bytes) from rank 1, which failed"

mdl_summary "mpi rma rev16" "(logs in $logdir)"
