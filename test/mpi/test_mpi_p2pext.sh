#!/usr/bin/env bash
# test_mpi_p2pext.sh: the point-to-point additions of issue #18 as ordinary
# MPI programs under loomrun (test/mpi/mpi_p2pext_*.c, built by
# `make mpi-progs`): persistent and generalized requests, buffered mode,
# matched probe; at 1-8 ranks (odd counts too), with eager and with
# rendezvous sizes (LOOM_EAGER_LIMIT small), once over self,tcp, and a
# buffered send into a full buffer under the default (fatal) handler.
# Under a sanitizer build ($BUILD names it) fewer rank counts run.
#   BUILD=build/release bash test/mpi/test_mpi_p2pext.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_p2pext
mdl_require "$loomrun" "$progs"/mpi_p2pext_{persist,bsend,mprobe}
mdl_width=40

if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    counts="1 3 4"
    rcounts="3"
else
    counts="1 2 3 5 8"
    rcounts="3 4 7"
fi

for p in persist bsend mprobe; do
    run 0 "$p.singleton" "$progs/mpi_p2pext_$p"        # no launcher
    for n in $counts; do
        run 0 "$p.n$n" "$loomrun" -n "$n" "$progs/mpi_p2pext_$p"
    done
done
# rendezvous everywhere but the smallest messages
for n in $rcounts; do
    run 0 "persist.rndv.n$n" env LOOM_EAGER_LIMIT=256 "$loomrun" -n "$n" \
        "$progs/mpi_p2pext_persist" 3000 40
    run 0 "bsend.rndv.n$n" env LOOM_EAGER_LIMIT=64 "$loomrun" -n "$n" \
        "$progs/mpi_p2pext_bsend" 5000
    run 0 "mprobe.rndv.n$n" env LOOM_EAGER_LIMIT=64 "$loomrun" -n "$n" \
        "$progs/mpi_p2pext_mprobe" 3000 20
done
for p in persist bsend mprobe; do
    run 0 "$p.tcp.n3" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_p2pext_$p"
done

# a buffered send that does not fit ends the job, saying needed vs available
run nonzero bsend.fatal "$loomrun" -n 2 "$progs/mpi_p2pext_bsend" fatal &&
    expect_log bsend.fatal MPI_Bsend MPI_ERR_BUFFER "needs 128 bytes" "available: 104"

mdl_summary "mpi p2p additions" "(logs in $logdir)"
