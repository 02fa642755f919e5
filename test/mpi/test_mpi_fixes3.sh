#!/usr/bin/env bash
# test_mpi_fixes3.sh: regression runs for the defects of issue #18, one
# mode of test/mpi/mpi_fixes3 each (see the program's header):
#   mprobe   messages taken by MPI_Mprobe/MPI_Improbe and never received
#            (rendezvous, ssend, eager): both ranks finalize, with warnings
#   persist  a persistent send/recv started after its communicator was freed
#            reaches the right rank, not a communicator made afterwards
#   f2c      a freed handle's Fortran index converts back to the null handle
#   BUILD=build/release bash test/mpi/test_mpi_fixes3.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_fixes3
prog=$BUILD/test/mpi/mpi_fixes3
mdl_require "$loomrun" "$prog"

run -t 30 -m "mpi_fixes3 mprobe: passed on 2 ranks" \
    -m "messages taken by a matched probe (loom_mprobe/loom_improbe) were never received" \
    -m "the rendezvous send of 1048576 bytes from rank 0" \
    -m "the ssend of 4 bytes from rank 0" \
    -m "finalized without receiving this rank's rendezvous send of 1048576 bytes" \
    0 mprobe.n2 "$loomrun" -n 2 "$prog" mprobe
run -t 30 -m "mpi_fixes3 mprobe: passed on 3 ranks" 0 mprobe.tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" mprobe
run -t 30 -m "mpi_fixes3 persist: passed on 3 ranks" 0 persist.n3 \
    "$loomrun" -n 3 "$prog" persist
run -t 30 -m "mpi_fixes3 persist: passed on 4 ranks" 0 persist.n4 \
    "$loomrun" -n 4 "$prog" persist
run -t 30 -m "mpi_fixes3 f2c: passed on 2 ranks" 0 f2c.n2 "$loomrun" -n 2 "$prog" f2c

# a collective mismatch queued behind a create_group message: reported, not waited for
run -t 30 -m "rank 1 called barrier but rank 0 called bcast (root 2)" nonzero collcreate.n3 \
    env LOOM_BCAST_ALGORITHM=chain LOOM_BARRIER_ALGORITHM=dissemination \
    "$loomrun" -n 3 "$prog" collcreate

mdl_summary test_mpi_fixes3 "(logs in $logdir)"
