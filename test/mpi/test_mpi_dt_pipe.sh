#!/usr/bin/env bash
# test_mpi_dt_pipe.sh: the pipelined typed rendezvous (issue 20, docs/p2p.md
# "Derived datatypes"): runs test/mpi/mpi_dt_pipe (large messages of small
# pieces, sent in a ring at 2-4 ranks with one type and received with
# another of the same signature: column -> doubles, column -> blocked
# vector, struct -> struct, 3-D subarray -> vector; each also truncated,
# with MPI_Get_count / MPI_Get_elements checked; every byte checked,
# gaps poisoned) over shared memory, where the sender packs in steps the
# receiver reads as they are published (the debug log must say so), with
# LOOM_SHM_CMA=off (no pipeline: the whole pack and the owner-served get),
# with CMA off on rank 1 only (the others pipeline to it; it gets their
# copies whole), over self,tcp, and on one rank (every message to self,
# unpacked straight from the sender's packed stream). Under a sanitizer
# build ($BUILD names it) the program runs its "small" cases.
#   BUILD=build/release bash test/mpi/test_mpi_dt_pipe.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_pipe
mdl_require "$loomrun" "$progs/mpi_dt_pipe" "$progs/mpi_dt_pipe_edge"
mdl_width=30
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small ;;
*)                  arg="" ;;
esac

# one rank: every message goes to self, copied by the receive from the send's
# layout (not packed: LOOM_P2P_RTS_SELF)
run -m "mpi_dt_pipe: passed on 1 ranks" 0 self.n1 \
    env LOOM_LOG=debug:p2p "$loomrun" -n 1 "$progs/mpi_dt_pipe" $arg
for n in 2 3 4; do
    run -m "mpi_dt_pipe: passed on $n ranks" 0 "shm.n$n" \
        env LOOM_LOG=debug:p2p "$loomrun" -n "$n" "$progs/mpi_dt_pipe" $arg
done
run -m "mpi_dt_pipe: passed on 2 ranks" 0 shm.cma_off.n2 \
    env LOOM_SHM_CMA=off "$loomrun" -n 2 "$progs/mpi_dt_pipe" $arg
# CMA one way only: rank 1 turns it off, the others still read it, so they
# pipeline to it while it cannot read their copies (it reads each whole with
# a get() their progress serves once the pack ended)
oneway='[ "$PMIX_RANK" = 1 ] && export LOOM_SHM_CMA=off; exec "$@"'
for n in 2 3; do
    run -m "mpi_dt_pipe: passed on $n ranks" 0 "oneway.n$n" \
        env LOOM_LOG=debug:p2p "$loomrun" -n "$n" sh -c "$oneway" oneway "$progs/mpi_dt_pipe" $arg
done
run -m "mpi_dt_pipe_edge: passed on 2 ranks" 0 edge.oneway.n2 \
    env LOOM_LOG=debug:p2p "$loomrun" -n 2 sh -c "$oneway" oneway "$progs/mpi_dt_pipe_edge"
run -m "mpi_dt_pipe: passed on 3 ranks" 0 tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_dt_pipe" $arg
# the receive side's corner cases (mpi_dt_pipe_edge.c): any source, Mprobe/
# Mrecv, posted after the pack, contiguous bytes, truncated below the first
# published bytes, a type of negative lb with holes
run -m "mpi_dt_pipe_edge: passed on 2 ranks" 0 edge.shm.n2 \
    env LOOM_LOG=debug:p2p "$loomrun" -n 2 "$progs/mpi_dt_pipe_edge"
run -m "mpi_dt_pipe_edge: passed on 3 ranks" 0 edge.tcp.n3 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_dt_pipe_edge"
expect_log edge.shm.n2 "packed while read" "tag 4 truncated to the 800-byte"
# the pipeline ran (shm with CMA), and truncation names both ends
expect_log shm.n2 "packed while read" "truncated to the" "from rank"
expect_log shm.n4 "packed while read"
expect_log self.n1 "to rank 0 not packed: to this process" "truncated to the"
expect_log oneway.n2 "to rank 1 packed while read"
expect_log oneway.n3 "to rank 1 packed while read"
expect_log edge.oneway.n2 "to rank 1 packed while read"

mdl_summary test_mpi_dt_pipe "(logs in $logdir)"
