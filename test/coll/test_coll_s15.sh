#!/usr/bin/env bash
# test_coll_s15.sh: session 15 (issue 21) collective paths.
#   - alltoall "linear" (alltoallw_linear.c serving alltoall and alltoallv:
#     every request posted at once, the table's answer at 5-16 ranks above
#     bruck's limit): prog_coll_s15 a2a (blocks of 0, 1, 1000 and 16384
#     int32, in place, alltoallv with zeros and gaps, two ialltoall in
#     flight) forced at np 1-8, the table at np 5 and 8, pairwise at np 8.
#   - reduce "cma": its root releases the others once it has read their
#     inputs, before its last fold: prog_coll_s15 red (every size from 1
#     element to 2.3 MiB, roots 0, p/2, p-1, in place, non-roots' recvbufs
#     untouched, a non-commutative user op of 32-byte elements) forced at
#     np 1-8; LOOM_DETERMINISTIC=1: doubles bit for bit equal to the right
#     fold and one hash across cma, shm, binomial (ordered) and the table;
#     prog_coll_s15 release at np 2-4: a user op whose last call at the
#     root waits for rank 1 to have returned from the reduce (hangs, and
#     fails by loomrun's timeout, when the others wait for the folds).
#   - allgather "cma" above 64 KiB blocks when ranks outnumber cores (a
#     shared rule): prog_coll_s15 ag (blocks around 64 KiB and 256 KiB, in
#     place and not) with the table at np 2-8, forced cma, and
#     LOOM_SHM_CMA=off (the verdict "no": recursive doubling).
#   BUILD=build/release bash test/coll/test_coll_s15.sh
set -u
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
# shellcheck source=test/coll/coll_one.sh
. test/coll/coll_one.sh
coll_driver prog_coll_s15

case $BUILD in
*address*|*thread*|*undefined*) nps="1 2 3 5 8"; det_nps="3" ;;
*)                              nps="1 2 3 4 5 6 7 8"; det_nps="3 4 8" ;;
esac


for np in $nps; do
    one "$np" a2a linear LOOM_ALLTOALL_ALGORITHM=linear
    one "$np" red cma LOOM_REDUCE_ALGORITHM=cma
done
# the root releases the others after its reads: hangs (timeout) otherwise
for np in 2 3 4; do
    one "$np" release cma LOOM_REDUCE_ALGORITHM=cma
done
# allgather above 64 KiB blocks: cma by the table when ranks outnumber
# cores (np 3-8 on this 2-core machine; loomrun sets the flag), forced
for np in 2 3 4 8; do
    one "$np" ag table
done
one 4 ag cma LOOM_ALLGATHER_ALGORITHM=cma
one 4 ag "cma refused" LOOM_SHM_CMA=off
one 5 a2a table
one 8 a2a table
one 8 a2a pairwise LOOM_ALLTOALL_ALGORITHM=pairwise

# deterministic: one reduce hash whatever the algorithm
for np in $det_nps; do
    hashes=()
    for alg in cma shm binomial table; do
        if [[ $alg == table ]]; then
            one "$np" red "det table" LOOM_DETERMINISTIC=1
        else
            one "$np" red "det $alg" LOOM_DETERMINISTIC=1 LOOM_REDUCE_ALGORITHM=$alg
        fi
        hashes+=("$hash")
    done
    u=$(printf '%s\n' "${hashes[@]}" | sort -u)
    if [[ $(echo "$u" | wc -l) != 1 || -z $u ]]; then
        echo "FAIL det np=$np: reduce hashes differ across algorithms: ${hashes[*]}"; fail=1
    else
        echo "ok   det np=$np: one reduce hash $u"
    fi
done

# the table printed by loom_info names the alltoall rule
if ! $BUILD/bin/loom_info --collectives 2>&1 | grep -A8 '^alltoall ' |
     grep -Eq '^ *16 +any +linear'; then
    echo "FAIL loom_info --collectives does not show alltoall linear to 16 ranks"; fail=1
else
    echo "ok   loom_info shows alltoall linear to 16 ranks"
fi

exit $fail
