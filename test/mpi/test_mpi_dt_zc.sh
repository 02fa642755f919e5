#!/usr/bin/env bash
# test_mpi_dt_zc.sh: non-contiguous datatypes through the point-to-point
# engine's typed paths (issue 20): runs test/mpi/mpi_dt_zc (every
# constructor kind, eager and rendezvous counts, derived<->derived,
# derived<->bytes, ssend, sendrecv, persistent, mprobe, self, truncation
# and Get_elements on partial data, all checked byte for byte against
# hand-written type maps) under loomrun at 2-4 ranks over shared memory
# (get_iov by process_vm_readv), with LOOM_SHM_CMA=off (the pipelined get
# into a bounce buffer), LOOM_EAGER_LIMIT=0 (every message a rendezvous)
# and over self,tcp (am_send_pack; a rendezvous through the bounce).
# Rendezvous messages are 300 KiB, 2.2 MiB over tcp at 2 ranks (several
# reads through the 1 MiB bounce); under a sanitizer build ($BUILD names it) the
# program runs its "small" sizes and fewer configurations.
#   BUILD=build/release bash test/mpi/test_mpi_dt_zc.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_dt_zc
mdl_require "$loomrun" "$progs/mpi_dt_zc"
mdl_width=30
mdl_log_filter="ERROR p2p: receive on .* truncated"

case $BUILD in
*address*|*thread*) arg=small; sizes="2 3" ;;
*)                  arg="";    sizes="2 3 4" ;;
esac

for n in $sizes; do
    run -m "mpi_dt_zc: passed on $n ranks" 0 "shm.n$n" "$loomrun" -n "$n" "$progs/mpi_dt_zc" $arg
done
run -m "mpi_dt_zc: passed on 2 ranks" 0 shm.cma_off.n2 \
    env LOOM_SHM_CMA=off "$loomrun" -n 2 "$progs/mpi_dt_zc" $arg
run -m "mpi_dt_zc: passed on 3 ranks" 0 shm.eager0.n3 \
    env LOOM_EAGER_LIMIT=0 "$loomrun" -n 3 "$progs/mpi_dt_zc" $arg
run -m "mpi_dt_zc: passed on 2 ranks" 0 tcp.n2 \
    env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 "$progs/mpi_dt_zc" ${arg:-large}
case $BUILD in
*address*|*thread*) ;;
*) run -m "mpi_dt_zc: passed on 3 ranks" 0 tcp.eager0.n3 \
       env LOOM_TRANSPORTS=self,tcp LOOM_EAGER_LIMIT=0 "$loomrun" -n 3 "$progs/mpi_dt_zc" ;;
esac
# the truncation is reported naming both ends (the receive's and the sender's rank)
expect_log shm.n2 "truncated to the" "from rank"

mdl_summary test_mpi_dt_zc "(logs in $logdir)"
