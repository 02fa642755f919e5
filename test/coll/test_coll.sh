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
 "- shm shm shm shm - - shm -"
 "- stage - ordered - - - - -"
 "- cma cma cma cma cma cma cma -"
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

# sanitizer builds run about 10x slower: a smaller matrix keeps the suite short
NPS="1 2 3 4 5 7 8" SAN=0
case $BUILD in
    *-address*|*-thread*|*-undefined*|*asan*|*tsan*) NPS="2 3 5" SAN=1 ;;
esac
for np in $NPS; do
    for r in 0 1 2 3 4 5; do
        mode=quick
        ((np >= 7)) && mode=light
        [[ $r == 0 && ( $np == 3 || $np == 4 ) ]] && mode=full
        [[ $r == 1 && $np == 5 && $SAN == 0 ]] && mode=full
        run_round "$np" "$r" "$mode"
    done
done

# deterministic mode: the same hash from every allreduce/reduce algorithm
for np in 3 4; do
    [[ $SAN == 1 && $np == 4 ]] && continue
    hashes=()
    for alg in recursive_doubling rabenseifner ring shm ordered cma; do
        for ralg in binomial rabenseifner ordered shm cma; do
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
   ! grep -q "valid: recursive_doubling, rabenseifner, ring, shm, ordered, cma" /tmp/loom-coll-$$.log; then
    echo "FAIL unknown algorithm name is not a clear error"; tail -3 /tmp/loom-coll-$$.log; fail=1
else
    echo "ok   unknown algorithm name rejected"
fi
# mismatched calls: a clear error naming both ranks and both calls, never a hang
# (case, np, LOOM_ERRORS, extra env, expected message as an extended regex)
mismatch() {
    local c=$1 np=$2 errors=$3 env=$4 want=$5 rc t0=$SECONDS
    env LOOM_ERRORS="$errors" $env timeout 60 $RUN -n "$np" "$PROG" mismatch "$c" \
        >/tmp/loom-coll-$$.log 2>&1
    rc=$?
    if [[ $rc == 124 ]] || ! grep -Eq "$want" /tmp/loom-coll-$$.log ||
       { [[ $errors == return ]] && [[ $rc != 0 ]]; } ||
       { [[ $errors == abort ]] && [[ $rc == 0 ]]; }; then
        echo "FAIL mismatch $c (rc $rc, want /$want/)"; tail -5 /tmp/loom-coll-$$.log; fail=1
    else
        echo "ok   mismatch $c ($((SECONDS - t0)) s)"
    fi
}
mismatch kind_shm 2 return "" \
    "collective #[0-9]+ on WORLD: rank 0 called barrier but rank 1 called allreduce"
mismatch count_shm 2 return "" \
    "allreduce #[0-9]+ on WORLD: rank 1 passed 16 bytes but rank 0 passed 8 bytes"
mismatch count_msg 2 return LOOM_ALLREDUCE_ALGORITHM=recursive_doubling \
    "rank 0 expected 8 bytes from rank 1 but the message was larger.*rank 1 expected 16 bytes from rank 0 but received 8|rank 1 expected 16 bytes from rank 0 but received 8"
mismatch root_shm 2 return "" \
    "bcast #[0-9]+ on WORLD: rank 0 used root 0 but rank 1 used root 1"
mismatch root_wait 2 return "" \
    "reduce #[0-9]+ on WORLD: rank 1 used root 1 but rank 0 used root 0.*|gather #[0-9]+ on WORLD: rank 0 used root 0 but rank 1 used root 1"
mismatch root_msg 2 return LOOM_BCAST_ALGORITHM=binomial \
    "bcast #[0-9]+ on WORLD: rank 1 used root 1 but rank 0 used root 0"
# both by message (the table now gives this 16000-byte bcast cma, on node)
mismatch kind_msg 2 return "LOOM_ALLREDUCE_ALGORITHM=ring LOOM_BCAST_ALGORITHM=scatter_allgather" \
    "collective #[0-9]+ on WORLD: rank 1 called allreduce but rank 0 called bcast \(root 0\)"
# whichever side sees the other first names the mismatch: rank 0 or 1
# (root 0) against rank 2 (root 1), or rank 2 against rank 0 or 1 (root 0);
# in shm the root (rank 0) sees every signature
mismatch reduce_root 3 abort "" \
    "reduce #[0-9]+ on WORLD: (rank [01] used root 0 but rank 2 used root 1|rank 2 used root 1 but rank [01] used root 0)"

# the on-node segment cannot be made on one rank: message-based algorithms, a notice
for f in 0 2; do
    if ! LOOM_COLL_SHM_FAULT=$f LOOM_LOG=info:coll $RUN -n 3 "$PROG" quick >/tmp/loom-coll-$$.log 2>&1 ||
       ! grep -q "could not be set up on every rank; using message-based algorithms" /tmp/loom-coll-$$.log; then
        echo "FAIL shm segment fault at rank $f"; grep -v INFO /tmp/loom-coll-$$.log | tail -5; fail=1
    else
        echo "ok   shm segment fault at rank $f: message-based fallback"
    fi
done
# process_vm_readv refused (here: LOOM_SHM_CMA=off on every rank): the first
# large allreduce finds out on every rank, all continue with messages
if ! LOOM_SHM_CMA=off LOOM_ALLREDUCE_ALGORITHM=cma LOOM_LOG=info:coll $RUN -n 3 "$PROG" quick \
        >/tmp/loom-coll-$$.log 2>&1 ||
   ! grep -q "process_vm_readv is not available between every pair of ranks" /tmp/loom-coll-$$.log; then
    echo "FAIL cma refused: message-based fallback"; grep -v INFO /tmp/loom-coll-$$.log | tail -5; fail=1
else
    echo "ok   cma refused: message-based fallback"
fi
rm -f /tmp/loom-coll-$$.log
exit $fail
