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
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_scan
prog=$BUILD/test/mpi/mpi_scan
mdl_require "$loomrun" "$prog"
mdl_width=40
mdl_log_filter="ERROR coll"

# scan_run <log name> <ranks> <env...>: must pass, on the forced algorithms
# (a forced algorithm that cannot run a call warns and falls back: a failure)
scan_run() {
    local name=$1 n=$2
    shift 2
    run -m "mpi_scan: passed on $n ranks" -x "using the selection table" 0 "$name" \
        env "$@" "$loomrun" -n "$n" "$prog"
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
    scan_run "det.a.n$n" "$n" LOOM_DETERMINISTIC=1 "${set_a[@]}"
    scan_run "det.b.n$n" "$n" LOOM_DETERMINISTIC=1 "${set_b[@]}"
    ha=$(grep -h '^dhash' "$logdir/det.a.n$n.log" 2>/dev/null)
    hb=$(grep -h '^dhash' "$logdir/det.b.n$n.log" 2>/dev/null)
    if [[ -n $ha && $ha == "$hb" ]]; then
        mdl_pass "det.n$n.hash" "a and b agree"
    else
        mdl_fail "det.n$n.hash" "deterministic doubles differ across algorithms ('$ha' vs '$hb')"
    fi
done
for n in $plain; do
    scan_run "a.n$n" "$n" LOOM_DETERMINISTIC=0 "${set_a[@]}"
    scan_run "b.n$n" "$n" LOOM_DETERMINISTIC=0 "${set_b[@]}"
done
scan_run default.n5 5 LOOM_DETERMINISTIC=0
# a failed alltoallw (rank 1 gets a larger message) returns MPI_ERR_TRUNCATE there
# and leaves the communicator usable, in both algorithms
for a in linear pairwise; do
    run -t 60 -m "mismatch_w: passed on 3 ranks" \
        -m "alltoallw #0 on WORLD: rank 1 expected 4 bytes from rank 0" 0 "mismatch_w.$a" \
        env LOOM_ALLTOALLW_ALGORITHM=$a "$loomrun" -n 3 "$prog" mismatch_w
done
scan_run tcp.b.n3 3 LOOM_TRANSPORTS=self,tcp "${set_b[@]}"
scan_run tcp.a.n4 4 LOOM_TRANSPORTS=self,tcp LOOM_DETERMINISTIC=1 "${set_a[@]}"

# must-fail runs: the log names the problem
run -t 60 -m "is not a scan algorithm; valid: chain, recursive_doubling" nonzero bogus.alg \
    env LOOM_SCAN_ALGORITHM=bogus "$loomrun" -n 2 "$prog"
run -t 60 -m "called scan" -m "called exscan" nonzero mismatch.chain \
    env LOOM_SCAN_ALGORITHM=chain LOOM_EXSCAN_ALGORITHM=chain "$loomrun" -n 3 "$prog" mismatch
run -t 60 -m "called scan" -m "called exscan" nonzero mismatch.rd \
    env LOOM_SCAN_ALGORITHM=recursive_doubling LOOM_EXSCAN_ALGORITHM=recursive_doubling \
    "$loomrun" -n 4 "$prog" mismatch

mdl_summary test_mpi_scan
