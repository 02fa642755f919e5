#!/usr/bin/env bash
# test_mpi_review10.sh: defects found reviewing issue 20 (dtcma: typed
# rendezvous without a pack) and issue 23 stage 2 (rma2), one program each
# (mpi_review10_rma.c, mpi_review10_dt.c): LOOM_RMA_CMA differing per rank
# at Win_create, disp x disp_unit overflowing 64 bits on the RMA paths;
# typed sends not packed from MPI_BOTTOM, with overlapping pieces, cancelled
# with their piece array exposed, persistent and synchronous (regressions:
# those passed), over shm, shm without CMA and tcp.
#   BUILD=build/release bash test/mpi/test_mpi_review10.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_review10
mdl_require "$loomrun" "$progs"/mpi_review10_rma "$progs"/mpi_review10_dt

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="2 3" ;;
*)                                 ranks="1 2 4" ;;
esac

for n in $ranks; do
    run 0 "rma.envmix.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_review10_rma" envmix
    run 0 "rma.overflow.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_review10_rma" overflow
done
run 0 rma.overflow.tcp.n2 timeout 60 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 2 "$progs/mpi_review10_rma" overflow
run 0 dt.shm.n2 timeout 60 "$loomrun" -n 2 "$progs/mpi_review10_dt"
run 0 dt.nocma.n2 timeout 60 env LOOM_SHM_CMA=off "$loomrun" -n 2 "$progs/mpi_review10_dt"
run 0 dt.tcp.n3 timeout 60 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_review10_dt"

mdl_summary "mpi review10" "(logs in $logdir)"
