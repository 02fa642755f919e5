#!/usr/bin/env bash
# test_mpi_threads2.sh: MPI_THREAD_MULTIPLE regressions from the review of
# the MULTIPLE stage (test/mpi/mpi_thread_mt2.c, built by `make mpi-progs`):
# side storage of concurrent nonblocking v-collectives completed by
# different threads; context ids when processes run at different thread
# levels; freeing the parent of a pending MPI_Comm_idup; an error handler that longjmps out of a call does not leave the
# engine lock held. Under a sanitizer build ($BUILD names it) fewer iterations run;
# under TSan a report fails the case.
#   BUILD=build/release bash test/mpi/test_mpi_threads2.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_threads2
mdl_require "$loomrun" "$progs"/mpi_thread_mt2
mdl_width=40
mdl_timeout=60
mdl_shun=(-x "WARNING: ThreadSanitizer" -x "ERROR: AddressSanitizer" -x "runtime error")

if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    iters=40
else
    iters=300
fi
if [[ $BUILD == *thread* ]]; then
    export TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66 suppressions=$PWD/test/tsan.supp"
fi

run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 side.n2.t4 "$loomrun" -n 2 \
    "$progs/mpi_thread_mt2" side 4 "$iters"
run "${mdl_shun[@]}" -m "passed on 3 ranks" 0 side.n3.t3 "$loomrun" -n 3 \
    "$progs/mpi_thread_mt2" side 3 "$iters"
run "${mdl_shun[@]}" -m "passed on 3 ranks" 0 mixed.n3 "$loomrun" -n 3 \
    "$progs/mpi_thread_mt2" mixed 1 1
run "${mdl_shun[@]}" -m "passed on 4 ranks" 0 mixed.n4 "$loomrun" -n 4 \
    "$progs/mpi_thread_mt2" mixed 1 1

run "${mdl_shun[@]}" -m "passed on 3 ranks" 0 idupfree.n3.t2 "$loomrun" -n 3 \
    "$progs/mpi_thread_mt2" idupfree 2 "$((iters / 20))"
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 errjmp.n2 "$loomrun" -n 2 \
    "$progs/mpi_thread_mt2" errjmp 1 1

mdl_summary "mpi threads2" "(logs in $logdir)"
