#!/usr/bin/env bash
# test_hang.sh: loomrun's hang summary (docs/troubleshooting.md "loomrun's
# hang summary").
#
# 1. With prog_fakehang (ranks that write the report lines a loom rank
#    would, on SIGUSR1 or after $LOOM_PROGRESS_TIMEOUT): --timeout asks the
#    ranks (SIGUSR1) and prints one summary naming the culprit before the
#    teardown message; LOOM_PROGRESS_TIMEOUT (-x or inherited) prints it
#    once every running rank has reported, and the job goes on and ends
#    well; report lines are not printed unless --report-raw or
#    LOOM_LOG=debug; a malformed report line and ordinary stderr lines are
#    printed; ranks that do not report are named; a program that does not
#    catch SIGUSR1 is not killed by it; nothing is left in TMPDIR.
# 2. With prog_hang (real loom programs that hang: a missing send, a rank
#    skipping a collective, mismatched tags): the summary names the culprit.
#    These need the rank side (p2p/progress.c writing "loom-report" lines);
#    until libloom has it they are reported as SKIP.
#
#   BUILD=build/release bash test/launcher/test_hang.sh
set -u
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
BUILD=${BUILD:-build/release}
B=$TOP/$BUILD
[[ $BUILD = /* ]] && B=$BUILD
LOOMRUN=$B/bin/loomrun
FAKE=$B/test/launcher/prog_fakehang
REAL=$B/test/launcher/prog_hang
for f in "$LOOMRUN" "$FAKE" "$REAL"; do
    [[ -x $f ]] || { echo "FAIL: missing $f (build it first: make BUILD=$BUILD tests)"; exit 1; }
done
W=$(mktemp -d /tmp/loom-hang.XXXXXX)
trap 'rm -rf "$W"' EXIT
fails=0 n=0

ok()   { n=$((n + 1)); echo "ok   $*"; }
bad()  { n=$((n + 1)); fails=$((fails + 1)); echo "FAIL $*"; sed 's/^/     | /' "$W/err" | tail -n 30; }

# run NAME ARGS...: loomrun with a private TMPDIR; $W/out $W/err, $rc, $secs
run() {
    local t0=$EPOCHREALTIME
    mkdir -p "$W/tmp"
    TMPDIR=$W/tmp timeout -k 5 60 "$LOOMRUN" "$@" >"$W/out" 2>"$W/err" </dev/null
    rc=$?
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b - a}')
    if [[ -n $(ls -A "$W/tmp") ]]; then
        bad "files left in TMPDIR: $(ls -A "$W/tmp")"
        rm -rf "${W:?}/tmp"
    fi
}

# expect WHAT TEXT: stderr has the line TEXT (fixed string, whole line)
has()    { grep -qxF -- "$1" "$W/err"; }
hasin()  { grep -qF -- "$1" "$W/err"; }
count()  { grep -cF -- "$1" "$W/err"; }
expect() {
    local what=$1; shift
    for line in "$@"; do
        if ! has "$line"; then bad "$what: stderr lacks the line '$line'"; return 1; fi
    done
    return 0
}

# ---- 1. fake ranks ------------------------------------------------------------------

run --timeout 2 -x FAKEHANG_SIZE=8 -n 8 "$FAKE" usr1 missing-send
if ((rc == 124)) && expect "timeout, missing send" \
    "loomrun: --timeout 2 s: the ranks' state (reports after SIGUSR1):" \
    "  allreduce #412 on WORLD: ranks 0-6 waiting, rank 7 never entered" \
    "  rank 7 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)" \
    "  rank 3 is blocked in loom_allreduce #412 on WORLD (ring, step2; waiting on rank 2)"; then
    # one summary, before the teardown message; report lines kept, the rest printed
    s=$(grep -n "the ranks' state" "$W/err" | cut -d: -f1)
    t=$(grep -n "exceeded --timeout 2 s" "$W/err" | cut -d: -f1)
    if [[ $(count "the ranks' state") != 1 || -z $t || $s -gt $t ]]; then
        bad "timeout, missing send: one summary before the timeout message"
    elif hasin "loom-report 7 pending" || hasin "loom-report 0 begin" || hasin "loom-report 3 end"; then
        bad "timeout, missing send: report lines were printed"
    elif [[ $(count "bogus line that is not a report") != 8 || $(count "an ordinary stderr line") != 8 ]]; then
        bad "timeout, missing send: malformed or ordinary lines lost"
    elif awk -v s="$secs" 'BEGIN{exit !(s > 2 + 1.5 + 3)}'; then
        bad "timeout, missing send: took $secs s"
    else
        ok "--timeout: summary names rank 7 (recv from rank 3), ${secs} s"
    fi
else
    ((rc == 124)) || bad "timeout, missing send: exit $rc, expected 124"
fi

run -x LOOM_PROGRESS_TIMEOUT=1 -x FAKEHANG_SIZE=3 -n 3 "$FAKE" auto skip
if ((rc != 0)); then
    bad "progress timeout, skipped collective: exit $rc, expected 0 (a report is no failure)"
elif expect "progress timeout, skipped collective" \
    "loomrun: job appears hung (rank reports after 5.0 s without progress):" \
    "  collective #5 on WORLD does not match: ranks 0,1 in allreduce, rank 2 in barrier" \
    "  rank 2 is blocked in loom_barrier #5 on WORLD (ring, step2; waiting on rank 1)"; then
    if [[ $(count "job appears hung") != 1 ]] || hasin "loom-report 2 begin"; then
        bad "progress timeout, skipped collective: one summary, no report line"
    else
        ok "LOOM_PROGRESS_TIMEOUT (-x): summary names rank 2 in barrier, job ends with 0"
    fi
fi

LOOM_PROGRESS_TIMEOUT=1 run -x FAKEHANG_SIZE=5 -n 5 "$FAKE" auto missing-send
if ((rc == 0)) && expect "progress timeout from the environment" \
    "  allreduce #412 on WORLD: ranks 0-3 waiting, rank 4 never entered" \
    "  rank 4 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)"; then
    ok "LOOM_PROGRESS_TIMEOUT (inherited): summary names rank 4"
else
    ((rc == 0)) || bad "progress timeout from the environment: exit $rc"
fi

run --report-raw --timeout 1 -x FAKEHANG_SIZE=2 -n 2 "$FAKE" usr1 tags
if ((rc == 124)) && expect "--report-raw, mismatched tags" \
    "loom-report 1 pending op=recv comm=WORLD peer=0 world=0 tag=2 bytes=1048576 proto=rndv state=posted coll=0" \
    "  rank 0 is blocked in loom_send to rank 1 tag 1 on WORLD (rndv rts-sent, 1048576 bytes)" \
    "  tags do not match: rank 1 receives tag 2 from rank 0 on WORLD, which sends tag 1 to it"; then
    ok "--report-raw: report lines printed, summary names the tag mismatch"
else
    ((rc == 124)) || bad "--report-raw: exit $rc"
fi

run --timeout 1 -x LOOM_LOG=debug -x FAKEHANG_SIZE=2 -n 2 "$FAKE" usr1 tags
if hasin "loom-report 0 begin" && hasin "tags do not match"; then
    ok "LOOM_LOG=debug prints the report lines too"
else
    bad "LOOM_LOG=debug: report lines or summary missing"
fi

run --timeout 1 -x FAKEHANG_SIZE=4 -n 4 "$FAKE" usr1 silent
if ((rc == 124)) && expect "a rank that does not report" \
    "  allreduce #412 on WORLD: ranks 0-2 waiting, rank 3 did not report (busy outside loom?)"; then
    if hasin "signal 10" || hasin "SIGUSR1:"; then
        bad "a rank that does not catch SIGUSR1 was killed by it"
    else
        ok "a silent rank is named (and not killed by SIGUSR1), ${secs} s"
    fi
fi

run -x LOOM_PROGRESS_TIMEOUT=1 -x FAKEHANG_SIZE=3 -n 3 "$FAKE" auto silent
if ((rc == 0)) && ! hasin "loomrun:"; then
    ok "no summary while a running rank has not reported"
else
    bad "auto, silent rank: exit $rc, or a summary was printed"
fi

run --timeout 1 -n 2 sleep 30
if ((rc == 124)) && hasin "exceeded --timeout 1 s" && ! hasin "signal" && ! hasin "state"; then
    ok "a program that is not loom: no SIGUSR1, no summary, usual timeout (${secs} s)"
else
    bad "non-loom program under --timeout: exit $rc"
fi

# ---- 2. real loom programs ----------------------------------------------------------

if ! grep -qaF "loom-report" "$B/lib/libloom.a"; then
    bad "real hangs: libloom does not write hang reports (the rank side, p2p/p2p_report.c)"
else
    # wait_summary ARGS...: start loomrun, wait for its summary (LOOM_PROGRESS_TIMEOUT=2),
    # then stop it with SIGINT
    wait_summary() {
        mkdir -p "$W/tmp"
        # empty the files first: the loop below must not see the previous job's summary
        : >"$W/out"; : >"$W/err"
        TMPDIR=$W/tmp "$LOOMRUN" -x LOOM_PROGRESS_TIMEOUT=2 "$@" >"$W/out" 2>"$W/err" </dev/null &
        local pid=$! i
        for ((i = 0; i < 600; ++i)); do
            grep -q "job appears hung" "$W/err" && sleep 0.3 && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -INT "$pid" 2>/dev/null
        wait "$pid"
        rc=$?
        [[ -z $(ls -A "$W/tmp") ]] || bad "files left in TMPDIR: $(ls -A "$W/tmp")"
        rm -rf "${W:?}/tmp"
    }
    wait_summary -n 5 "$REAL" missing-send
    expect "real: missing send" \
        "  allreduce #3 on WORLD: ranks 0-3 waiting, rank 4 never entered" &&
        hasin "  rank 4 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted" &&
        ok "real missing send: rank 4 named, waiting for rank 3"
    wait_summary -n 3 "$REAL" skip
    expect "real: skipped collective" \
        "  allreduce #3 on WORLD: ranks 0,1 waiting, rank 2 never entered" &&
        hasin "  rank 2 is blocked in loom_recv from rank 0 tag 5 on WORLD (posted" &&
        ok "real skipped collective: rank 2 named, blocked in its receive"
    wait_summary -n 2 "$REAL" tags
    expect "real: mismatched tags" \
        "  tags do not match: rank 1 receives tag 2 from rank 0 on WORLD, which sends tag 1 to it" &&
        ok "real mismatched tags named"
    # --timeout with real ranks: SIGUSR1 reaches the progress loop
    run --timeout 8 -n 3 "$REAL" skip
    ((rc == 124)) && hasin "allreduce #3 on WORLD: ranks 0,1 waiting, rank 2 never entered" &&
        ok "real --timeout: summary after SIGUSR1" || bad "real --timeout: exit $rc, no summary"
fi

echo "test_hang: $n checks, $fails failed"
((fails == 0))
