#!/usr/bin/env bash
# test_mpi_intercomm.sh: the intercommunicator program
# (test/mpi/mpi_intercomm.c) under loomrun at 1..8 ranks (odd
# counts and sizes that are not powers of two), and once over self,tcp.
# Each program checks data and error classes itself and exits non-zero on
# the first wrong value. Under a sanitizer build fewer counts run.
#   BUILD=build/release bash test/mpi/test_mpi_intercomm.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
progs=$BUILD/test/mpi
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi
mkdir -p "$logdir"
pass=0
fail=0

for f in "$loomrun" "$progs"/mpi_intercomm; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

run() {
    local name=$1 log t0=$SECONDS rc
    shift
    log=$logdir/$name.log
    timeout -k 5 120 "$@" >"$log" 2>&1
    rc=$?
    if [[ $rc == 0 ]] && grep -q "passed on" "$log"; then
        pass=$((pass + 1))
        printf '  ok    %-36s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-36s exit %s\n' "$name" "$rc"
    tail -n 15 "$log" | sed 's/^/        | /'
    return 1
}

case $BUILD in
*release-*) counts="2 3 7" ;;     # sanitizers: slower, fewer counts
*)          counts="1 2 3 4 5 6 7 8" ;;
esac
for p in intercomm; do
    run "mpi_$p.singleton" "$progs/mpi_$p"
    for n in $counts; do
        run "mpi_$p.n$n" "$loomrun" -n "$n" "$progs/mpi_$p"
    done
    run "mpi_$p.tcp.n5" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 5 "$progs/mpi_$p"
done

echo "mpi intercomm: $pass passed, $fail failed (logs in $logdir)"
((fail == 0))
