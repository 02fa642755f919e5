#!/usr/bin/env bash
# test_mpi_coll_shm.sh: the on-node eager bcast and reduce (issue 21;
# collectives/bcast_shm.c, reduce_shm.c, the catch-up in coll_shm.c and
# coll_fast.c) through test/mpi/mpi_coll_shm.c: a random schedule of
# MPI_Bcast / MPI_Reduce (int, double, a non-commutative matrix product,
# in place) / MPI_Allreduce / MPI_Barrier / MPI_Ibcast / MPI_Ireduce /
# MPI_Allgather / MPI_Alltoall (allgather_shm.c, alltoall_shm.c), the
# same on every rank, each result checked, at 1..8 ranks:
#   - the selection table's algorithms (shm up to 8 KiB, messages above);
#   - bcast, reduce, allgather and alltoall forced to shm, reduce forced
#     to cma (also deterministic), and bcast and reduce forced to the
#     message algorithms
#     (binomial; then every other operation still runs on the segment);
#   - LOOM_DETERMINISTIC=1 (doubles bit for bit equal to the right fold);
#   - self,tcp (no segment at all).
# Under a sanitizer build ($BUILD names it) fewer rounds and rank counts.
#   BUILD=build/release bash test/mpi/test_mpi_coll_shm.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_coll_shm
prog=$BUILD/test/mpi/mpi_coll_shm
mdl_require "$loomrun" "$prog"
mdl_width=44
mdl_must_mention="mpi_coll_shm: passed"

case $BUILD in
*address* | *thread* | *undefined*) rounds=400 nps="1 2 3 5" forced_np="2 4" ;;
*) rounds=3000 nps="1 2 3 4 5 6 7 8" forced_np="2 3 5 8" ;;
esac

for n in $nps; do
    run 0 "table.n$n" "$loomrun" -n $n "$prog" $rounds $((21 + n))
done
for n in $forced_np; do
    run 0 "forced_shm.n$n" env LOOM_BCAST_ALGORITHM=shm LOOM_REDUCE_ALGORITHM=shm \
        LOOM_ALLGATHER_ALGORITHM=shm LOOM_ALLTOALL_ALGORITHM=shm \
        "$loomrun" -n $n "$prog" $rounds $((7 + n))
done
for n in 3 4; do
    run 0 "forced_binomial.n$n" env LOOM_BCAST_ALGORITHM=binomial \
        LOOM_REDUCE_ALGORITHM=binomial "$loomrun" -n $n "$prog" $rounds 5
done
# reduce cma (reduce_cma.c) forced: the same schedule (non-commutative
# matrix product, in place, every root) with every reduce read by the root
# through process_vm_readv, and deterministic (bit for bit the right fold)
for n in $forced_np; do
    run 0 "forced_cma.n$n" env LOOM_REDUCE_ALGORITHM=cma "$loomrun" -n $n "$prog" $rounds $((11 + n))
done
run 0 "deterministic_cma.n4" env LOOM_DETERMINISTIC=1 LOOM_REDUCE_ALGORITHM=cma \
    "$loomrun" -n 4 "$prog" $rounds 9
for n in 4 7; do
    run 0 "deterministic.n$n" env LOOM_DETERMINISTIC=1 "$loomrun" -n $n "$prog" $rounds 9
    run 0 "deterministic_ordered.n$n" env LOOM_DETERMINISTIC=1 LOOM_REDUCE_ALGORITHM=ordered \
        LOOM_BCAST_ALGORITHM=binomial "$loomrun" -n $n "$prog" $rounds 9
done
run 0 tcp.n3 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" $((rounds / 3)) 3

mdl_summary "mpi coll shm" "(logs in $logdir)"
