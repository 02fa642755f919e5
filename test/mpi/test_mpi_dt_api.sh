#!/usr/bin/env bash
# test_mpi_dt_api.sh: the MPI-3.1 datatype calls issue 20 added or fixed
# (test/mpi/mpi_dt_api: MPI_Type_match_size, MPI_Type_create_f90_*,
# external32 of MPI_LONG) at 1-3 ranks and over self,tcp.
#   BUILD=build/release bash test/mpi/test_mpi_dt_api.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_api
mdl_require "$loomrun" "$progs/mpi_dt_api"
mdl_width=30
mdl_log_filter="ERROR (p2p|dt|coll|mpi)"

for n in 1 2 3; do
    run -m "mpi_dt_api: passed on $n ranks" 0 "api.n$n" "$loomrun" -n "$n" "$progs/mpi_dt_api"
done
run -m "mpi_dt_api: passed on 2 ranks" 0 api.tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$progs/mpi_dt_api"

mdl_summary test_mpi_dt_api "(logs in $logdir)"
