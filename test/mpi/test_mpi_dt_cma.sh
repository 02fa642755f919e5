#!/usr/bin/env bash
# test_mpi_dt_cma.sh: typed rendezvous sends that are not packed (issue 20):
# runs test/mpi/mpi_dt_cma (inline and out-of-line piece arrays, more
# pieces than IOV_MAX on each side, mixed piece sizes in reverse address
# order, count > 1 of a resized type, receives as the same type, as bytes,
# through a bounce and with other piece edges, truncation; every byte of
# the receive buffer checked against hand-written maps) over shared memory
# (process_vm_readv on both sides for pieces of 8 KiB and more; the
# sender's debug line proves they were not packed, and that 600-byte pieces
# were, except to itself), with LOOM_SHM_CMA=off and over self,tcp (the
# sender packs: same data), and the peer's death while the receiver reads
# its pieces (the receive fails with MPI_ERR_OTHER, logged naming both ends),
# and CMA allowed one way only (the receiver reads the pieces one get each).
#   BUILD=build/release bash test/mpi/test_mpi_dt_cma.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_cma
mdl_require "$loomrun" "$progs/mpi_dt_cma"
mdl_width=30
mdl_log_filter="ERROR p2p: receive on .* truncated"
prog=$progs/mpi_dt_cma

# no_unpacked NAME WHAT: rank 0's sends to rank 1 in case NAME's log
# include no unpacked one of WHAT (e.g. "3000 pieces"; "" for any)
no_unpacked() {
    if grep -qE "^loom\[0@[^]]*\] DEBUG p2p: typed send .* to rank 1 not packed: $2" \
        "$logdir/$1.log"; then
        mdl_fail "$1.packed" "rank 0 did not pack a send to rank 1${2:+ of $2}" "$logdir/$1.log"
    else
        mdl_pass "$1.packed"
    fi
}

run -m "mpi_dt_cma: passed on 2 ranks" -m "1100 pieces, their array read from this rank" \
    -m "16 pieces, inline in the RTS" -m "1200 pieces, their array" -m "160 pieces" \
    -m "to rank 0 not packed: to this process" -m "moved in one pass (one layout)" \
    -m "piece to piece (two layouts)" -x "20000 pieces" \
    0 shm.n2 env LOOM_LOG=debug:p2p "$loomrun" -n 2 "$prog" && no_unpacked shm.n2 "3000 pieces"
case $BUILD in
*address*|*thread*) ;;
*) run -m "mpi_dt_cma: passed on 3 ranks" 0 shm.eager0.n3 \
       env LOOM_EAGER_LIMIT=0 "$loomrun" -n 3 "$prog" ;;
esac
run -m "mpi_dt_cma: passed on 2 ranks" 0 shm.cma_off.n2 \
    env LOOM_SHM_CMA=off LOOM_LOG=debug:p2p "$loomrun" -n 2 "$prog" && no_unpacked shm.cma_off.n2 ""
run -m "mpi_dt_cma: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp LOOM_LOG=debug:p2p "$loomrun" -n 2 "$prog" && no_unpacked tcp.n2 ""
# CMA allowed one way only (rank 1 runs with it off): rank 0 does not pack
# the inline type, rank 1's get_riov is refused and it reads piece by piece
run -m "mpi_dt_cma inline: passed on 2 ranks" -m "to rank 1 not packed: 16 pieces" \
    0 shm.cma_oneway.n2 env LOOM_LOG=debug:p2p "$loomrun" -n 2 sh -c \
    '[ "$PMIX_RANK" = 1 ] && export LOOM_SHM_CMA=off; exec "$0" inline' "$prog"
# the truncation is reported naming both ends
expect_log shm.n2 "truncated to the 5740000-byte receive buffer" "from rank 0"

# the sender dies before its pieces are read: after earlier reads of it
# (process_vm_readv finds no such process), with its array out of line, and
# before any read (the first probe finds it gone)
for m in death_inline death_remote death_first; do
    run -m "death: receive failed with MPI_ERR_OTHER" -m "exited or was killed" \
        -m "operation get_riov" 137 "$m" "$loomrun" -n 2 "$prog" "$m"
done
expect_log death_remote "cannot read the 1100 pieces of a rendezvous send from rank 1"

mdl_summary test_mpi_dt_cma "(logs in $logdir)"
