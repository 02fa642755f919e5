#!/usr/bin/env bash
# test_mpi_rma_rev17.sh: the review of session 17's one-sided change
# (mpi_rma_rev17.c): on Win_create windows whose ranks share a host, puts
# and gets of at most LOOM_RMA_CMA_MSG bytes go by message.
#   poll HOW: rank 0 waits for the flags the other ranks put (8 bytes, by
#   message) and flush, polling its own memory only inside MPI_Win_sync
#   (sync; acc: the flags set by MPI_Accumulate), lock/unlock of itself
#   (lockself) or lock_all/unlock_all (lockall). Before the review the
#   origins' flush waited for ever on CMA windows (those calls made no
#   progress pass; with LOOM_RMA_CMA_MSG=0 they passed), and Win_sync never
#   made one on any window but a shared segment (acc, LOOM_RMA_CMA=off, tcp).
#   excl: a counter under exclusive locks (lock words on CMA windows),
#   get + flush + put of 8 bytes (by message) per increment, while rank 0
#   polls it with lock/unlock of itself: exact only if each unlock waits
#   for its put before it frees the lock word; np 2-3, LOOM_RMA_CMA_MSG=0
#   (by CMA), LOOM_RMA_CMA=off, tcp.
#   cross: the same bytes by both paths with a flush (lock_all) or a fence
#   between: an 8-byte put by message read by an 8 KiB get by CMA, an 8 KiB
#   put by CMA read by 8-byte gets and an Rget by message, an 8-byte get
#   before an 8 KiB put; np 1-3, MSG=0, 64 KiB, off, tcp.
#   dtype: a vector target type of 2-byte pieces, 4096 bytes (by message)
#   and 4098 (CMA), put and read back by Get and Rget, np 1-3, over the
#   default, LOOM_RMA_CMA_MSG=0, LOOM_RMA_CMA=off and tcp.
#   mt: MPI_THREAD_MULTIPLE, three threads per rank putting 8 B to 16 KiB
#   (by message and by CMA) into one window under one lock_all, each
#   flushing and reading back by Get and Rget; np 1-3, and LOOM_RMA_CMA=off.
#   limits past 64 bits (LOOM_RMA_CMA_MSG, LOOM_RMA_ZCOPY): warned about
#   and the default taken (strtoull's ERANGE was taken as 2^64-1 before).
#   passive on rank 0 only (LOOM_RMA_CMA=passive): the window is not
#   passive, and rank 0 says so (silent before).
#   death_unlock: an exclusive lock (a lock word), an 8-byte put by message
#   to a rank that dies: the unlock fails with the peer's error, not hangs,
#   and leaves the lock word free.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev17.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev17
mdl_require "$loomrun" "$progs"/mpi_rma_rev17
prog=$progs/mpi_rma_rev17
ok="mpi_rma_rev17: passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="2"; dranks="1 3" ;;
*)                                 ranks="2 3"; dranks="1 2 3" ;;
esac

for n in $ranks; do
    for how in sync lockself lockall acc; do
        run -m "$ok" 0 "poll.$how.cma.n$n" "$loomrun" -n "$n" "$prog" poll "$how"
    done
done
for how in sync acc; do
    run -m "$ok" 0 "poll.$how.shm-am" env LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" poll "$how"
    run -m "$ok" 0 "poll.$how.tcp" env LOOM_TRANSPORTS=self,tcp \
        "$loomrun" -n 2 "$prog" poll "$how"
done
run -m "$ok" 0 poll.lockall.cma-msg0 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n 2 "$prog" poll lockall

for n in $ranks; do
    run -m "$ok" 0 "excl.cma.n$n" "$loomrun" -n "$n" "$prog" excl
done
run -m "$ok" 0 excl.cma-msg0 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n 3 "$prog" excl
run -m "$ok" 0 excl.shm-am env LOOM_RMA_CMA=off "$loomrun" -n 3 "$prog" excl
run -m "$ok" 0 excl.tcp env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" excl

for n in $dranks; do
    run -m "$ok" 0 "cross.cma.n$n" "$loomrun" -n "$n" "$prog" cross
done
run -m "$ok" 0 cross.cma-msg0 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n 2 "$prog" cross
run -m "$ok" 0 cross.cma-msg64k env LOOM_RMA_CMA_MSG=65536 "$loomrun" -n 2 "$prog" cross
run -m "$ok" 0 cross.shm-am env LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" cross
run -m "$ok" 0 cross.tcp env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" cross

for n in $dranks; do
    run -m "$ok" 0 "dtype.cma.n$n" "$loomrun" -n "$n" "$prog" dtype
done
run -m "$ok" 0 dtype.cma-msg0 env LOOM_RMA_CMA_MSG=0 "$loomrun" -n 2 "$prog" dtype
run -m "$ok" 0 dtype.shm-am env LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" dtype
run -m "$ok" 0 dtype.tcp env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" dtype

huge=99999999999999999999
run -m "LOOM_RMA_CMA_MSG=$huge is not a byte count; using 4096" \
    -m "LOOM_RMA_ZCOPY=$huge is not a byte count; using 65536" -m "$ok" 0 dtype.huge-limits \
    env LOOM_RMA_CMA_MSG=$huge LOOM_RMA_ZCOPY=$huge "$loomrun" -n 2 "$prog" dtype
run -m "rank 0: LOOM_RMA_CMA=passive here, but not on every rank" -x "rank 1: LOOM_RMA_CMA" \
    -m "$ok" 0 dtype.passive-rank0 "$loomrun" -n 2 sh -c \
    '[ "$PMIX_RANK" = 0 ] && export LOOM_RMA_CMA=passive; exec "$0" dtype' "$prog"
run -m "$ok" -x "LOOM_RMA_CMA=passive here" 0 dtype.passive-all \
    env LOOM_RMA_CMA=passive "$loomrun" -n 2 "$prog" dtype

for n in $dranks; do
    run -m "$ok" 0 "mt.cma.n$n" "$loomrun" -n "$n" "$prog" mt
done
run -m "$ok" 0 mt.shm-am env LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" mt

# rank 1 dies (137); rank 0 must print its line before loomrun stops it
run -m "death_unlock: unlock failed with class" 137 death_unlock.cma \
    env LOOM_ERRORS=return "$loomrun" -n 2 "$prog" death_unlock

mdl_summary "mpi rma rev17" "(logs in $logdir)"
