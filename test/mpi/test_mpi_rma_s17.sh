#!/usr/bin/env bash
# test_mpi_rma_s17.sh: session 17 of the one-sided layer (mpi_rma_s17.c):
# on Win_create windows whose ranks share a host, puts and gets of at most
# LOOM_RMA_CMA_MSG bytes (default 4096) go by active message, larger ones
# by process_vm_writev/readv.
#   mix: puts on both sides of the limit (one through an hindexed target
#   type, some as Rput) to one target without a flush between them, read
#   back by gets and Rgets, under lock_all and under fence, np 1-4; every
#   byte checked at the origin and at the target. Over the default limit,
#   0 (all CMA), 64 KiB (all by message), LOOM_RMA_CMA=acc (all CMA),
#   LOOM_RMA_CMA=off and tcp (all by message, the limit unused).
#   path: np 2, which path each size took, without timing (a request by
#   message is served only in the target's MPI calls): the default limit,
#   0, 64 KiB, LOOM_RMA_CMA=passive and its older name acc (0: every
#   access by CMA, none needs the target's progress), a limit that is not a byte count
#   (warned about, the default taken).
#   BUILD=build/release bash test/mpi/test_mpi_rma_s17.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_s17
mdl_require "$loomrun" "$progs"/mpi_rma_s17
mdl_must_mention="mpi_rma_s17: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 2 3"; k=4 ;;
*)                                 ranks="1 2 3 4"; k=20 ;;
esac
prog=$progs/mpi_rma_s17
sig=$(mktemp -d "${TMPDIR:-/tmp}/loom-rma-s17.XXXXXX")
trap 'rm -rf "$sig"' EXIT

for n in $ranks; do
    run 0 "mix.cma.n$n" timeout 120 "$loomrun" -n "$n" "$prog" mix "$k"
done
for n in 2 3; do
    run 0 "mix.cma-msg0.n$n" timeout 120 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n "$n" "$prog" mix "$k"
    run 0 "mix.cma-msg64k.n$n" timeout 120 env LOOM_RMA_CMA_MSG=65536 \
        "$loomrun" -n "$n" "$prog" mix "$k"
    run 0 "mix.cma-acc.n$n" timeout 120 env LOOM_RMA_CMA=acc "$loomrun" -n "$n" "$prog" mix "$k"
    run 0 "mix.shm-am.n$n" timeout 120 env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" mix "$k"
    run 0 "mix.tcp.n$n" timeout 120 env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n "$n" "$prog" mix "$k"
done

run 0 path.default timeout 120 "$loomrun" -n 2 "$prog" path 4096 "$sig"
run 0 path.msg0 timeout 120 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n 2 "$prog" path 0 "$sig"
run 0 path.msg64k timeout 120 env LOOM_RMA_CMA_MSG=65536 \
    "$loomrun" -n 2 "$prog" path 65536 "$sig"
run 0 path.cma-passive timeout 120 env LOOM_RMA_CMA=passive "$loomrun" -n 2 "$prog" path 0 "$sig"
run 0 path.cma-acc timeout 120 env LOOM_RMA_CMA=acc "$loomrun" -n 2 "$prog" path 0 "$sig"
run -m "LOOM_RMA_CMA_MSG=4k is not a byte count; using 4096" 0 path.bad-limit \
    timeout 120 env LOOM_RMA_CMA_MSG=4k "$loomrun" -n 2 "$prog" path 4096 "$sig"

mdl_summary "mpi rma s17" "(logs in $logdir)"
