#!/usr/bin/env bash
# test_mpi_mt_s16.sh: MPI_THREAD_MULTIPLE, session 16: waits that leave the
# engine lock while another thread drives progress (test/mpi/mpi_mt_s16.c,
# built by `make mpi-progs`): requests completed (and cancelled) by other
# threads while their waiters hold no lock; every completion call, cancel
# and free from many threads at once. Under a sanitizer build ($BUILD names
# it) fewer iterations run; under TSan a report fails the case.
#   BUILD=build/release bash test/mpi/test_mpi_mt_s16.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_mt_s16
mdl_require "$loomrun" "$progs"/mpi_mt_s16
mdl_width=40
mdl_timeout=60
mdl_shun=(-x "WARNING: ThreadSanitizer" -x "ERROR: AddressSanitizer" -x "runtime error")

if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    iters=10
else
    iters=60
fi
if [[ $BUILD == *thread* ]]; then
    export TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66 suppressions=$PWD/test/tsan.supp"
fi

run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 detach.t3 "$loomrun" -n 2 \
    "$progs/mpi_mt_s16" detach 3 "$iters"
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 detach.t6 "$loomrun" -n 2 \
    "$progs/mpi_mt_s16" detach 6 "$iters"
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 mix.t2 "$loomrun" -n 2 \
    "$progs/mpi_mt_s16" mix 2 "$iters"
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 mix.t5 "$loomrun" -n 2 \
    "$progs/mpi_mt_s16" mix 5 "$iters"

mdl_summary "mpi mt s16" "(logs in $logdir)"
