#!/usr/bin/env bash
# test_mpi_rma_s14.sh: session 14 of the one-sided layer (mpi_rma_s14.c).
#   zcfault: a target that cannot store a large put (LOOM_RMA_ZCOPY_FAULT,
#   test-only: its record or its receive fails as if out of memory, every
#   E-th put of each origin) consumes the data anyway and answers
#   MPI_ERR_NO_MEM at the origin's flush; the puts after it land whole.
#   Over self,tcp (eager 64 KiB and rendezvous 200 003 B data) for
#   Win_create, Win_allocate and dynamic windows at np 2..4, over shm by
#   active messages (LOOM_RMA_CMA=off), and without a fault (E = 0) on the
#   default paths. ops: the put/get/fetch-and-op/CAS/accumulate paths
#   session 14 made cheaper, exact data, over CMA, CMA accumulates,
#   messages over shm and tcp, np 1..4. Sanitizer builds run fewer cases.
#   BUILD=build/release bash test/mpi/test_mpi_rma_s14.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s14
mdl_require "$loomrun" "$progs"/mpi_rma_s14
mdl_must_mention="mpi_rma_s14: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) tcp_ranks="2 3"; flavors="create dynamic"; ops_ranks="2 3"; k=10 ;;
*)                                 tcp_ranks="2 3 4"; flavors="create allocate dynamic"
                                   ops_ranks="2 3 4"; k=50 ;;
esac
prog=$progs/mpi_rma_s14

for n in $tcp_ranks; do
    for f in $flavors; do
        run -m "no memory to serve a put" 0 "zcfault.tcp.record.$f.n$n" timeout 90 \
            env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY_FAULT=record:2 \
            "$loomrun" -n "$n" "$prog" zcfault "$f" 2
    done
done
run -m "cannot receive the" 0 zcfault.tcp.recv.create.n3 timeout 90 \
    env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY_FAULT=recv:3 \
    "$loomrun" -n 3 "$prog" zcfault create 3
run -m "no memory to serve a put" 0 zcfault.shm-am.record.create.n3 timeout 90 \
    env LOOM_RMA_CMA=off LOOM_RMA_ZCOPY_FAULT=record:2 "$loomrun" -n 3 "$prog" zcfault create 2
run -m "cannot receive the" 0 zcfault.shm-am.recv.dynamic.n2 timeout 90 \
    env LOOM_RMA_ZCOPY_FAULT=recv:2 "$loomrun" -n 2 "$prog" zcfault dynamic 2
for f in $flavors; do
    run 0 "zcfault.shm.nofault.$f.n3" timeout 90 "$loomrun" -n 3 "$prog" zcfault "$f" 0
done
# ops: the cheaper put/get/fop/cas/accumulate paths, exact data, np 1..4:
# CMA (default), CMA accumulates (LOOM_RMA_CMA=acc), messages over shm
# (LOOM_RMA_CMA=off) and over tcp
for n in $ops_ranks; do
    run 0 "ops.cma.n$n" timeout 90 "$loomrun" -n "$n" "$prog" ops "$k"
    run 0 "ops.tcp.n$n" timeout 90 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" ops "$k"
done
run 0 ops.cma-acc.n3 timeout 90 env LOOM_RMA_CMA=acc "$loomrun" -n 3 "$prog" ops "$k"
run 0 ops.shm-am.n3 timeout 90 env LOOM_RMA_CMA=off "$loomrun" -n 3 "$prog" ops "$k"
run 0 ops.singleton timeout 30 "$prog" ops "$k"
# a knob that is not record:N / recv:N is named, and no put fails
run -m "LOOM_RMA_ZCOPY_FAULT=rec:2 is not record:N or recv:N" 0 zcfault.badknob timeout 90 \
    env LOOM_TRANSPORTS=self,tcp LOOM_RMA_ZCOPY_FAULT=rec:2 "$loomrun" -n 2 "$prog" zcfault create 0

mdl_summary "mpi rma s14" "(logs in $logdir)"
