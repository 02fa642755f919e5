#!/usr/bin/env bash
# test_mpi_topo.sh: process topologies and neighbourhood collectives as MPI
# programs (test/mpi/mpi_topo.c, test/mpi/mpi_topo_nbr.c, built with loomcc
# by `make mpi-progs`): as a singleton, under loomrun at 1..8 ranks (odd
# sizes and sizes that are not powers of two included), and over self,tcp.
# Each program checks every block and every error class itself and aborts
# the job on the first difference.
#   BUILD=build/release bash test/mpi/test_mpi_topo.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
progs=$BUILD/test/mpi
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi
mkdir -p "$logdir"
pass=0
fail=0

for f in "$loomrun" "$progs"/mpi_topo "$progs"/mpi_topo_nbr; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

# run <log name> <command...>: must exit 0 and print the program's pass line
run() {
    local name=$1
    shift
    local log=$logdir/$name.log t0=$SECONDS rc
    timeout -k 5 120 "$@" >"$log" 2>&1
    rc=$?
    if [[ $rc == 0 ]] && grep -q ": passed on " "$log"; then
        pass=$((pass + 1))
        printf '  ok    %-36s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-36s exit %s\n' "$name" "$rc"
    tail -n 15 "$log" | sed 's/^/        | /'
    return 1
}

# sanitizer builds are several times slower: fewer sizes there
sizes="1 2 3 4 5 6 7 8"
if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    sizes="1 2 3 5 8"
fi

for p in topo topo_nbr; do
    run "mpi_$p.singleton" "$progs/mpi_$p"
    for n in $sizes; do
        run "mpi_$p.n$n" "$loomrun" -n "$n" "$progs/mpi_$p"
    done
    for n in 3 5; do
        run "mpi_$p.tcp.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$progs/mpi_$p"
    done
done
# the algorithm forced by name (it is the only one; the variable must parse)
run mpi_topo_nbr.forced.n4 env LOOM_NEIGHBOR_ALGORITHM=linear "$loomrun" -n 4 \
    "$progs/mpi_topo_nbr"

echo "mpi topology programs: $pass passed, $fail failed (logs in $logdir)"
((fail == 0))
