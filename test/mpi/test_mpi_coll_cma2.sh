#!/usr/bin/env bash
# test_mpi_coll_cma2.sh: the large on-node collectives of session 11
# (bcast stage/cma, reduce cma, allgather cma; docs/collectives.md) through
# the MPI binding with derived datatypes (test/mpi/mpi_coll_cma2.c):
# contiguous types (bytes: the cma paths) and strided vectors (the
# binding's packing path), roots 0, p-1, p/2, MPI_IN_PLACE; with the table
# and with the algorithms forced, np 1-8 (fewer under a sanitizer).
#   BUILD=build/release bash test/mpi/test_mpi_coll_cma2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_coll_cma2
prog=$BUILD/test/mpi/mpi_coll_cma2
mdl_require "$loomrun" "$prog"
mdl_width=36
mdl_timeout=60

case $BUILD in
*address* | *thread* | *undefined*) nps="2 3" ;;
*) nps="1 2 3 4 5 8" ;;
esac
ok="mpi_coll_cma2: passed"
for n in $nps; do
    run -m "$ok" 0 "table.n$n" "$loomrun" -n $n "$prog"
    run -m "$ok" 0 "cma.n$n" env LOOM_BCAST_ALGORITHM=cma LOOM_REDUCE_ALGORITHM=cma \
        LOOM_ALLGATHER_ALGORITHM=cma "$loomrun" -n $n "$prog"
done
run -m "$ok" 0 "stage.n4" env LOOM_BCAST_ALGORITHM=stage "$loomrun" -n 4 "$prog"
run -m "$ok" 0 "deterministic.n4" env LOOM_DETERMINISTIC=1 "$loomrun" -n 4 "$prog"

mdl_summary "mpi coll cma2" "(logs in $logdir)"
