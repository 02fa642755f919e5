#!/usr/bin/env bash
# test_mpi_dt_coll2.sh: every collective with non-contiguous derived types
# (issue 20, the collectives refused before): test/mpi/mpi_dt_coll2_move
# (alltoallw, nonblocking v-forms, intercomm and neighbourhood collectives
# on a cart and a graph) and mpi_dt_coll2_red (scan family,
# reduce_scatter(_block), a non-commutative user op on derived types,
# MINLOC/MAXLOC on a vector of MPI_DOUBLE_INT, intercomm reductions) under
# loomrun at 1-5 ranks, and at 3 ranks over self,tcp. Under a sanitizer
# build ($BUILD names it) 1-3 ranks only.
#   BUILD=build/release bash test/mpi/test_mpi_dt_coll2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_coll2
mdl_require "$loomrun" "$progs/mpi_dt_coll2_move" "$progs/mpi_dt_coll2_red"
mdl_width=30
mdl_log_filter="ERROR (p2p|dt|coll)"

case $BUILD in
*address*|*thread*) sizes="1 2 3" ;;
*)                  sizes="1 2 3 4 5" ;;
esac

for n in $sizes; do
    for p in move red; do
        run -m "mpi_dt_coll2_$p: passed on $n ranks" 0 "$p.n$n" \
            "$loomrun" -n "$n" "$progs/mpi_dt_coll2_$p"
    done
done
for p in move red; do
    run -m "mpi_dt_coll2_$p: passed on 3 ranks" 0 "$p.tcp.n3" \
        env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_dt_coll2_$p"
done

mdl_summary test_mpi_dt_coll2 "(logs in $logdir)"
