#!/usr/bin/env bash
# test_mpi_threads.sh: MPI_THREAD_MULTIPLE (issue #24) as ordinary MPI
# programs under loomrun (test/mpi/mpi_thread_*.c, built by `make
# mpi-progs`): the thread levels; concurrent send/recv on one and on
# per-thread communicators; wildcard and specific receives of one stream
# from several threads; Mprobe/Improbe races; collectives on per-thread
# communicators made concurrently; requests completed by another thread;
# buffered sends from several threads through one attached buffer; threads
# that take turns alone (the engine lock gets biased to each) and then call
# at once (the others revoke the bias while its owner is inside).
# Eager and rendezvous sizes, shm and tcp, 2-4 ranks with 2-4 threads each
# (oversubscribed on a small machine: the waiting threads sleep in the
# engine lock). Under a sanitizer build ($BUILD names it) fewer cases run;
# under TSan every case must also be free of reports.
# Also: scripts/mt_guard.py --check fails, naming the function, on a
# scratch tree whose entry point lacks the guard.
#   BUILD=build/release bash test/mpi/test_mpi_threads.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_threads
mdl_require "$loomrun" "$progs"/mpi_thread_{mt,level}
mdl_width=40
mdl_timeout=60
mdl_shun=(-x "WARNING: ThreadSanitizer" -x "ERROR: AddressSanitizer" -x "runtime error")

if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    shapes="3:3:10"
    modes="p2p race mprobe coll handoff bsend bias"
else
    shapes="2:4:40 4:3:30"
    modes="p2p race mprobe coll handoff bsend bias"
fi
if [[ $BUILD == *thread* ]]; then
    # a TSan report fails the case even when the program passed
    export TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66 suppressions=$PWD/test/tsan.supp"
fi

for level in 0 1 2 3 4; do
    run "${mdl_shun[@]}" -m "mpi_thread_level $level: passed" 0 "level$level.n2" "$loomrun" -n 2 "$progs/mpi_thread_level" "$level"
done
run "${mdl_shun[@]}" -m "passed on 1 ranks" 0 level3.singleton "$progs/mpi_thread_level" 3

for shape in $shapes; do
    IFS=: read -r n t i <<<"$shape"
    for m in $modes; do
        run "${mdl_shun[@]}" -m "passed on $n ranks" 0 "$m.n$n.t$t" "$loomrun" -n "$n" "$progs/mpi_thread_mt" "$m" "$t" "$i"
    done
done
# rendezvous for every size above 256 bytes, and the tcp transport
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 p2p.rndv.n2 env LOOM_EAGER_LIMIT=256 "$loomrun" -n 2 \
    "$progs/mpi_thread_mt" p2p 3 10
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 mprobe.rndv.n2 env LOOM_EAGER_LIMIT=256 "$loomrun" -n 2 \
    "$progs/mpi_thread_mt" mprobe 3 20
run "${mdl_shun[@]}" -m "passed on 3 ranks" 0 p2p.tcp.n3 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 \
    "$progs/mpi_thread_mt" p2p 2 10
run "${mdl_shun[@]}" -m "passed on 2 ranks" 0 race.tcp.n2 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 2 \
    "$progs/mpi_thread_mt" race 3 20

# the guard checker fails on an entry point without the guard, naming it
scratch=$(mktemp -d)
mkdir -p "$scratch/include" "$scratch/p2p" "$scratch/mpi"
printf 'LOOM_API int loom_thing(int x);\nLOOM_API int loom_other(void);\n' \
    >"$scratch/include/loom.h"
printf '#include "mt_int.h"\nint loom_thing(int x)\n{\n    LOOM_MT_GUARD();\n    return x;\n}\n' \
    >"$scratch/p2p/good.c"
printf '#pragma weak MPI_Foo = PMPI_Foo\nint PMPI_Foo(void)\n{\n    return 0;\n}\n' \
    >"$scratch/mpi/mpi_foo.c"
if LOOM_MT_GUARD_TOP=$scratch python3 scripts/mt_guard.py --check >"$logdir/guard.bad.log" 2>&1; then
    mdl_fail guard.check.fails "the checker passed a PMPI_Foo without the guard" "$logdir/guard.bad.log"
elif grep -q "mpi/mpi_foo.c:2: PMPI_Foo does not start with LOOM_MT_GUARD" "$logdir/guard.bad.log"; then
    mdl_pass guard.check.fails
else
    mdl_fail guard.check.fails "the checker's message does not name mpi/mpi_foo.c:2 PMPI_Foo" \
        "$logdir/guard.bad.log"
fi
LOOM_MT_GUARD_TOP=$scratch python3 scripts/mt_guard.py --fix >"$logdir/guard.fix.log" 2>&1
if LOOM_MT_GUARD_TOP=$scratch python3 scripts/mt_guard.py --check >>"$logdir/guard.fix.log" 2>&1 &&
    grep -q '#include "mt_int.h"' "$scratch/mpi/mpi_foo.c"; then
    mdl_pass guard.fix.then.check
else
    mdl_fail guard.fix.then.check "--fix did not make --check pass" "$logdir/guard.fix.log"
fi
rm -rf "$scratch"

mdl_summary "mpi threads" "(logs in $logdir)"
