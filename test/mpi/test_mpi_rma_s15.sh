#!/usr/bin/env bash
# test_mpi_rma_s15.sh: session 15 of the one-sided layer (mpi_rma_s15.c):
# atomicity and ordering of the small one-sided requests under load, with
# exact data.
#   chain: random fetch-and-op / get-accumulate / CAS increments (every
#   fetched old value logged, the chains checked whole at rank 0) and
#   accumulates (exact totals) from every rank to random targets, random
#   flushes. lockc: exclusive-lock read-modify-writes (get, flush, put) on
#   one counter, mostly at rank 0, and shared-lock fetch-and-ops: both
#   exact. mt: MPI_THREAD_MULTIPLE, two threads per rank, fetch-and-op +
#   flush, the same chain check. small: puts and accumulates of 1..512
#   contiguous bytes (the request built on the stack) through a target
#   type with a true lower bound, origin buffers scribbled over after each
#   call, every byte checked; range and epoch errors.
# Each over CMA windows whose atomics go by active message (default),
# LOOM_RMA_CMA=acc, LOOM_RMA_CMA=off, tcp, and Win_allocate in a shared
# segment; np 2..4. Sanitizer builds run fewer cases and fewer operations.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s15.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s15
mdl_require "$loomrun" "$progs"/mpi_rma_s15
mdl_must_mention="mpi_rma_s15: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="2 3"; k=100 ;;
*)                                 ranks="2 3 4"; k=400 ;;
esac
prog=$progs/mpi_rma_s15

for n in $ranks; do
    for m in chain lockc mt; do
        run 0 "$m.cma.n$n" timeout 120 "$loomrun" -n "$n" "$prog" "$m" "$k" create
        run 0 "$m.cma-acc.n$n" timeout 120 env LOOM_RMA_CMA=acc \
            "$loomrun" -n "$n" "$prog" "$m" "$k" create
        run 0 "$m.shm-am.n$n" timeout 120 env LOOM_RMA_CMA=off \
            "$loomrun" -n "$n" "$prog" "$m" "$k" create
        run 0 "$m.tcp.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp \
            "$loomrun" -n "$n" "$prog" "$m" "$k" create
        run 0 "$m.shared.n$n" timeout 120 "$loomrun" -n "$n" "$prog" "$m" "$k" allocate
    done
done
for n in $ranks; do
    run 0 "small.cma.n$n" timeout 120 "$loomrun" -n "$n" "$prog" small 1 create
    run 0 "small.shm-am.n$n" timeout 120 env LOOM_RMA_CMA=off \
        "$loomrun" -n "$n" "$prog" small 1 create
    run 0 "small.tcp.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$prog" small 1 create
    run 0 "small.tcp-alloc.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$prog" small 1 allocate
    run 0 "small.shared.n$n" timeout 120 "$loomrun" -n "$n" "$prog" small 1 allocate
done
run 0 small.cma-acc.n3 timeout 120 env LOOM_RMA_CMA=acc "$loomrun" -n 3 "$prog" small 1 create
run 0 small.singleton timeout 60 "$prog" small 1 create
run 0 chain.tcp-alloc.n3 timeout 120 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 3 "$prog" chain "$k" allocate
run 0 chain.singleton timeout 60 "$prog" chain "$k" create

mdl_summary "mpi rma s15" "(logs in $logdir)"
