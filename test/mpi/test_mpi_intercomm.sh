#!/usr/bin/env bash
# test_mpi_intercomm.sh: the intercommunicator program
# (test/mpi/mpi_intercomm.c) under loomrun at 1..8 ranks (odd
# counts and sizes that are not powers of two), and once over self,tcp.
# Each program checks data and error classes itself and exits non-zero on
# the first wrong value. Under a sanitizer build fewer counts run.
#   BUILD=build/release bash test/mpi/test_mpi_intercomm.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi
mdl_require "$loomrun" "$progs"/mpi_intercomm
mdl_must_mention="passed on"    # the program's closing line

case $BUILD in
*release-*) counts="2 3 7" ;;     # sanitizers: slower, fewer counts
*)          counts="1 2 3 4 5 6 7 8" ;;
esac
run 0 mpi_intercomm.singleton "$progs/mpi_intercomm"
for n in $counts; do
    run 0 "mpi_intercomm.n$n" "$loomrun" -n "$n" "$progs/mpi_intercomm"
done
run 0 mpi_intercomm.tcp.n5 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 5 "$progs/mpi_intercomm"

mdl_summary "mpi intercomm" "(logs in $logdir)"
