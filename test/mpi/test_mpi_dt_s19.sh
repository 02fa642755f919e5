#!/usr/bin/env bash
# test_mpi_dt_s19.sh: typed sends from a rank to itself with small pieces,
# not packed since session 19 (LOOM_P2P_RTS_SELF: the receive copies from
# the send's layout, in one pass for the same type): runs
# test/mpi/mpi_dt_s19 (columns into columns of the same type, of a twin
# handle of one layout and of other types, rows cut at other places,
# overlapping layouts, contiguous receives, truncation, a negative stride,
# a struct array, Sendrecv, Issend and Probe; every cell checked) on one
# and two ranks, with the self transport left out (the send to itself then
# goes through shm's key) and over self,tcp, and checks the debug log says
# the path was taken. Under a sanitizer build ($BUILD names it) the
# program leaves out its largest size.
#   BUILD=build/release bash test/mpi/test_mpi_dt_s19.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_s19
mdl_require "$loomrun" "$progs/mpi_dt_s19"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small ;;
*)                  arg="" ;;
esac

run -m "mpi_dt_s19: passed on 1 ranks" 0 self.n1 \
    env LOOM_LOG=debug:p2p "$loomrun" -n 1 "$progs/mpi_dt_s19" $arg
run -m "mpi_dt_s19: passed on 2 ranks" 0 shm.n2 "$loomrun" -n 2 "$progs/mpi_dt_s19" $arg
run -m "mpi_dt_s19: passed on 2 ranks" 0 noself.n2 \
    env LOOM_TRANSPORTS=shm LOOM_LOG=debug:p2p "$loomrun" -n 2 "$progs/mpi_dt_s19" $arg
run -m "mpi_dt_s19: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$progs/mpi_dt_s19" $arg
# the sends to self were not packed, the receives took each way (one pass
# for one layout, a bounce for two or for overlapping spans), and the
# truncation names both ends
expect_log self.n1 "to rank 0 not packed: to this process" "moved in one pass" \
    "through a bounce (two layouts)" "through a bounce (the layouts overlap)" \
    "piece to piece (two layouts)" \
    "truncated to the"
expect_log noself.n2 "not packed: to this process"

mdl_summary test_mpi_dt_s19 "(logs in $logdir)"
