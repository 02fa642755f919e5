#!/usr/bin/env bash
# test_mpi_group.sh: the group and communicator-construction programs
# (test/mpi/mpi_group.c, mpi_group_comm.c) under loomrun at 1..8 ranks (odd
# counts and sizes that are not powers of two), and once over self,tcp.
# Each program checks data and error classes itself and exits non-zero on
# the first wrong value. Under a sanitizer build fewer counts run.
#   BUILD=build/release bash test/mpi/test_mpi_group.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi
mdl_require "$loomrun" "$progs"/mpi_group "$progs"/mpi_group_comm
mdl_must_mention="passed on"    # each program's closing line

case $BUILD in
*release-*) counts="1 3 4 7" ;;     # sanitizers: slower, fewer counts
*)          counts="1 2 3 4 5 6 7 8" ;;
esac
for p in group group_comm; do
    run 0 "mpi_$p.singleton" "$progs/mpi_$p"
    for n in $counts; do
        run 0 "mpi_$p.n$n" "$loomrun" -n "$n" "$progs/mpi_$p"
    done
    run 0 "mpi_$p.tcp.n5" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 5 "$progs/mpi_$p"
done

mdl_summary "mpi groups" "(logs in $logdir)"
