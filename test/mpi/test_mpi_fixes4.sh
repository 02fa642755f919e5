#!/usr/bin/env bash
# test_mpi_fixes4.sh: regression test for nonblocking collectives in flight
# together (test/mpi/mpi_fixes4_nbc.c, built by `make mpi-progs`): two
# MPI_Ibcast of one communicator in flight with a skewed start on fresh
# communicators, then Iallreduce, Ibcast, Ibarrier and Iallgather in flight
# around blocking collectives and point-to-point; data checked exactly.
# Runs at 3-7 ranks over self,tcp (where the defect hung or reported a
# mismatch) and over the default transports (where the 16 KiB bcasts took
# the same path and failed with truncation); the log must carry no coll or
# p2p error line. Also the same bcasts forced to mcast and to binomial, and
# a few rounds under loomrun --timeout (a hang prints what ranks wait for).
# Under a sanitizer build ($BUILD names it) fewer sizes and rounds run.
#   BUILD=build/release bash test/mpi/test_mpi_fixes4.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_fixes4
prog=$BUILD/test/mpi/mpi_fixes4_nbc
mdl_require "$loomrun" "$prog"
mdl_timeout=60
mdl_log_filter="^loomrun"

case $BUILD in
*address*|*thread*) sizes="3 5"; rounds=6 ;;
*)                  sizes="3 4 5 6 7"; rounds=48 ;;
esac

# nbc_run <log name> <ranks> <env...>: must pass with no error line
nbc_run() {
    local name=$1 n=$2
    shift 2
    run -m "mpi_fixes4_nbc: passed on $n ranks" -x "ERROR" 0 "$name" \
        env "$@" "$loomrun" --timeout 40 -n "$n" "$prog" "$rounds"
}

for n in $sizes; do
    nbc_run "tcp.n$n" "$n" LOOM_TRANSPORTS=self,tcp
    nbc_run "default.n$n" "$n"
done
nbc_run "tcp.mcast.n5" 5 LOOM_TRANSPORTS=self,tcp LOOM_BCAST_ALGORITHM=mcast
nbc_run "tcp.binomial.n4" 4 LOOM_TRANSPORTS=self,tcp LOOM_BCAST_ALGORITHM=binomial

mdl_summary "mpi fixes4" "(logs in $logdir)"
