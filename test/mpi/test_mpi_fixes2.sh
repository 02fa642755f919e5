#!/usr/bin/env bash
# test_mpi_fixes2.sh: regression tests for defects MPICH's conformance suite
# found (test/mpi/mpi_fixes2_*.c, built by `make mpi-progs`), as ordinary
# MPI programs under loomrun:
#   status  MPI_Status_set_elements_x / MPI_Get_elements_x near 2^63
#   idup    nonblocking communicator constructors in flight at once on
#           overlapping parents (with blocking ones mixed in) get distinct
#           context ids, at 2-5 ranks
# Under a sanitizer build ($BUILD names it) fewer rank counts run.
#   BUILD=build/release bash test/mpi/test_mpi_fixes2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
progs=$BUILD/test/mpi
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi_fixes2
mkdir -p "$logdir"
pass=0
fail=0

for f in "$loomrun" "$progs"/mpi_fixes2_{status,idup}; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

# run <log name> <command...>: must exit 0
run() {
    local name=$1
    shift
    local log=$logdir/$name.log t0=$SECONDS rc
    timeout -k 5 120 "$@" >"$log" 2>&1
    rc=$?
    if [[ $rc == 0 ]]; then
        pass=$((pass + 1))
        printf '  ok    %-40s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-40s exit %s\n' "$name" "$rc"
    tail -n 15 "$log" | sed 's/^/        | /'
    return 1
}

if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    counts="2 3"
else
    counts="2 3 4 5"
fi

run status.singleton "$progs/mpi_fixes2_status"
for n in $counts; do
    run "idup.n$n" "$loomrun" -n "$n" "$progs/mpi_fixes2_idup" 10
done
run idup.tcp.n3 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_fixes2_idup"

echo "mpi fixes2: $pass passed, $fail failed (logs in $logdir)"
((fail == 0))
