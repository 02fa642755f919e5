#!/usr/bin/env bash
# test_mpi_rma.sh: MPI one-sided communication (test/mpi/mpi_rma.c): every
# call and synchronization mode, the randomized accumulate stress and the
# lock contention, at np 1..5 over the default transports and at np 2 and
# 4 over self,tcp (active messages only, no shared segment for the p2p
# path). Sanitizer builds run fewer ranks and stress rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma
mdl_require "$loomrun" "$progs"/mpi_rma

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 3 4"; iters=100 ;;
*)                                 ranks="1 2 3 4 5"; iters=400 ;;
esac

run 0 mpi_rma.singleton timeout 60 "$progs/mpi_rma" "$iters"
for n in $ranks; do
    run 0 "mpi_rma.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_rma" "$iters"
done
for n in 2 4; do
    run 0 "mpi_rma.tcp.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$progs/mpi_rma" "$iters"
done

mdl_summary "mpi rma" "(logs in $logdir)"
