#!/usr/bin/env bash
# test_mpi_coll_shm2.sh: review cases of the eager on-node bcast/reduce
# (issue 21) that test_mpi_coll_shm.sh's random schedule does not reach,
# through test/mpi/mpi_coll_shm2.c:
#   - mismatch: two ranks both bcast roots; the next call fails with
#     MPI_ERR_ROOT on every rank, naming both ranks; the comm works after;
#   - free: an eager op last before MPI_Comm_free, new dups at once (same
#     context id / segment name), an eager reduce last before MPI_Finalize;
#   - mt: MPI_THREAD_MULTIPLE, two threads on two dups interleaving eager
#     operations and catch-ups while the engine lock is yielded;
#   - after: a reduce root finds a mismatch the eager others find only at
#     the next call; that call must not return stale slots as success on
#     the synced root (it fails: "has nothing from rank 1");
#   - nbfree: nonblocking collectives on a dup freed before their wait
#     complete normally (the dup is held until they do);
#   - death: a rank exits right after an eager operation: the others'
#     next call reports the mismatch, or the launcher stops the job; no hang.
#   BUILD=build/release bash test/mpi/test_mpi_coll_shm2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_coll_shm2
prog=$BUILD/test/mpi/mpi_coll_shm2
mdl_require "$loomrun" "$prog"
mdl_width=36
mdl_timeout=60

case $BUILD in
*address* | *thread* | *undefined*) rounds=40 nps="3" ;;
*) rounds=200 nps="2 3 4" ;;
esac

for n in $nps; do
    run -m "mpi_coll_shm2 mismatch: passed" -m "used root 0 but rank 1 used root 1" \
        0 "mismatch.n$n" "$loomrun" -n $n "$prog" mismatch
    run -m "mpi_coll_shm2 free: passed" 0 "free.n$n" "$loomrun" -n $n "$prog" free $rounds
    run -m "mpi_coll_shm2 nbfree: passed" 0 "nbfree.n$n" "$loomrun" -n $n "$prog" nbfree $rounds
    run -m "mpi_coll_shm2 mt: passed" 0 "mt.n$n" "$loomrun" -n $n "$prog" mt $rounds
    run -m "mpi_coll_shm2 after: passed" -m "has nothing from rank 1" \
        0 "after.n$n" "$loomrun" -n $n "$prog" after
done
run -m "rank 1 called reduce but rank 0 called bcast" -m "barrier after the death: class 13" \
    nonzero death_mismatch.n3 "$loomrun" -n 3 "$prog" death 1
run -m "stopping the job" nonzero death.n3 "$loomrun" -n 3 "$prog" death 2

mdl_summary "mpi coll shm2" "(logs in $logdir)"
