#!/usr/bin/env bash
# test_mpi_dt_fill.sh: typed rendezvous sends over tcp packed as tcp reads
# them (session 20, docs/p2p.md "Derived datatypes"): runs
# test/mpi/mpi_dt_fill (the type freed right after the send, eight sends
# at once to one peer, contiguous and truncated receives, a persistent
# send started three times, a cancelled send, Issend; every cell checked)
# over self,tcp on 2 and 3 ranks, and checks the debug log names the
# path. Under a sanitizer build ($BUILD names it) the program leaves out
# its largest size.
#   BUILD=build/release bash test/mpi/test_mpi_dt_fill.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_fill
mdl_require "$loomrun" "$progs/mpi_dt_fill"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small ;;
*)                  arg="" ;;
esac

run -m "mpi_dt_fill: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp LOOM_LOG=debug:p2p "$loomrun" -n 2 "$progs/mpi_dt_fill" $arg
run -m "mpi_dt_fill: passed on 3 ranks" 0 tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_dt_fill" $arg
run -m "mpi_dt_fill: passed on 2 ranks" 0 shm.n2 "$loomrun" -n 2 "$progs/mpi_dt_fill" $arg
expect_log tcp.n2 "packed as tcp reads it"

mdl_summary test_mpi_dt_fill "(logs in $logdir)"
