#!/usr/bin/env bash
# test_mpi_fixes10.sh: review fixes of stage 10, through test/mpi/mpi_fixes10.c:
#   - interfree: intercommunicator nonblocking collectives on a dup freed
#     before their wait complete normally (the intercomm is held until
#     they do; ASan saw freed memory read without it);
#   - alloc: Win_allocate in a shared segment and, with shm left out of
#     LOOM_TRANSPORTS, by active messages (the ranks agree on the path).
# The third fix (no memory for an RTS's pieces) is p2p/test_rndv_nomem.c.
#   BUILD=build/release bash test/mpi/test_mpi_fixes10.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_fixes10
prog=$BUILD/test/mpi/mpi_fixes10
mdl_require "$loomrun" "$prog"
mdl_width=36
mdl_timeout=60

case $BUILD in
*address* | *thread* | *undefined*) rounds=10 nps="2 3" ;;
*) rounds=50 nps="2 3 4" ;;
esac

for n in $nps; do
    run -m "mpi_fixes10 interfree: passed on $n ranks" 0 "interfree.n$n" \
        "$loomrun" -n $n "$prog" interfree $rounds
    run -m "mpi_fixes10 alloc: passed on $n ranks" 0 "alloc.n$n" \
        "$loomrun" -n $n "$prog" alloc $rounds
done
run -m "mpi_fixes10 interfree: passed on 3 ranks" 0 interfree.tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" interfree $rounds
run -m "mpi_fixes10 alloc: passed on 3 ranks" 0 alloc.tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" alloc $rounds

mdl_summary "mpi fixes10" "(logs in $logdir)"
