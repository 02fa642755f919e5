#!/usr/bin/env bash
# test_mpi_rma_s13.sh: large puts and gets whose data moves straight
# between the origin's buffer and the window (session 13, rma/rma_zcopy.c;
# mpi_rma_s13.c): mixed with batched small puts and accumulates under
# lock_all and fence, exclusive-lock counters in 128 KiB blocks with
# shared readers, a type whose data starts inside it, the copying path
# (vector origin, Rput/Rget), PSCW, errors at the call and range errors
# found by the target. Over self,tcp (every window by active messages) at
# np 2..4 for Win_create, Win_allocate and dynamic windows; over shm with
# LOOM_RMA_CMA=off (active messages over shm) and with the default paths
# (CMA, shared segment), which must give the same answers; with
# LOOM_RMA_ZCOPY=0 (the batched path only) and =4096 (more of it direct).
# Sanitizer builds run fewer ranks and lock rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s13.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s13
mdl_require "$loomrun" "$progs"/mpi_rma_s13

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; shm_ranks="3"; k=10 ;;
*)                                 tcp_ranks="2 3 4"; shm_ranks="2 3"; k=100 ;;
esac
prog=$progs/mpi_rma_s13

for n in $tcp_ranks; do
    for f in create allocate dynamic; do
        run 0 "mpi_rma_s13.tcp.$f.n$n" timeout 90 env LOOM_TRANSPORTS=self,tcp \
            "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
done
for n in $shm_ranks; do
    for f in create dynamic; do
        run 0 "mpi_rma_s13.shm-am.$f.n$n" timeout 90 env LOOM_RMA_CMA=off \
            "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
    for f in create allocate; do
        run 0 "mpi_rma_s13.shm.$f.n$n" timeout 90 "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
done
run 0 mpi_rma_s13.tcp.nozcopy.n3 timeout 90 env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY=0 \
    "$loomrun" -n 3 "$prog" create "$k"
run 0 mpi_rma_s13.tcp.zcopy4k.n3 timeout 90 env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY=4096 \
    "$loomrun" -n 3 "$prog" dynamic "$k"
run 0 mpi_rma_s13.singleton timeout 30 "$prog" create "$k"
# a threshold that is not a byte count is named and the default used
for bad in -1 12k; do
    run -m "LOOM_RMA_ZCOPY=$bad is not a byte count" 0 "mpi_rma_s13.badzcopy$bad" timeout 90 \
        env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY=$bad "$loomrun" -n 2 "$prog" create 2
done

mdl_summary "mpi rma s13" "(logs in $logdir)"
