#!/usr/bin/env bash
# test_coll_s14.sh: session 14 (issue 21) collective paths.
#   - reduce_scatter "shm" (reduce_scatter_shm.c: block and per-rank
#     counts through the segment's slots, the table's answer while the
#     whole input fits 8 KiB): prog_coll_s14 rs (blocks of 1 and 7
#     elements, around the slot, unequal counts with zeros, in place, two
#     nonblocking in flight, a non-commutative matrix product in rank
#     order) forced to shm and to the message algorithms at np 1-8, and
#     the table; LOOM_DETERMINISTIC=1: doubles bit for bit equal to the
#     right fold and one hash across shm, ring/pairwise and ordered/ring;
#     prog_coll's reduce_scatter_block checks with shm forced.
#   - allreduce "cma" when ranks outnumber cores (the table's shared rule
#     above 16 KiB): prog_coll_s14 ar (8 KiB + 8 to 1 MiB, int64 exact,
#     in place) with the table at np 3-8 (loomrun sets LOOM_OVERSUBSCRIBED),
#     and deterministic hashes equal across the table, cma, rabenseifner
#     and ring; LOOM_SHM_CMA=off (the verdict "no": rabenseifner).
# A one-byte shift of the shm fold's offset fails the rs checks.
#   BUILD=build/release bash test/coll/test_coll_s14.sh
set -u
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
# shellcheck source=test/coll/coll_one.sh
. test/coll/coll_one.sh
ONE_TIMEOUT=90
coll_driver prog_coll_s14 prog_coll
PCOLL=$BUILD/test/coll/prog_coll

case $BUILD in
*address*|*thread*) nps="1 2 3 4 8"; det_nps="3"; ar_nps="4" ;;
*)                  nps="1 2 3 4 5 6 7 8"; det_nps="3 4 8"; ar_nps="3 4 8" ;;
esac

# reduce_scatter: shm forced (both kinds), the message algorithms, the table
for np in $nps; do
    one "$np" rs shm LOOM_REDUCE_SCATTER_ALGORITHM=shm LOOM_REDUCE_SCATTERV_ALGORITHM=shm
done
for np in 3 8; do
    one "$np" rs messages LOOM_REDUCE_SCATTER_ALGORITHM=ring LOOM_REDUCE_SCATTERV_ALGORITHM=pairwise
    one "$np" rs table
done
# prog_coll's reduce_scatter_block checks (every op/type at small sizes)
for np in 2 5; do
    if ! LOOM_REDUCE_SCATTER_ALGORITHM=shm timeout -k 5 90 $RUN -n "$np" "$PCOLL" quick \
         >"$log" 2>&1; then
        echo "FAIL np=$np prog_coll quick, reduce_scatter shm"; grep -v WARN "$log" | tail -5
        fail=1
    else
        echo "ok   np=$np prog_coll quick, reduce_scatter shm"
    fi
done

# deterministic: one hash whatever the algorithms
for np in $det_nps; do
    hashes=()
    for pair in "shm shm" "ring pairwise" "ordered ring"; do
        set -- $pair
        one "$np" rs "det $1/$2" LOOM_DETERMINISTIC=1 LOOM_REDUCE_SCATTER_ALGORITHM=$1 \
            LOOM_REDUCE_SCATTERV_ALGORITHM=$2
        hashes+=("$hash")
    done
    for alg in table cma rabenseifner ring; do
        if [[ $alg == table ]]; then
            one "$np" ar "det table" LOOM_DETERMINISTIC=1
        else
            one "$np" ar "det $alg" LOOM_DETERMINISTIC=1 LOOM_ALLREDUCE_ALGORITHM=$alg
        fi
        hashes+=("ar:$hash")
    done
    rs=$(printf '%s\n' "${hashes[@]:0:3}" | sort -u)
    ar=$(printf '%s\n' "${hashes[@]:3}" | sort -u)
    if [[ $(echo "$rs" | wc -l) != 1 || -z $rs || $(echo "$ar" | wc -l) != 1 ||
          $ar == "ar:" ]]; then
        echo "FAIL det np=$np: hashes differ across algorithms: ${hashes[*]}"; fail=1
    else
        echo "ok   det np=$np: one reduce_scatter hash, one allreduce hash"
    fi
done

# allreduce above 16 KiB with ranks sharing cores: the table gives cma
for np in $ar_nps; do
    one "$np" ar table
done
one 4 ar "cma refused" LOOM_SHM_CMA=off

exit $fail
