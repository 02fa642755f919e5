#!/usr/bin/env bash
# test_mpi_dt_s14.sh: the typed paths session 14 changed (docs/p2p.md
# "Derived datatypes"): runs test/mpi/mpi_dt_s14 (ten 3-D halo faces in
# flight each way at once, round after round, at eager, rendezvous and
# pipelined sizes: more pipelined copies than the engine keeps, and kept
# copies reused with new values; hundreds of small typed messages between
# one pair, through its fast box; each face received with another type of
# the same signature, with MPI_ANY_SOURCE, as triples for
# MPI_Get_count/MPI_Get_elements, and truncated; every byte checked) on
# one rank, over shared memory at 2-4 ranks, with CMA off, and over
# self,tcp at 2-4 ranks. Under a sanitizer build ($BUILD names it) the
# program leaves out its largest size and most of its small rounds.
#   BUILD=build/release bash test/mpi/test_mpi_dt_s14.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_s14
mdl_require "$loomrun" "$progs/mpi_dt_s14"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small ;;
*)                  arg="" ;;
esac

for n in 1 2 3 4; do
    run -m "mpi_dt_s14: passed on $n ranks" 0 "shm.n$n" "$loomrun" -n "$n" "$progs/mpi_dt_s14" $arg
done
run -m "mpi_dt_s14: passed on 2 ranks" 0 shm.cma_off.n2 \
    env LOOM_SHM_CMA=off "$loomrun" -n 2 "$progs/mpi_dt_s14" $arg
for n in 2 3 4; do
    run -m "mpi_dt_s14: passed on $n ranks" 0 "tcp.n$n" \
        env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$progs/mpi_dt_s14" $arg
done
# the truncation was reported with both ends named
expect_log shm.n2 "truncated to the" "from rank"

mdl_summary test_mpi_dt_s14 "(logs in $logdir)"
