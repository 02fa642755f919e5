#!/usr/bin/env bash
# test_mpi_dt_pair.sh: the value+index pair types move their data, not the
# C struct's padding (MPI_DOUBLE_INT is 12 bytes on the wire and in
# MPI_Pack, dt_int.h LOOM_DT_PADDED_PAIRS): runs test/mpi/mpi_dt_pair (every
# pair type's wire bytes, MPI_DOUBLE_INT to and from an equivalent struct
# type, MPICH's get_elements_pairtype case, vectors and contiguous types of
# pairs, MPI_Pack, the other point-to-point calls, a truncation and a NULL
# buffer, and the collectives on pairs) on 1, 2 and 3 ranks, over shm and
# over self,tcp (whose typed rendezvous sends are packed as tcp reads
# them: the debug log must say so). Under a sanitizer build ($BUILD names
# it) the program leaves out its largest size.
#   BUILD=build/release bash test/mpi/test_mpi_dt_pair.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_pair
mdl_require "$loomrun" "$progs/mpi_dt_pair"
mdl_width=24
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small ;;
*)                  arg="" ;;
esac

for n in 1 2 3; do
    run -m "mpi_dt_pair: passed on $n ranks" 0 "shm.n$n" \
        "$loomrun" -n "$n" "$progs/mpi_dt_pair" $arg
done
run -m "mpi_dt_pair: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp LOOM_LOG=debug:p2p "$loomrun" -n 2 "$progs/mpi_dt_pair" $arg
# the truncated receive names both sizes: 2 pairs into 1 is 24 bytes into 12
expect_log shm.n2 "message of 24 bytes from rank 1 tag 10 truncated to the 12-byte"
# over tcp a typed rendezvous send of pairs is packed as tcp reads it
expect_log tcp.n2 "packed as tcp reads it"

mdl_summary test_mpi_dt_pair "(logs in $logdir)"
