#!/usr/bin/env bash
# test_mpi_progs.sh: run the MPI test programs (test/mpi/mpi_*.c, ordinary
# MPI programs built with loomcc by `make mpi-progs`) under loomrun with
# 1..5 ranks, over the default transports and over self,tcp, plus the
# failure modes: a fatal error, an unsupported call and MPI_Abort must end
# the job with a message naming the call.
#   BUILD=build/release bash test/mpi/test_mpi_progs.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi
mdl_require "$loomrun" "$progs"/mpi_{p2p,requests,coll,icoll,collv,comm,errors,profile,pack}

for p in coll icoll collv comm errors profile pack; do
    run 0 "mpi_$p.singleton" "$progs/mpi_$p"          # no launcher: singleton
    for n in 1 3; do
        run 0 "mpi_$p.n$n" "$loomrun" -n $n "$progs/mpi_$p"
    done
done
for p in p2p requests coll icoll collv comm errors profile; do
    for n in 2 4; do
        run 0 "mpi_$p.n$n" "$loomrun" -n $n "$progs/mpi_$p"
    done
done
run 0 mpi_coll.n5 "$loomrun" -n 5 "$progs/mpi_coll"
for p in p2p requests coll collv; do
    run 0 "mpi_$p.tcp.n3" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_$p"
done

# failures end the job, naming the call and the class
run nonzero mpi_errors.fatal "$loomrun" -n 3 "$progs/mpi_errors" fatal &&
    expect_log mpi_errors.fatal MPI_Send MPI_ERR_RANK MPI_ERRORS_ARE_FATAL
run nonzero mpi_errors.fatal.singleton "$progs/mpi_errors" fatal &&
    expect_log mpi_errors.fatal.singleton MPI_Send MPI_ERR_RANK
run nonzero mpi_errors.unsupported "$loomrun" -n 2 "$progs/mpi_errors" unsupported &&
    expect_log mpi_errors.unsupported MPI_File_open MPI_ERR_UNSUPPORTED_OPERATION
run 7 mpi_errors.abort "$loomrun" -n 2 "$progs/mpi_errors" abort &&
    expect_log mpi_errors.abort "MPI_Abort" "error code 7"

mdl_summary "mpi programs" "(logs in $logdir)"
