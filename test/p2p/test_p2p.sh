#!/usr/bin/env bash
# test_p2p.sh: multi-rank point-to-point integration tests under loomrun
# (test/p2p/prog_p2p.c does the checking; see its header for each mode).
#   BUILD=build/release bash test/p2p/test_p2p.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/p2p/prog_p2p
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
fail=0

for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

# run NAME TIMEOUT NP ARGS...: the job must print "OK <mode>" and exit 0
run() {
    local name=$1 tmo=$2 np=$3; shift 3
    local t0=$SECONDS out rc
    # shellcheck disable=SC2086  # LOOMRUN_X holds extra "-x VAR=value" words
    out=$("$LOOMRUN" -q --timeout "$tmo" -x LOOM_ERRORS=return ${LOOMRUN_X:-} -n "$np" \
          "$PROG" "$@" 2>&1)
    rc=$?
    if [[ $rc -ne 0 || $out != *"OK $1"* ]]; then
        echo "FAIL $name (np $np, exit $rc, $((SECONDS - t0))s)"
        echo "$out" | grep -v '^loom\[.*ERROR p2p: loom_' | tail -n 20 | sed 's/^/    /'
        fail=1
    else
        echo "ok   $name (np $np, $((SECONDS - t0))s)"
    fi
}

# sanitizer builds run about 10x slower: a smaller matrix keeps the suite short
case $BUILD in
    *-address*|*-thread*|*-undefined*|*asan*|*tsan*) NPS="2 5"; RNPS="3"; SEEDS="1"; MAXSZ=$((8 << 20)) ;;
    *) NPS="2 3 5 8"; RNPS="2 4 7"; SEEDS="1 2 3"; MAXSZ=$((64 << 20)) ;;
esac

for np in $NPS; do
    run "sizes 0..$((MAXSZ >> 20))MiB"        120 "$np" sizes $MAXSZ
    run "wildcard storm"         60 "$np" wildcard
    run "10,000 outstanding"     60 "$np" many
    run "both sides send first"  60 "$np" bothsend
    run "misc (ssend, trunc, probe, cancel)" 60 "$np" misc
    run "direct receives (frames waiting)" 60 "$np" direct
    run "bad input"              30 "$np" badinput
done
for np in $RNPS; do
    for seed in $SEEDS; do
        run "random traffic seed $seed" 60 "$np" random "$seed"
    done
done
run "sizes (self transport only)" 60 1 sizes $MAXSZ

# protocol thresholds: everything by rendezvous (0), a limit above the frame
# size (clamped), and the engine over another transport (tcp) when built
# and the first bytes of each rendezvous pushed behind its RTS over shm
# (tcp does that by itself), all of them and only some
for v in LOOM_EAGER_LIMIT=0 LOOM_EAGER_LIMIT=1m LOOM_RNDV_PUSH=4k "LOOM_RNDV_PUSH=4k -x LOOM_EAGER_LIMIT=1k"; do
    LOOMRUN_X="-x $v" run "random traffic, $v" 60 3 random 9
    LOOMRUN_X="-x $v" run "sizes, $v" 120 2 sizes $((MAXSZ / 8))
done
if "$LOOMRUN" -q --timeout 30 -x LOOM_TRANSPORTS=tcp -n 1 "$PROG" badinput 2>&1 |
        grep -q "is not a transport"; then
    echo "skip engine over tcp (not built)"
else
    LOOMRUN_X="-x LOOM_TRANSPORTS=tcp" run "random traffic over tcp" 60 3 random 4
    LOOMRUN_X="-x LOOM_TRANSPORTS=tcp" run "sizes over tcp" 120 2 sizes $((MAXSZ / 8))
fi

# one message above 2 GiB (size_t lengths, chunked gets); release builds only
case $BUILD in
    *-address*|*-thread*|*-undefined*|*asan*|*tsan*) echo "skip > 2 GiB message (sanitizer build)" ;;
    *) run "message of 2 GiB + 3 MiB" 120 2 huge ;;
esac

# oversubscribed (8 ranks on this machine's cores): must finish in seconds
t0=$SECONDS
run "oversubscribed random" 30 8 random 42
if ((SECONDS - t0 > 20)); then
    echo "FAIL oversubscribed np=8 took $((SECONDS - t0))s"
    fail=1
fi

# LOOM_ERRORS=abort (the default): an invalid rank aborts the job with a message
out=$("$LOOMRUN" -q --timeout 30 -n 2 "$PROG" abort 2>&1)
rc=$?
if [[ $rc -eq 0 || $rc -eq 3 || $out != *"invalid rank"* ]]; then
    echo "FAIL abort on error (exit $rc)"; echo "$out" | tail -n 5 | sed 's/^/    /'
    fail=1
else
    echo "ok   invalid rank aborts the job under LOOM_ERRORS=abort"
fi

# LOOM_PROGRESS_TIMEOUT: a rank blocked longer than that says what it waits for
# (the report's lines in detail: test_report.sh)
out=$("$LOOMRUN" -q --timeout 30 -x LOOM_PROGRESS_TIMEOUT=1 -n 2 "$PROG" late 2>&1)
if [[ $? -ne 0 || $out != *"loom_recv: no progress for"* ]]; then
    echo "FAIL LOOM_PROGRESS_TIMEOUT report"; echo "$out" | tail -n 5 | sed 's/^/    /'
    fail=1
else
    echo "ok   LOOM_PROGRESS_TIMEOUT reports the pending receive"
fi

# an erroneous program's unmatched rendezvous send and ssend (both directions,
# and to itself at np 1) end in a warning at finalize, not a hang
for np in 1 2 3; do
    out=$("$LOOMRUN" -q --timeout 30 -x LOOM_ERRORS=return -n "$np" "$PROG" unmatched 2>&1)
    rc=$?
    if [[ $rc -ne 0 || $out != *"OK unmatched"* ||
          $out != *"without receiving this rank's rendezvous send of 1048576 bytes with tag 77"* ||
          $out != *"without receiving this rank's ssend of 4 bytes with tag 78"* ||
          $out != *"rendezvous send of 1048576 bytes from rank"*"with tag 77 was never received"* ]]; then
        echo "FAIL unmatched sends at finalize (np $np, exit $rc)"
        echo "$out" | tail -n 8 | sed 's/^/    /'
        fail=1
    else
        echo "ok   unmatched sends end in a warning at finalize (np $np)"
    fi
done

# a transport that does not exist is a clear error naming the valid ones
out=$("$LOOMRUN" -q --timeout 30 -x LOOM_TRANSPORTS=bogus -n 2 "$PROG" badinput 2>&1)
if [[ $? -eq 0 || $out != *"'bogus' is not a transport"*"valid:"* ]]; then
    echo "FAIL LOOM_TRANSPORTS=bogus"; echo "$out" | tail -n 5 | sed 's/^/    /'
    fail=1
else
    echo "ok   LOOM_TRANSPORTS=bogus is rejected with the valid list"
fi

exit $fail
