#!/usr/bin/env bash
# test_shm_loomrun.sh: the shm transport through the whole stack under
# loomrun: every pair of ranks exchanges messages across the eager and
# rendezvous sizes (checked byte by byte) with single-copy get, with the
# pipelined copy (LOOM_SHM_CMA=off), with a tiny FIFO, fast boxes and
# fragment pool that force back-pressure on every burst, and with no fast
# boxes at all (every frame through the FIFO); the segment must be gone
# afterwards.
#   BUILD=build/release bash test/shm/test_shm_loomrun.sh
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/shm/prog_shm_pingpong
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
fail=0

for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

if ldd "$LOOMRUN" 2>/dev/null | grep -q libtsan; then
    # libpmix and its libevent are not instrumented: their progress thread's
    # own locking shows up as races. Ours must not.
    supp=$(mktemp)
    trap 'rm -f "$supp"' EXIT
    for lib in libpmix.so.2 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7; do
        printf 'called_from_lib:%s\nrace:%s\nmutex:%s\ndeadlock:%s\n' "$lib" "$lib" "$lib" "$lib"
    done >"$supp"
    export TSAN_OPTIONS="suppressions=$supp ${TSAN_OPTIONS:-}"
fi

# run NAME NP [-x VAR=value ...]: the job must print "OK check" and exit 0
run() {
    local name=$1 np=$2; shift 2
    local t0=$SECONDS out rc
    out=$("$LOOMRUN" -q --timeout 120 -x LOOM_TRANSPORTS=shm "$@" -n "$np" "$PROG" check 2>&1)
    rc=$?
    if [[ $rc -ne 0 || $out != *"OK check"* ]]; then
        echo "FAIL $name (np $np, exit $rc, $((SECONDS - t0))s)"
        echo "$out" | tail -n 20 | sed 's/^/    /'
        fail=1
    else
        echo "ok   $name (np $np, $((SECONDS - t0))s)"
    fi
}

for np in 2 3 4; do
    run "single-copy get"  $np
    run "pipelined get"    $np -x LOOM_SHM_CMA=off
    run "tiny queues"      $np -x LOOM_SHM_RING_SLOTS=2 -x LOOM_SHM_SLOT_SIZE=1k \
        -x LOOM_SHM_FIFO_SLOTS=2 -x LOOM_SHM_FRAGS=1 -x LOOM_SHM_FBOX_THRESHOLD=3
done
run "tiny queues, pipelined" 3 -x LOOM_SHM_RING_SLOTS=4 -x LOOM_SHM_SLOT_SIZE=256 \
    -x LOOM_SHM_FIFO_SLOTS=4 -x LOOM_SHM_FRAGS=2 -x LOOM_SHM_CMA=off
run "FIFO only"        4 -x LOOM_SHM_FBOX_MAX=0
run "one box per rank" 4 -x LOOM_SHM_FBOX_MAX=1 -x LOOM_SHM_FBOX_THRESHOLD=1
exit $fail
