#!/usr/bin/env bash
# test_mpi_rma_s12.sh: the active-message one-sided protocol of session 12
# (mpi_rma_s12.c): a lock that returns before its grant (the target holds
# the origin's requests), unlock in one wait, small puts and accumulates
# batched into one message, their order against fetching operations sent
# alone, a range error inside a batch. Over self,tcp (every window by
# active messages) at np 2..4 for Win_create, Win_allocate and dynamic
# windows, and over the default transports (shm: CMA and shared-segment
# windows, whose paths must give the same answers) at np 2 and 3.
# Sanitizer builds run fewer ranks and lock rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s12.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s12
mdl_require "$loomrun" "$progs"/mpi_rma_s12

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; shm_ranks="3"; k=10 ;;
*)                                 tcp_ranks="2 3 4"; shm_ranks="2 3"; k=40 ;;
esac

for n in $tcp_ranks; do
    for f in create allocate dynamic; do
        run 0 "mpi_rma_s12.tcp.$f.n$n" timeout 60 env LOOM_TRANSPORTS=self,tcp \
            "$loomrun" -n "$n" "$progs/mpi_rma_s12" "$f" "$k"
    done
done
for n in $shm_ranks; do
    for f in create allocate dynamic; do
        run 0 "mpi_rma_s12.shm.$f.n$n" timeout 60 "$loomrun" -n "$n" "$progs/mpi_rma_s12" "$f" "$k"
    done
done
run 0 mpi_rma_s12.singleton timeout 30 "$progs/mpi_rma_s12" create "$k"

mdl_summary "mpi rma s12" "(logs in $logdir)"
