#!/usr/bin/env bash
# test_mpi_rma_s18.sh: session 18 of the one-sided layer (mpi_rma_s18.c):
# a large contiguous accumulate's data goes from the origin's buffer in a
# message of its own, into scratch at the target, applied there once whole
# (rma/rma_zcopy.c).
#   sum/order/range: element-wise atomic sums from every rank under
#   lock_all and fence, program order among direct and copying accumulates
#   and a fetch-and-op behind them, MAX on doubles, range errors (at the
#   flush on dynamic windows, at the call elsewhere). Over self,tcp for
#   Win_create, Win_allocate and dynamic windows at np 1..4; over shm by
#   active messages (LOOM_RMA_CMA=off), on the default paths (CMA window:
#   accumulates by message; shared segment), and with LOOM_RMA_ZCOPY=0 (the
#   packed path only), which must give the same answers.
#   fault: a target that cannot take a large accumulate's data
#   (LOOM_RMA_ZCOPY_FAULT, test-only) consumes it and answers MPI_ERR_NO_MEM
#   at the origin's flush; the accumulates after it apply whole.
# Sanitizer builds run fewer ranks and rounds.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s18.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s18
mdl_require "$loomrun" "$progs"/mpi_rma_s18
mdl_must_mention="mpi_rma_s18: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; shm_ranks="3"; flavors="create dynamic"; k=3 ;;
*)                                 tcp_ranks="1 2 3 4"; shm_ranks="2 3"
                                   flavors="create allocate dynamic"; k=10 ;;
esac
prog=$progs/mpi_rma_s18

for n in $tcp_ranks; do
    for f in $flavors; do
        run 0 "tcp.$f.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
done
for n in $shm_ranks; do
    for f in create dynamic; do
        run 0 "shm-am.$f.n$n" timeout 120 env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
    for f in create allocate; do
        run 0 "shm.$f.n$n" timeout 120 "$loomrun" -n "$n" "$prog" "$f" "$k"
    done
done
run 0 tcp.nozcopy.create.n3 timeout 120 env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY=0 \
    "$loomrun" -n 3 "$prog" create "$k"
run 0 singleton timeout 60 "$prog" create "$k"
# a target that cannot take the data: its record, or its receive, fails
run -m "no memory to serve an accumulate" 0 fault.tcp.record.n3 timeout 120 \
    env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY_FAULT=record:2 "$loomrun" -n 3 "$prog" create 1 2
run -m "data bytes of an accumulate of rank" 0 fault.tcp.recv.dynamic.n2 timeout 120 \
    env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY_FAULT=recv:3 "$loomrun" -n 2 "$prog" dynamic 1 3
run -m "no memory to serve an accumulate" 0 fault.shm.record.create.n2 timeout 120 \
    env LOOM_RMA_ZCOPY_FAULT=record:2 "$loomrun" -n 2 "$prog" create 1 2

mdl_summary "mpi rma s18" "(logs in $logdir)"
