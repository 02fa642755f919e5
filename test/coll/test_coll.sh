#!/usr/bin/env bash
# Multi-rank collective tests: every algorithm forced in turn (round k forces
# the k-th algorithm of each collective) x np {1,2,3,4,5,7,8}, bad input, and
# deterministic mode (identical bits whatever the algorithm).
set -u
BUILD=${BUILD:-build/release}
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP"
RUN="$BUILD/bin/loomrun -q --timeout 120"
PROG=$BUILD/test/coll/prog_coll
export LOOM_ERRORS=return
fail=0

# round k: name of the k-th algorithm of each collective (- = table default)
rounds=(
 "dissemination binomial binomial recursive_doubling recursive_doubling binomial binomial pairwise ring"
 "shm scatter_allgather rabenseifner rabenseifner ring linear linear bruck ordered"
 "- chain ordered ring bruck - - - -"
 "- - - shm - - - - -"
 "- - - ordered - - - - -"
)
vars=(BARRIER BCAST REDUCE ALLREDUCE ALLGATHER GATHER SCATTER ALLTOALL REDUCE_SCATTER)

run_round() { # np round mode
    local np=$1 r=$2 mode=$3 env=() i=0
    for a in ${rounds[$r]}; do
        [[ $a != - ]] && env+=("LOOM_${vars[$i]}_ALGORITHM=$a")
        i=$((i + 1))
    done
    if ! env "${env[@]}" $RUN -n "$np" "$PROG" "$mode" >/tmp/loom-coll-$$.log 2>&1; then
        echo "FAIL np=$np round $r ($mode): ${env[*]}"; tail -5 /tmp/loom-coll-$$.log
        fail=1
    else
        echo "ok   np=$np round $r ($mode)"
    fi
}

for np in 1 2 3 4 5 7 8; do
    for r in 0 1 2 3 4; do
        mode=quick
        ((np >= 7)) && mode=light
        [[ $r == 0 && ( $np == 3 || $np == 4 ) ]] && mode=full
        [[ $r == 1 && $np == 5 ]] && mode=full
        run_round "$np" "$r" "$mode"
    done
done

# deterministic mode: the same hash from every allreduce/reduce algorithm
for np in 3 4; do
    hashes=()
    for alg in recursive_doubling rabenseifner ring shm ordered; do
        for ralg in binomial rabenseifner ordered; do
            [[ $alg != ring && $ralg != binomial ]] && continue
            out=$(LOOM_DETERMINISTIC=1 LOOM_ALLREDUCE_ALGORITHM=$alg LOOM_REDUCE_ALGORITHM=$ralg \
                  $RUN -n $np "$PROG" det 2>&1) || { echo "FAIL det np=$np $alg/$ralg"; echo "$out" | tail -3; fail=1; }
            hashes+=("$(echo "$out" | sed -n 's/^det-hash //p')")
        done
    done
    if [[ $(printf '%s\n' "${hashes[@]}" | sort -u | wc -l) != 1 || -z ${hashes[0]} ]]; then
        echo "FAIL det np=$np: hashes differ: ${hashes[*]}"; fail=1
    else
        echo "ok   det np=$np: ${#hashes[@]} algorithm choices, one hash ${hashes[0]}"
    fi
done

# bad input is a clear, returned error
for np in 1 3; do
    if ! $RUN -n $np "$PROG" errors >/tmp/loom-coll-$$.log 2>&1 ||
       ! grep -q "operation 'band' is not defined for datatype 'double'" /tmp/loom-coll-$$.log; then
        echo "FAIL errors np=$np"; tail -5 /tmp/loom-coll-$$.log; fail=1
    else
        echo "ok   errors np=$np"
    fi
done
if LOOM_ALLREDUCE_ALGORITHM=bogus $RUN -n 1 "$PROG" quick >/tmp/loom-coll-$$.log 2>&1 ||
   ! grep -q "valid: recursive_doubling, rabenseifner, ring, shm, ordered" /tmp/loom-coll-$$.log; then
    echo "FAIL unknown algorithm name is not a clear error"; tail -3 /tmp/loom-coll-$$.log; fail=1
else
    echo "ok   unknown algorithm name rejected"
fi
rm -f /tmp/loom-coll-$$.log
exit $fail
