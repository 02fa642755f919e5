#!/usr/bin/env bash
# test_mpi_rma_rev18.sh: the review of session 18's one-sided change
# (mpi_rma_rev18.c).
#   noop: MPI_Accumulate with MPI_NO_OP, small and large, batched behind a
#   LOCK and between SUMs, under lock, lock_all (an Raccumulate too) and
#   fence, to the next rank and to itself: every call MPI_SUCCESS, the
#   window exactly the SUMs (a batched no-op was refused as malformed:
#   MPI_ERR_ARG at the flush). Over self,tcp for Win_create, Win_allocate
#   and dynamic windows; over shm by active messages (LOOM_RMA_CMA=off), on
#   the default paths (CMA window, shared segment) and with CMA accumulates
#   (LOOM_RMA_CMA=passive); and a singleton.
#   mix: random epochs of small and large accumulates, get-accumulates,
#   fetch-and-ops, compare-and-swaps, large puts and gets beside them,
#   flush_local and flush, each rank against the next, checked against a
#   serial model: every fetched value, every byte after each epoch. Over
#   the same transports and flavors, with LOOM_RMA_ZCOPY=4096 (more of them
#   large) and =0 (the copying path only: the same answers).
#   death: a large accumulate to a rank killed before it serves it; the
#   flush, flush_local or unlock fails with MPI_ERR_OTHER, no hang (the
#   killed rank: exit 137), over tcp and shm by message.
# Sanitizer builds run fewer ranks and epochs.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev18.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev18
mdl_require "$loomrun" "$progs"/mpi_rma_rev18
mdl_must_mention="mpi_rma_rev18: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; shm_ranks="2"; rounds="3 30" ;;
*)                                 tcp_ranks="1 2 3 4"; shm_ranks="2 3"; rounds="6 40" ;;
esac
prog=$progs/mpi_rma_rev18

for n in $tcp_ranks; do
    for f in create allocate dynamic; do
        run 0 "noop.tcp.$f.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" noop "$f"
    done
done
for n in $shm_ranks; do
    for f in create dynamic; do
        run 0 "noop.shm-am.$f.n$n" env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" noop "$f"
    done
    for f in create allocate; do
        run 0 "noop.shm.$f.n$n" "$loomrun" -n "$n" "$prog" noop "$f"
    done
    run 0 "noop.shm-cma-acc.create.n$n" env LOOM_RMA_CMA=passive "$loomrun" -n "$n" "$prog" noop create
done
run 0 noop.singleton "$prog" noop create

# shellcheck disable=SC2086  # $rounds: two arguments
for n in $tcp_ranks; do
    for f in create allocate dynamic; do
        run 0 "mix.tcp.$f.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" mix "$f" $rounds
    done
done
# shellcheck disable=SC2086
for n in $shm_ranks; do
    for f in create dynamic; do
        run 0 "mix.shm-am.$f.n$n" env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" mix "$f" $rounds
    done
    for f in create allocate; do
        run 0 "mix.shm.$f.n$n" "$loomrun" -n "$n" "$prog" mix "$f" $rounds
    done
done
# shellcheck disable=SC2086
for z in 4096 0; do
    run 0 "mix.tcp.zcopy$z.create.n3" env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY=$z \
        "$loomrun" -n 3 "$prog" mix create $rounds
    run 0 "mix.shm-am.zcopy$z.dynamic.n2" env LOOM_RMA_CMA=off LOOM_RMA_ZCOPY=$z \
        "$loomrun" -n 2 "$prog" mix dynamic $rounds
done
# shellcheck disable=SC2086
run 0 mix.singleton "$prog" mix create $rounds

# rank 1 dies (137); rank 0 must print its line before loomrun stops it
mdl_must_mention=""
for how in flush flush_local unlock; do
    run -m "death: $how failed with class" 137 "death.tcp.$how" \
        env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death create "$how"
    run -m "death: $how failed with class" 137 "death.shm-am.$how" \
        env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" death create "$how"
done

mdl_summary "mpi rma rev18" "(logs in $logdir)"
