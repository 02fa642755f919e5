#!/usr/bin/env bash
# test_mpi_userop.sh: user-defined operations over multi-element datatypes
# (test/mpi/mpi_userop.c: triples of doubles and 3x3 int matrices, a
# commutative and a non-commutative op each) through MPI_Reduce (several
# roots), MPI_Allreduce, MPI_Reduce_scatter_block and their nonblocking
# forms, checked element by element:
#   - the selection table's algorithms at 1..8 ranks, counts 1..2^20 at 4
#     and 8 ranks (above 2^16 blocking calls and two ops only);
#   - every reduce, allreduce and reduce_scatter algorithm forced by name
#     (LOOM_*_ALGORITHM) at 3 and 8 ranks, smaller counts, and on larger
#     vectors cma and Rabenseifner (several chunks, uneven blocks);
#   - elements of 375 KiB (larger than a chunk of allreduce cma);
#   - LOOM_DETERMINISTIC=1, and the tcp transport.
# Under a sanitizer build ($BUILD names it) the counts are smaller.
#   BUILD=build/release bash test/mpi/test_mpi_userop.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_userop
prog=$BUILD/test/mpi/mpi_userop
mdl_require "$loomrun" "$prog"
mdl_width=44
mdl_timeout=300
mdl_must_mention="mpi_userop: passed"

# counts: full sweep, its blocking-only threshold, the other rank counts,
# the forced algorithms
case $BUILD in
*address* | *thread* | *undefined*)
    full=16384 big=1024 other=256 other_np="3 5" forced=64 forced_np="5" det_np="5" ;;
*)
    full=1048576 big=16384 other=4096 other_np="1 2 3 5 6 7" forced=1024 forced_np="3 8"
    det_np="5 8" ;;
esac

# the selection table's algorithms
for n in 4 8; do
    run 0 "default.n$n" "$loomrun" -n $n "$prog" -n $full -b $big
done
for n in $other_np; do
    run 0 "default.n$n" "$loomrun" -n $n "$prog" -n $other
done
run 0 default.singleton "$prog" -n $other

# every algorithm forced by name: run k forces the k-th allreduce algorithm
# and, cycling, a reduce and a reduce_scatter algorithm (independent
# variables), so six runs cover all eleven
reduce_algs=(binomial rabenseifner ordered)
allreduce_algs=(recursive_doubling rabenseifner ring shm ordered cma)
rs_algs=(ring ordered)
for n in $forced_np; do
    for k in 0 1 2 3 4 5; do
        ra=${reduce_algs[k % 3]} aa=${allreduce_algs[k]} sa=${rs_algs[k % 2]}
        run 0 "forced.$ra.$aa.$sa.n$n" env LOOM_REDUCE_ALGORITHM=$ra \
            LOOM_ALLREDUCE_ALGORITHM=$aa LOOM_REDUCE_SCATTER_ALGORITHM=$sa \
            "$loomrun" -n $n "$prog" -n $forced
    done
done
# large vectors through the bandwidth algorithms (cma: several chunks)
run 0 allreduce.cma.large.n4 env LOOM_ALLREDUCE_ALGORITHM=cma \
    "$loomrun" -n 4 "$prog" -n $((forced * 64)) -b $forced -c allreduce
# elements larger than a chunk of cma (forced: the table takes over)
run 0 allreduce.cma.wide.n4 env LOOM_ALLREDUCE_ALGORITHM=cma \
    "$loomrun" -n 4 "$prog" -n 4 -o wd -c allreduce,iallreduce
run 0 reduce.rabenseifner.large.n6 env LOOM_REDUCE_ALGORITHM=rabenseifner \
    "$loomrun" -n 6 "$prog" -n $((forced * 64)) -b $forced -c reduce

# deterministic mode, and messages over tcp
for n in $det_np; do
    run 0 "deterministic.n$n" env LOOM_DETERMINISTIC=1 "$loomrun" -n $n "$prog" -n $forced
done
run 0 tcp.n4 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 4 "$prog" -n $forced

mdl_summary test_mpi_userop
