#!/usr/bin/env bash
# test_mpi_rma_review.sh: defects found reviewing the inline one-sided path
# (session 11). mpi_rma_unaligned: accumulates at addresses not aligned for
# their type (disp unit 1, odd displacements, an odd origin address) on
# Win_allocate, Win_allocate_shared and Win_create windows, in a shared
# segment, by CMA read-modify-write (LOOM_RMA_CMA=acc) and by active
# messages (self,tcp). Exact results in every build; under UBSan
# (-fno-sanitize-recover) the unaligned typed loads of the reduction abort
# the job unless every path combines through aligned memory. mpi_rma_review:
# the other defects, one function each (see its header).
#   BUILD=build/release-address-undefined bash test/mpi/test_mpi_rma_review.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_rma_review
mdl_require "$loomrun" "$progs"/mpi_rma_unaligned "$progs"/mpi_rma_review
mdl_must_mention="passed on"

case "$BUILD" in
*-address*|*-thread*|*-undefined*) ranks="1 3" ;;
*)                                 ranks="1 2 4" ;;
esac

run 0 mpi_rma_unaligned.singleton timeout 60 "$progs/mpi_rma_unaligned" 3
for n in $ranks; do
    run 0 "mpi_rma_unaligned.n$n" timeout 90 "$loomrun" -n "$n" "$progs/mpi_rma_unaligned" 3
done
run 0 mpi_rma_unaligned.cma_acc.n2 timeout 90 env LOOM_RMA_CMA=acc \
    "$loomrun" -n 2 "$progs/mpi_rma_unaligned" 3
run 0 mpi_rma_unaligned.tcp.n2 timeout 90 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 2 "$progs/mpi_rma_unaligned" 3

run 0 mpi_rma_review.singleton timeout 60 "$progs/mpi_rma_review"
for n in $ranks; do
    run 0 "mpi_rma_review.n$n" timeout 90 "$loomrun" -n "$n" "$progs/mpi_rma_review"
done
run 0 mpi_rma_review.tcp.n2 timeout 90 env LOOM_TRANSPORTS=self,tcp \
    "$loomrun" -n 2 "$progs/mpi_rma_review"

mdl_summary "mpi rma review" "(logs in $logdir)"
