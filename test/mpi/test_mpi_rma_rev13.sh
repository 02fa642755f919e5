#!/usr/bin/env bash
# test_mpi_rma_rev13.sh: the review of session 13's large puts and gets
# (rma/rma_zcopy.c) and batched get-like requests (mpi_rma_rev13.c):
# program order of accumulates and fetches, small requests behind a large
# put's data, two windows and the user's messages interleaved, every flush
# form with large transfers in flight, lock_all to every rank with an
# exclusive block, fence/PSCW epochs and a free behind large gets,
# failed get-like operations that must leave the result alone (dynamic
# windows), two threads of one origin (MPI_THREAD_MULTIPLE). Over
# self,tcp (every window by active messages), over shm with LOOM_RMA_CMA=off
# and with LOOM_RMA_ZCOPY=4096. Sanitizer builds run fewer ranks and rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev13.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev13
mdl_require "$loomrun" "$progs"/mpi_rma_rev13

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="3"; k=2 ;;
*)                                 ranks="2 4"; k=4 ;;
esac
prog=$progs/mpi_rma_rev13

for n in $ranks; do
    for m in order twowin flushes lockall sync errget mt; do
        run 0 "mpi_rma_rev13.tcp.$m.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
            "$loomrun" -n "$n" "$prog" "$m" "$k"
    done
done
for m in order flushes lockall; do
    run 0 "mpi_rma_rev13.shm-am.$m.n3" timeout 60 env LOOM_RMA_CMA=off \
        "$loomrun" -n 3 "$prog" "$m" "$k"
    run 0 "mpi_rma_rev13.tcp.zcopy4k.$m.n3" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        LOOM_RMA_ZCOPY=4096 "$loomrun" -n 3 "$prog" "$m" "$k"
done

mdl_summary "mpi rma rev13" "(logs in $logdir)"
