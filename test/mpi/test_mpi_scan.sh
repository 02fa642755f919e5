#!/usr/bin/env bash
# test_mpi_scan.sh: run test/mpi/mpi_scan (MPI_Scan, MPI_Exscan,
# MPI_Reduce_scatter, MPI_Alltoallw and their I forms) under loomrun at
# 1..8 ranks through every algorithm, forced with LOOM_<COLL>_ALGORITHM:
#   set a: scan/exscan chain, reduce_scatterv pairwise, alltoallw linear
#   set b: scan/exscan recursive_doubling, reduce_scatterv ring, alltoallw pairwise
# With LOOM_DETERMINISTIC=1 the program checks the doubles bit for bit and
# prints a hash of them, which must be the same for both sets at each size.
# Also: the default selection, LOOM_DETERMINISTIC=0 through both sets, and
# self,tcp. Under a sanitizer build ($BUILD names it) fewer sizes run.
#   BUILD=build/release bash test/mpi/test_mpi_scan.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
prog=$BUILD/test/mpi/mpi_scan
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi_scan
mkdir -p "$logdir"
pass=0
fail=0

for f in "$loomrun" "$prog"; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

# run <log name> <ranks> <env...>: must pass, on the forced algorithms
# (a forced algorithm that cannot run a call warns and falls back: a failure)
run() {
    local name=$1 n=$2
    shift 2
    local log=$logdir/$name.log t0=$SECONDS rc
    timeout -k 5 120 env "$@" "$loomrun" -n "$n" "$prog" >"$log" 2>&1
    rc=$?
    if [[ $rc == 0 ]] && grep -q "mpi_scan: passed on $n ranks" "$log" &&
       ! grep -q "using the selection table" "$log"; then
        pass=$((pass + 1))
        printf '  ok    %-40s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-40s exit %s\n' "$name" "$rc"
    grep -v "ERROR coll" "$log" | tail -n 15 | sed 's/^/        | /'
    return 1
}

set_a=(LOOM_SCAN_ALGORITHM=chain LOOM_EXSCAN_ALGORITHM=chain
       LOOM_REDUCE_SCATTERV_ALGORITHM=pairwise LOOM_ALLTOALLW_ALGORITHM=linear)
set_b=(LOOM_SCAN_ALGORITHM=recursive_doubling LOOM_EXSCAN_ALGORITHM=recursive_doubling
       LOOM_REDUCE_SCATTERV_ALGORITHM=ring LOOM_ALLTOALLW_ALGORITHM=pairwise)

case $BUILD in
*address*|*thread*) sizes="1 3 4 7"; plain="5" ;;
*)                  sizes="1 2 3 4 5 6 7 8"; plain="3 6 7" ;;
esac

for n in $sizes; do
    run "det.a.n$n" "$n" LOOM_DETERMINISTIC=1 "${set_a[@]}"
    run "det.b.n$n" "$n" LOOM_DETERMINISTIC=1 "${set_b[@]}"
    ha=$(grep -h '^dhash' "$logdir/det.a.n$n.log" 2>/dev/null)
    hb=$(grep -h '^dhash' "$logdir/det.b.n$n.log" 2>/dev/null)
    if [[ -n $ha && $ha == "$hb" ]]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "  FAIL  n=$n: deterministic doubles differ across algorithms ('$ha' vs '$hb')"
    fi
done
for n in $plain; do
    run "a.n$n" "$n" LOOM_DETERMINISTIC=0 "${set_a[@]}"
    run "b.n$n" "$n" LOOM_DETERMINISTIC=0 "${set_b[@]}"
done
run default.n5 5 LOOM_DETERMINISTIC=0
# a failed alltoallw (rank 1 gets a larger message) returns MPI_ERR_TRUNCATE there
# and leaves the communicator usable, in both algorithms
for a in linear pairwise; do
    log=$logdir/mismatch_w.$a.log
    if timeout -k 5 60 env LOOM_ALLTOALLW_ALGORITHM=$a "$loomrun" -n 3 "$prog" mismatch_w \
            >"$log" 2>&1 && grep -q "mismatch_w: passed on 3 ranks" "$log" &&
       grep -q "alltoallw #0 on WORLD: rank 1 expected 4 bytes from rank 0" "$log"; then
        pass=$((pass + 1))
        printf '  ok    %-40s\n' "mismatch_w.$a"
    else
        fail=$((fail + 1))
        printf '  FAIL  %-40s\n' "mismatch_w.$a"
        tail -n 10 "$log" | sed 's/^/        | /'
    fi
done
run tcp.b.n3 3 LOOM_TRANSPORTS=self,tcp "${set_b[@]}"
run tcp.a.n4 4 LOOM_TRANSPORTS=self,tcp LOOM_DETERMINISTIC=1 "${set_a[@]}"

# must-fail runs: <log name> <ranks> <strings the log must contain> -- <env/args>
run_fail() {
    local name=$1 n=$2 log=$logdir/$1.log rc missing=""
    shift 2
    local want=()
    while [[ $1 != -- ]]; do want+=("$1"); shift; done
    shift
    timeout -k 5 60 env "$@" >"$log" 2>&1
    rc=$?
    for w in "${want[@]}"; do
        grep -qF -- "$w" "$log" || missing+=" '$w'"
    done
    if [[ $rc != 0 && $rc != 124 && $rc != 137 && -z $missing ]]; then
        pass=$((pass + 1))
        printf '  ok    %-40s (fails as it should)\n' "$name"
    else
        fail=$((fail + 1))
        printf '  FAIL  %-40s exit %s, missing%s\n' "$name" "$rc" "${missing:- nothing}"
        tail -n 10 "$log" | sed 's/^/        | /'
    fi
}
run_fail bogus.alg 2 "is not a scan algorithm; valid: chain, recursive_doubling" -- \
    LOOM_SCAN_ALGORITHM=bogus "$loomrun" -n 2 "$prog"
run_fail mismatch.chain 3 "called scan" "called exscan" -- \
    LOOM_SCAN_ALGORITHM=chain LOOM_EXSCAN_ALGORITHM=chain "$loomrun" -n 3 "$prog" mismatch
run_fail mismatch.rd 4 "called scan" "called exscan" -- \
    LOOM_SCAN_ALGORITHM=recursive_doubling LOOM_EXSCAN_ALGORITHM=recursive_doubling \
    "$loomrun" -n 4 "$prog" mismatch

echo "test_mpi_scan: $pass passed, $fail failed"
[[ $fail == 0 ]]
