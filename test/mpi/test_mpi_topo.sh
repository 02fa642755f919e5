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
. test/mpi/mpi_driver_lib.sh
mdl_init mpi
mdl_require "$loomrun" "$progs"/mpi_topo "$progs"/mpi_topo_nbr
mdl_must_mention=": passed on "    # each program's closing line

# sanitizer builds are several times slower: fewer sizes there
sizes="1 2 3 4 5 6 7 8"
if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    sizes="1 2 3 5 8"
fi

for p in topo topo_nbr; do
    run 0 "mpi_$p.singleton" "$progs/mpi_$p"
    for n in $sizes; do
        run 0 "mpi_$p.n$n" "$loomrun" -n "$n" "$progs/mpi_$p"
    done
    for n in 3 5; do
        run 0 "mpi_$p.tcp.n$n" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$progs/mpi_$p"
    done
done
# the algorithm forced by name (it is the only one; the variable must parse)
run 0 mpi_topo_nbr.forced.n4 env LOOM_NEIGHBOR_ALGORITHM=linear "$loomrun" -n 4 \
    "$progs/mpi_topo_nbr"

mdl_summary "mpi topology programs" "(logs in $logdir)"
