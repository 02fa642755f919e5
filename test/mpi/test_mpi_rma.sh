#!/usr/bin/env bash
# test_mpi_rma.sh: MPI one-sided communication. mpi_rma.c: every call and
# synchronization mode, the randomized accumulate stress and the lock
# contention, at np 1..5 over the default transports and at np 2 and 4
# over self,tcp. mpi_rma_big.c: rendezvous-sized transfers, accumulate
# ordering, a target blocked in MPI_Recv, shared-window contention, the
# deferred range error, at np 1..5 and over self,tcp. mpi_rma_err.c: error
# paths leak no lock and hang no rank (op checked at the origin, errors
# kept per target, Win_free with an error pending or inside an epoch), at
# np 1..5 and over self,tcp. Sanitizer builds run
# fewer ranks, stress rounds and megabytes.
#   BUILD=build/release bash test/mpi/test_mpi_rma.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma
mdl_require "$loomrun" "$progs"/mpi_rma "$progs"/mpi_rma_big "$progs"/mpi_rma_err

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 3 4"; iters=100; mb=1 ;;
*)                                 ranks="1 2 3 4 5"; iters=400; mb=4 ;;
esac

run 0 mpi_rma.singleton timeout 60 "$progs/mpi_rma" "$iters"
for n in $ranks; do
    run 0 "mpi_rma.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_rma" "$iters"
done
for n in 2 4; do
    run 0 "mpi_rma.tcp.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma" "$iters"
done
for n in $ranks; do
    run 0 "mpi_rma_big.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_rma_big" "$mb"
done
run 0 mpi_rma_big.tcp.n3 timeout 60 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 3 "$progs/mpi_rma_big" "$mb"
for n in $ranks; do
    run 0 "mpi_rma_err.n$n" timeout 30 "$loomrun" -n "$n" "$progs/mpi_rma_err"
done
for n in 2 3; do
    run 0 "mpi_rma_err.tcp.n$n" timeout 30 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma_err"
done

mdl_summary "mpi rma" "(logs in $logdir)"
