#!/usr/bin/env bash
# test_mpi_dt_rev13.sh: the review of session 13's double bounce (a typed
# receive over tcp of more than one 1 MiB bounce, p2p_rndv.c
# loom_p2p_rndv_get_ahead): runs test/mpi/mpi_dt_rev13 (messages on the
# chunk edges, P + 1 MiB + 1 to P + 3 MiB - 1 for P = 0 and P = tcp's
# push, received into a vector of single bytes: plain, MPI_ANY_SOURCE,
# truncated mid-chunk and at a chunk's end, posted after the RTS arrived;
# every byte and gap checked) over self,tcp
# at 2 and 3 ranks (each rank sends and receives at once), and on one rank
# and over shared memory for comparison. The same sizes under ASan (a few
# MB each); under TSan only those past tcp's push.
#   BUILD=build/release bash test/mpi/test_mpi_dt_rev13.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_rev13
mdl_require "$loomrun" "$progs/mpi_dt_rev13"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*thread*) arg=small ;;
*)        arg="" ;;
esac

for n in 2 3; do
    run -m "mpi_dt_rev13: passed on $n ranks" 0 "tcp.n$n" \
        env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$progs/mpi_dt_rev13" $arg
done
run -m "mpi_dt_rev13: passed on 1 ranks" 0 self.n1 "$loomrun" -n 1 "$progs/mpi_dt_rev13" $arg
run -m "mpi_dt_rev13: passed on 2 ranks" 0 shm.n2 "$loomrun" -n 2 "$progs/mpi_dt_rev13" $arg
# the truncations were reported with both ends named
expect_log tcp.n2 "truncated to the" "from rank"

mdl_summary test_mpi_dt_rev13 "(logs in $logdir)"
