#!/usr/bin/env bash
# test_coll_s16.sh: session 16 (issue 21) collective paths.
#   - alltoall "shm" by the table up to 4 KiB blocks at up to 4 ranks
#     while p x block fits the 8 KiB slot (np 2: 4 KiB, np 3-4: 2 KiB;
#     from np 5 1 KiB as before): prog_coll_s16 a2a
#     (blocks of 1 KiB to just above 4 KiB, 0 and 64 KiB; blocking back to
#     back, in place, ialltoall; alltoallv with zeros and gaps) with the
#     table at np 1-8, forced shm (falls back where p x block is too big).
#   - alltoall "pairwise": its own block is copied after the first window
#     is posted:
#     the same program forced pairwise at np 1-8.
#   BUILD=build/release bash test/coll/test_coll_s16.sh
set -u
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
# shellcheck source=test/coll/coll_one.sh
. test/coll/coll_one.sh
coll_driver prog_coll_s16

case $BUILD in
*address*|*thread*|*undefined*) nps="1 2 3 5 8" ;;
*)                              nps="1 2 3 4 5 6 7 8" ;;
esac


for np in $nps; do
    one "$np" a2a table
    one "$np" a2a shm LOOM_ALLTOALL_ALGORITHM=shm
    one "$np" a2a pairwise LOOM_ALLTOALL_ALGORITHM=pairwise
done

# the table printed by loom_info names the alltoall shm rule
if ! $BUILD/bin/loom_info --collectives 2>&1 | grep -A4 '^alltoall ' |
     grep -Eq '^ *4 +4 KiB +shm'; then
    echo "FAIL loom_info --collectives does not show alltoall shm to 4 KiB"; fail=1
else
    echo "ok   loom_info shows alltoall shm to 4 KiB"
fi

exit $fail
