#!/usr/bin/env bash
# test_shm_scale.sh: the shm transport at node scale (issue 22), through
# loomrun and test/shm/prog_shm_scale.c, which measures the shared memory
# in use exactly (mincore of the job's segments, whoever else runs here):
#   - lazy creation: after loom_init only the receive FIFOs exist; a first
#     message between two ranks adds nothing; a hot pair gets a fast box
#     (memory grows by at least a page, and the sender logs the claim);
#   - all pairs exchange (8, 100, 2000 bytes, every byte checked) at 64
#     ranks (release; 12 under sanitizers): memory within the formula of
#     docs/ARCHITECTURE.md and under 256 MB;
#   - incast: N-1 senders to rank 0, every byte and the order per sender
#     checked, with the default sizes and with a FIFO of 2 cells, one
#     fragment per sender and 2 fast boxes (back-pressure on every burst);
#   - peer death: the last rank SIGKILLs itself mid-exchange: every
#     survivor logs an error naming it and gets a failure back, no hang;
#   - cleanup: /dev/shm holds nothing of the job after a normal exit and
#     after the kill.
# The 256-rank run is test/shm/run_shm_256.sh (not part of make check).
#   BUILD=build/release bash test/shm/test_shm_scale.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/shm/prog_shm_scale
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
fail=0
out=$(mktemp /tmp/loom-shmscale.XXXXXX)
trap 'rm -f "$out"' EXIT

for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done
if [[ $BUILD == *-* ]]; then   # a sanitizer build: fewer ranks
    NP_ALL=12; NP_INCAST=8; NP_DEATH=6
else
    NP_ALL=64; NP_INCAST=32; NP_DEATH=64
fi
if ldd "$LOOMRUN" 2>/dev/null | grep -q libtsan; then
    supp=$(mktemp)
    trap 'rm -f "$out" "$supp"' EXIT
    for lib in libpmix.so.2 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7; do
        printf 'called_from_lib:%s\nrace:%s\nmutex:%s\ndeadlock:%s\n' "$lib" "$lib" "$lib" "$lib"
    done >"$supp"
    export TSAN_OPTIONS="suppressions=$supp ${TSAN_OPTIONS:-}"
fi

verdict() {  # verdict NAME OK DETAIL
    if [[ $2 == 1 ]]; then
        echo "ok   $1"
    else
        fail=1
        echo "FAIL $1"
        echo "$3" | tail -n 20 | sed 's/^/    /'
    fi
}

# launch NP MODE [ARG] [-x VAR=value ...]: output in $out, exit status in $rc
launch() {
    local np=$1 mode=$2 arg=$3; shift 3
    "$LOOMRUN" -q --timeout 120 -x LOOM_TRANSPORTS=shm "$@" -n "$np" "$PROG" "$mode" $arg \
        >"$out" 2>&1
    rc=$?
}

field() {  # field NAME LINE: the value of NAME=value in LINE
    sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p" <<<" $2"
}

# nothing of the job whose segments the run printed is left in /dev/shm
no_leftovers() {
    local seg prefix
    seg=$(grep -m1 '^SEG /loom-' "$out" | cut -d' ' -f2)
    [[ -n $seg ]] || return 1
    prefix=${seg%%-shm-*}
    prefix=${prefix%%-coll-*}
    ! compgen -G "/dev/shm${prefix}*" >/dev/null
}

# lazy creation and growth (np 4)
launch 4 hot "" -x LOOM_LOG=debug:shm
line=$(grep '^HOT ' "$out")
m0=$(field m0 "$line"); m1=$(field m1 "$line"); m2=$(field m2 "$line")
ok=0
if [[ $rc == 0 && -n $m0 && -n $m1 && -n $m2 ]] && ((m1 == m0 && m2 >= m1 + 4)) &&
    grep -q 'fast box 0 of rank 1 claimed' "$out"; then ok=1; fi
verdict "first message adds no memory, a hot pair gets a fast box ($line)" $ok "$(cat "$out")"

# all pairs: memory within the formula (KiB): per rank the FIFO (7 pages),
# 16 fast boxes of 12736 bytes (50 pages), 16 fragments of 8 KiB + a line
# (33 pages) at most; plus the header pages
launch $NP_ALL mem 24
line=$(grep '^MEM ' "$out")
init=$(field transport_init "$line"); after=$(field transport_after "$line")
ok=0
if [[ $rc == 0 && -n $init && -n $after ]] &&
    ((init <= NP_ALL * 28 + 64 && after <= NP_ALL * (28 + 200 + 132) + 64 &&
      after <= 256 * 1024)); then ok=1; fi
verdict "all pairs at np $NP_ALL, memory in the formula ($line)" $ok "$(cat "$out")"
ok=0; no_leftovers && ok=1
verdict "nothing left in /dev/shm after a normal exit" $ok "$(ls /dev/shm)"

# incast, default sizes and tiny ones
launch $NP_INCAST incast 300
ok=0; [[ $rc == 0 ]] && grep -q '^INCAST ok' "$out" && ok=1
verdict "incast, $((NP_INCAST - 1)) senders ($(grep '^INCAST' "$out"))" $ok "$(cat "$out")"
launch $NP_INCAST incast 200 -x LOOM_SHM_FIFO_SLOTS=2 -x LOOM_SHM_FRAGS=1 \
    -x LOOM_SHM_FBOX_MAX=2 -x LOOM_SHM_RING_SLOTS=2 -x LOOM_SHM_FBOX_THRESHOLD=4
ok=0; [[ $rc == 0 ]] && grep -q '^INCAST ok' "$out" && ok=1
verdict "incast with a 2-cell FIFO, 1 fragment, 2 boxes ($(grep '^INCAST' "$out"))" $ok \
    "$(cat "$out")"

# peer death: every survivor names the dead rank, nobody hangs
victim=$((NP_DEATH - 1)); h=$(hostname)
t0=$SECONDS
launch $NP_DEATH death "" -x LOOM_ERRORS=return
named=$(grep -cE "ERROR shm: rank [0-9]+@$h: peer rank $victim@$h \(pid [0-9]+\) exited or was killed" "$out")
ok=0
if ((named >= 1 && SECONDS - t0 < 60)) && grep -q "^DEATH [0-9]*: peer failure" "$out" &&
    ! grep -q "^DEATH [0-9]*: no error" "$out"; then ok=1; fi
verdict "rank $victim killed at np $NP_DEATH: $named survivors named it, $((SECONDS - t0)) s" \
    $ok "$(cat "$out")"
ok=0; no_leftovers && ok=1
verdict "nothing left in /dev/shm after the kill" $ok "$(ls /dev/shm)"
exit $fail
