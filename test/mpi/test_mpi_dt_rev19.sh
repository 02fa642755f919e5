#!/usr/bin/env bash
# test_mpi_dt_rev19.sh: the review of session 19's typed sends to the rank
# itself (LOOM_P2P_RTS_SELF): runs test/mpi/mpi_dt_rev19 (a cancelled
# self send, its request and type freed before the receive, persistent
# requests, Mprobe/Mrecv/Improbe/Imrecv, Sendrecv_replace and Bsend,
# shorter, longer and empty receives, resized columns with a lower bound
# and with a negative extent, MPI_BOTTOM, a struct array, two threads, a
# self send left for MPI_Finalize) on one and two ranks, with and without
# the self transport and over tcp, and checks the debug log says the path
# was taken.
#   BUILD=build/release bash test/mpi/test_mpi_dt_rev19.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_rev19
mdl_require "$loomrun" "$progs/mpi_dt_rev19"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

run -m "mpi_dt_rev19: passed on 1 ranks" 0 self.n1 \
    env LOOM_LOG=debug:p2p "$loomrun" -n 1 "$progs/mpi_dt_rev19"
run -m "mpi_dt_rev19: passed on 2 ranks" 0 shm.n2 "$loomrun" -n 2 "$progs/mpi_dt_rev19"
run -m "mpi_dt_rev19: passed on 1 ranks" 0 noself.n1 \
    env LOOM_TRANSPORTS=shm LOOM_LOG=debug:p2p "$loomrun" -n 1 "$progs/mpi_dt_rev19"
run -m "mpi_dt_rev19: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=tcp "$loomrun" -n 2 "$progs/mpi_dt_rev19"
expect_log self.n1 "to rank 0 not packed: to this process" "moved in one pass" \
    "through a bounce (the layouts overlap)" "truncated to the"
expect_log noself.n1 "not packed: to this process" "moved in one pass"

mdl_summary test_mpi_dt_rev19 "(logs in $logdir)"
