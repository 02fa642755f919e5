#!/usr/bin/env bash
# test_mpi_rma_s16.sh: session 16 of the one-sided layer (mpi_rma_s16.c):
# the small requests and their answers as p2p frames, with exact data.
#   chain: random fetch-and-op / get-accumulate / CAS / accumulate / small
#   get chains, checked whole. order: a large put, a small accumulate, a
#   large accumulate, a small accumulate and reads from one origin to one
#   target before a flush apply in that order. press: thousands of frames
#   to a rank that does not progress (back-pressure: they leave as
#   messages behind the queued frames), the fetched values in issue order.
#   mt: two threads per rank (MPI_THREAD_MULTIPLE), the chain check.
# Over CMA windows (atomics by message), LOOM_RMA_CMA=off (shm active
# messages), tcp, Win_allocate over tcp, LOOM_RMA_AM=off (no frames sent),
# np 1 (self) to 4. Sanitizer builds run fewer cases and operations.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s16.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s16
mdl_require "$loomrun" "$progs"/mpi_rma_s16
mdl_must_mention="mpi_rma_s16: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 2 3"; k=100; ko=4; kp=2000 ;;
*)                                 ranks="1 2 3 4"; k=400; ko=10; kp=5000 ;;
esac
prog=$progs/mpi_rma_s16

for n in $ranks; do
    for m in chain order press mt; do
        case $m in order) kk=$ko ;; press) kk=$kp ;; *) kk=$k ;; esac
        run 0 "$m.cma.n$n" timeout 120 "$loomrun" -n "$n" "$prog" "$m" "$kk" create
        run 0 "$m.shm-am.n$n" timeout 120 env LOOM_RMA_CMA=off \
            "$loomrun" -n "$n" "$prog" "$m" "$kk" create
        run 0 "$m.tcp.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp \
            "$loomrun" -n "$n" "$prog" "$m" "$kk" create
    done
done
for m in chain order press; do
    run 0 "$m.tcp-alloc.n3" timeout 120 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n 3 "$prog" "$m" 50 allocate
    run 0 "$m.noframes.n3" timeout 120 env LOOM_RMA_AM=off LOOM_RMA_CMA=off \
        "$loomrun" -n 3 "$prog" "$m" 50 create
done
run 0 chain.singleton timeout 60 "$prog" chain "$k" create

mdl_summary "mpi rma s16" "(logs in $logdir)"
