#!/usr/bin/env bash
# test_mpi_dtypes.sh: derived datatypes at the MPI layer (issue 20): runs
# test/mpi/mpi_dt_p2p (every constructor through send/recv, isend/irecv,
# sendrecv(_replace), mprobe/mrecv at eager and rendezvous sizes),
# mpi_dt_intro (introspection, Get_elements/truncation, Pack/Unpack,
# external32, MPI_BOTTOM, error classes) and mpi_dt_coll (blocking
# and nonblocking collectives, the v-forms and reductions with a vector type;
# MPI_ERR_TYPE for what is not supported) under loomrun at 1-4 ranks, and over self,tcp. Under a
# sanitizer build ($BUILD names it) mpi_dt_p2p runs the eager size only.
#   BUILD=build/release bash test/mpi/test_mpi_dtypes.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dtypes
mdl_require "$loomrun" "$progs/mpi_dt_p2p" "$progs/mpi_dt_intro" "$progs/mpi_dt_coll"
mdl_width=30
mdl_log_filter="ERROR (p2p|dt|coll)"

case $BUILD in
*address*|*thread*) p2p_arg=small; sizes="1 2 3" ;;
*)                  p2p_arg="";    sizes="1 2 3 4" ;;
esac

for n in $sizes; do
    run -m "mpi_dt_p2p: passed on $n ranks" 0 "p2p.n$n" \
        "$loomrun" -n "$n" "$progs/mpi_dt_p2p" $p2p_arg
    run -m "mpi_dt_intro: passed on $n ranks" 0 "intro.n$n" "$loomrun" -n "$n" "$progs/mpi_dt_intro"
    run -m "mpi_dt_coll: passed on $n ranks" 0 "coll.n$n" "$loomrun" -n "$n" "$progs/mpi_dt_coll"
done
run -m "mpi_dt_p2p: passed on 2 ranks" 0 p2p.tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$progs/mpi_dt_p2p" $p2p_arg
run -m "mpi_dt_coll: passed on 3 ranks" 0 coll.tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_dt_coll"
# MPI_Start of a derived persistent receive that cannot allocate: MPI_ERR_NO_MEM
# (release only: it caps the address space, which a sanitizer cannot live with)
case $BUILD in
*address*|*thread*) ;;
*) run -m "mpi_dt_intro: passed on 1 ranks" 0 intro.startnomem \
       "$loomrun" -n 1 "$progs/mpi_dt_intro" startnomem ;;
esac
# an uncommitted type under MPI_ERRORS_ARE_FATAL: the job ends naming the call
run -m "MPI_ERR_TYPE" -m "not committed" nonzero fatal.uncommitted \
    "$loomrun" -n 1 "$progs/mpi_dt_intro" fatal

mdl_summary test_mpi_dtypes "(logs in $logdir)"
