#!/usr/bin/env bash
# test_mpi_rma_rev16.sh: the review of session 16's one-sided frames
# (mpi_rma_rev16.c).
#   death: the target is killed with a fetch-and-op and a small get (both
#   answered by a REPLY naming an id) and a lock unserved: the origin's
#   flush fails with the peer's error instead of waiting for ever. Over CMA
#   windows (atomics by message), LOOM_RMA_CMA=off, tcp, Win_allocate over
#   tcp. death_rget: the same with an R-form get (a posted receive the
#   engine fails): the flush reports the peer's failure (MPI_ERR_OTHER).
#   death3: an accumulate queued for a rank whose failure another flush
#   finds; its own flush then fails instead of waiting. death3_idle:
#   nothing sent to the dead rank: flush_all succeeds.
#   edge: replies by id under lock_all, fence and PSCW, to every rank and
#   itself, with zero-byte get-likes, MPI_PROC_NULL and an R-form get among
#   them; Win_create, Win_allocate and dynamic windows, over CMA windows,
#   LOOM_RMA_CMA=off, tcp and LOOM_RMA_AM=off; np 1 to 3.
#   BUILD=build/release bash test/mpi/test_mpi_rma_rev16.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_rev16
mdl_require "$loomrun" "$progs"/mpi_rma_rev16
prog=$progs/mpi_rma_rev16

# rank 1 dies (137); rank 0 must print its line before loomrun stops it
run -m "death: flush failed with class" 137 death.cma \
    env LOOM_ERRORS=return "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.shm-am \
    env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.tcp \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death create
run -m "death: flush failed with class" 137 death.tcp-alloc \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death allocate
case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 3" ;;
*)                                 ranks="1 2 3" ;;
esac
for n in $ranks; do
    for f in create allocate dynamic; do
        run -m "mpi_rma_rev16 edge: passed on" 0 "edge.cma.$f.n$n" \
            "$loomrun" -n "$n" "$prog" edge "$f"
        run -m "mpi_rma_rev16 edge: passed on" 0 "edge.shm-am.$f.n$n" \
            env LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" edge "$f"
        run -m "mpi_rma_rev16 edge: passed on" 0 "edge.tcp.$f.n$n" \
            env LOOM_TRANSPORTS=self,tcp "$loomrun" -n "$n" "$prog" edge "$f"
    done
    run -m "mpi_rma_rev16 edge: passed on" 0 "edge.noframes.n$n" \
        env LOOM_RMA_AM=off LOOM_RMA_CMA=off "$loomrun" -n "$n" "$prog" edge create
done
# an R-form get (its reply a posted receive, failed by the engine with the
# peer): the flush after it fails with the peer's error, not the unwritten
# status word of the reply buffer (MPI_ERR_UNKNOWN before)
run -m "death: flush failed with class" 137 death_rget.shm-am \
    env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 2 "$prog" death_rget create
run -m "death: flush failed with class" 137 death_rget.tcp \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$prog" death_rget create
# three ranks: an accumulate queued for the dead rank 2 while a flush to the
# live rank 1 finds the failure; the flush to rank 2 then fails (over tcp it
# waited for ever: the queued accumulate counted as answered, then its
# failed send uncounted it again)
run -m "death3: flush failed with class" 137 death3.tcp \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" death3 create
run -m "death3: flush failed with class" 137 death3.shm-am \
    env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 3 "$prog" death3 create
# the same death with nothing sent to rank 2: flush_all succeeds (the first
# version set every failed target's error, sent to or not)
run -m "death3 idle: flush_all succeeded" 137 death3_idle.tcp \
    env LOOM_ERRORS=return LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$prog" death3_idle create
run -m "death3 idle: flush_all succeeded" 137 death3_idle.shm-am \
    env LOOM_ERRORS=return LOOM_RMA_CMA=off "$loomrun" -n 3 "$prog" death3_idle create
expect_log death.shm-am "awaiting its reply (id 1, 8 bytes) from rank 1, which failed"

mdl_summary "mpi rma rev16" "(logs in $logdir)"
