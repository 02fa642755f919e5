#!/usr/bin/env bash
# test_mpi_rma2.sh: issue 23 stage 2 (mpi_rma2.c): the shared-segment fast
# path (contiguous put/get with disp units, a true lower bound, odd sizes;
# its range and epoch errors; Get_accumulate with result == origin), the
# exact fetch-and-op permutation (every fetched value of a target over all
# ranks is 0..n-1 once) and a CAS spin lock guarding a get/put increment,
# on Win_allocate (direct) and Win_create (CMA, or active messages)
# windows, at np 1..8 and over self,tcp; passive target on a rank that
# makes no MPI call (direct windows; CMA ones under LOOM_RMA_CMA=passive or
# LOOM_RMA_CMA_MSG=0). Also mpi_rma.c (every call and sync mode) at np
# 6..8 and with LOOM_RMA_CMA=acc. Sanitizer builds run fewer ranks and
# rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma2
mdl_require "$loomrun" "$progs"/mpi_rma2 "$progs"/mpi_rma

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 2 5"; iters=40; big="" ;;
*)                                 ranks="1 2 3 4 5 6 7 8"; iters=200; big="6 7 8" ;;
esac

run 0 mpi_rma2.singleton timeout 60 "$progs/mpi_rma2" "$iters"
# default transports: Win_allocate in a segment, so the target needs no
# progress ("noprogress"), Win_create by CMA with puts and gets of at most
# 4 KiB by message; LOOM_RMA_CMA=passive (or acc): every put, get and
# accumulate by CMA, so those windows need none either
# ("noprogress-create"), as with LOOM_RMA_CMA_MSG=0 for a test without
# accumulates; =off: Win_create by active messages
for n in $ranks; do
    run 0 "mpi_rma2.n$n" timeout 90 "$loomrun" -n "$n" "$progs/mpi_rma2" "$iters" noprogress
done
for n in 2 4; do
    run 0 "mpi_rma2.cma_passive.n$n" timeout 90 env LOOM_RMA_CMA=passive \
        "$loomrun" -n "$n" "$progs/mpi_rma2" "$iters" noprogress-create
    run 0 "mpi_rma2.cma_msg0.n$n" timeout 90 env LOOM_RMA_CMA_MSG=0 \
        "$loomrun" -n "$n" "$progs/mpi_rma2" "$iters" noprogress-create
    run 0 "mpi_rma2.cma_off.n$n" timeout 90 env LOOM_RMA_CMA=off \
        "$loomrun" -n "$n" "$progs/mpi_rma2" "$iters"
done
for n in 2 3; do
    run 0 "mpi_rma2.tcp.n$n" timeout 90 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma2" "$iters"
done

# mpi_rma.c (every call and synchronization mode, test_mpi_rma.sh runs it
# at np 1..5) at np 6..8, and with accumulates by CMA read-modify-write
for n in $big; do
    run 0 "mpi_rma.n$n" timeout 90 "$loomrun" -n "$n" "$progs/mpi_rma" "$iters"
done
run 0 mpi_rma.cma_acc.n3 timeout 90 env LOOM_RMA_CMA=acc "$loomrun" -n 3 "$progs/mpi_rma" "$iters"

mdl_summary "mpi rma2" "(logs in $logdir)"
