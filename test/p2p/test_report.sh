#!/usr/bin/env bash
# test_report.sh: the rank side of hang reports (p2p/p2p_report.c; the
# line protocol is in launcher/loomrun_report.h).
#
# prog_p2p hang at np 4 never returns: rank 0 is in loom_recv(ANY_SOURCE)
# with a rendezvous send and an ssend nobody receives, rank 1 in loom_probe,
# rank 2 in loom_recv on a dup of WORLD, rank 3 in an allreduce nobody else
# entered (a message-based algorithm, so it runs as a generic request).
# Under loomrun --timeout 8 --report-raw with LOOM_PROGRESS_TIMEOUT=1 every
# rank must report twice (after 1 s of no progress, then on loomrun's
# SIGUSR1), each block well formed (begin ... end, one line per write, the
# exact fields), a human warning per timeout, and loomrun's summary must
# name what each rank waits for. Also: a rank that is late but not hung
# reports and the job ends well; a peer's death names the user's operation
# it interrupts.
#   BUILD=build/release bash test/p2p/test_report.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/p2p/prog_p2p
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
fail=0
out=$(mktemp /tmp/loom-p2preport.XXXXXX)
trap 'rm -f "$out"' EXIT

for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

bad() { echo "FAIL $*"; fail=1; }

t0=$SECONDS
# 8 s: on a loaded machine the ranks may need seconds to start, and each
# must still see 1 s of no progress before loomrun's timeout signals it
"$LOOMRUN" --report-raw --timeout 8 -x LOOM_PROGRESS_TIMEOUT=1 \
    -x LOOM_ALLREDUCE_ALGORITHM=recursive_doubling -n 4 "$PROG" hang >"$out" 2>&1
rc=$?
((rc == 124)) || bad "hang: loomrun exit $rc, expected 124 (--timeout)"
((SECONDS - t0 <= 24)) || bad "hang: took $((SECONDS - t0)) s"

# exact lines (each printed once per block)
for line in \
    "loom-report 0 pending op=recv comm=WORLD peer=any world=any tag=3 bytes=4 proto=eager state=posted coll=0" \
    "loom-report 0 pending op=send comm=WORLD peer=1 world=1 tag=7 bytes=1048576 proto=rndv state=rts-sent coll=0" \
    "loom-report 0 pending op=ssend comm=WORLD peer=2 world=2 tag=8 bytes=4 proto=sync state=wait-ack coll=0" \
    "loom-report 1 pending op=probe comm=WORLD peer=0 world=0 tag=5 bytes=0 proto=eager state=posted coll=0" \
    "loom-report 2 pending op=recv comm=dup(WORLD)#4 peer=1 world=1 tag=any bytes=16 proto=eager state=posted coll=0" \
    "loom-report 0 coll comm=WORLD count=1" \
    "loom-report 3 coll comm=WORLD count=2"; do
    n=$(grep -cxF -- "$line" "$out")
    ((n == 2)) || bad "hang: '$line' printed $n times, expected 2 (timeout, then SIGUSR1)"
done
for spec in "0 loom_recv" "1 loom_probe" "2 loom_recv" "3 loom_allreduce"; do
    read -r r call <<<"$spec"
    n=$(grep -cE "^loom-report $r begin host=[^ ]+ waited=[0-9]+\.[0-9] call=$call\$" "$out")
    ((n == 2)) || bad "hang: rank $r has $n begin lines with call=$call, expected 2"
    grep -qE "^loom\[$r@[^]]+\] WARN p2p: $call: no progress for 1\.[0-9] s \(LOOM_PROGRESS_TIMEOUT\)" "$out" ||
        bad "hang: rank $r printed no human warning naming $call"
    # the SIGUSR1 block knows how long the rank has waited (up to 8 s, less
    # the ranks' start; more than the 1 s of the first block)
    grep -qE "^loom-report $r begin host=[^ ]+ waited=([2-9]|1[0-9])\.[0-9] call=$call\$" "$out" ||
        bad "hang: rank $r's SIGUSR1 block does not say it waited 2-19 s"
done
grep -qE '^loom-report 3 active kind=allreduce comm=WORLD seq=1 alg=[^ ]+ state=[^ ]+$' "$out" ||
    bad "hang: rank 3 has no active line for allreduce #1"
grep -qE '^loom-report 3 pending op=recv comm=WORLD peer=[0-9] world=[0-9] tag=[0-9]+ bytes=4 proto=eager state=posted coll=1$' "$out" ||
    bad "hang: rank 3's collective receive is not reported with coll=1"
# every report line of a rank is inside one of its begin..end blocks
awk '/^loom-report / {
        r = $2; k = $3
        if (k == "begin") { if (open[r]) bad = bad " r" r ":begin-in-block"; open[r] = 1; next }
        if (!open[r]) { bad = bad " r" r ":" k "-outside"; next }
        if (k == "end") open[r] = 0
     }
     END { for (r in open) if (open[r]) bad = bad " r" r ":unclosed"; if (bad != "") { print bad; exit 1 } }' \
    "$out" || bad "hang: malformed blocks"
# loomrun's two summaries name the culprits
for line in \
    "  allreduce #1 on WORLD: rank 3 waiting, ranks 0-2 never entered" \
    "  rank 1 is blocked in loom_probe from rank 0 tag 5 on WORLD (posted, 0 bytes)" \
    "  rank 2 is blocked in loom_recv from rank 1 any tag on dup(WORLD)#4 (posted, 16 bytes)"; do
    n=$(grep -cxF -- "$line" "$out")
    ((n == 2)) || bad "hang: summary line '$line' printed $n times, expected 2"
done
grep -qF "loomrun: job appears hung" "$out" || bad "hang: no summary after LOOM_PROGRESS_TIMEOUT"
grep -qF "loomrun: --timeout 8 s: the ranks' state" "$out" || bad "hang: no summary on --timeout"
if ((fail)); then
    sed 's/^/    | /' "$out" | tail -n 60
else
    echo "ok   hang reports: every rank, both triggers, exact lines, summaries ($((SECONDS - t0)) s)"
fi

# a rank that is late but not hung: it reports, and the job still ends well
"$LOOMRUN" -q --report-raw --timeout 30 -x LOOM_PROGRESS_TIMEOUT=1 -n 2 "$PROG" late >"$out" 2>&1
rc=$?
if ((rc != 0)) || ! grep -qxF "loom-report 0 pending op=recv comm=WORLD peer=1 world=1 tag=1 bytes=4 proto=eager state=posted coll=0" "$out" ||
   ! grep -qF "OK late" "$out"; then
    bad "late: exit $rc, or no report of the pending receive"; sed 's/^/    | /' "$out" | tail -n 20
else
    echo "ok   a late rank reports its pending receive and the job ends with 0"
fi
# a peer's death names the user's operation it interrupts (the same walk over
# pending operations), not only the transport's: test/reliability/prog_peerdeath
PD=$BUILD/test/reliability/prog_peerdeath
if [[ -x $PD ]]; then
    for spec in "recv|loom_recv from rank 2 tag 5 on WORLD (4 bytes, posted)" \
                "anysrc|loom_recv from any rank tag 5 on WORLD (4 bytes, posted)" \
                "rndv|loom_send to rank 2 tag 5 on WORLD (1048576 bytes, rts-sent)"; do
        mode=${spec%%|*} want=${spec#*|}
        "$LOOMRUN" --timeout 30 -x LOOM_ERRORS=return -n 3 "$PD" "$mode" >"$out" 2>&1
        if grep -E '^loom\[0@[^]]+\] ERROR p2p: rank 0@[^ ]+: peer rank 2 \([^)]+\) failed ' "$out" |
                grep -qF "; pending: $want"; then
            echo "ok   peer death ($mode): the error names '$want'"
        else
            bad "peer death ($mode): no error naming '$want'"
            grep 'ERROR' "$out" | sed 's/^/    | /' | head -n 8
        fi
    done
else
    echo "skip peer death messages ($PD not built)"
fi
exit $fail
