#!/usr/bin/env bash
# test_mpi_rev14b.sh: review of session 14 (mpi_rev14b.c).
#   rsfirst: Ireduce_scatter_block posted while the communicator's segment
#   is set up on some ranks and ready on others: every rank must select the
#   same algorithm (np 2: the table's 32-byte ring rule; np 3, 4: shm).
#   BUILD=build/release bash test/mpi/test_mpi_rev14b.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rev14b
mdl_require "$loomrun" "$progs"/mpi_rev14b
mdl_must_mention="passed on"
prog=$progs/mpi_rev14b

for n in 2 3 4; do
    run 0 "rsfirst.n$n" timeout 30 "$loomrun" -n "$n" --timeout 20 "$prog" rsfirst
done

mdl_summary "mpi rev14b" "(logs in $logdir)"
