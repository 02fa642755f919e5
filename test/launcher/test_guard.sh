#!/usr/bin/env bash
# test_guard.sh: loomrun's cleanup guardian (launcher/loomrun_guard.c).
#   - loomrun SIGKILLed while its ranks run and hold /dev/shm segments:
#     within 5 s no rank, no guardian, nothing in TMPDIR (the PMIx tmpdir),
#     no /dev/shm segment of the job; the guardian says what it did;
#   - a normal run and a failed run: the guardian leaves quietly (no
#     message, no process left behind), loomrun's exit status unchanged;
#   - ^C (SIGINT to the whole process group, as a terminal sends it) does
#     not kill the guardian first: loomrun still ends the job itself.
# (The multi-host version, a daemon killed, is in test/multihost.)
#
#   BUILD=build/release bash test/launcher/test_guard.sh
set -u
TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
BUILD=${BUILD:-build/release}
B=$TOP/$BUILD
[[ $BUILD = /* ]] && B=$BUILD
LOOMRUN=$B/bin/loomrun
PROG=$B/test/launcher/prog_launch
for f in "$LOOMRUN" "$PROG"; do
    [[ -x $f ]] || { echo "FAIL: missing $f (build it first: make BUILD=$BUILD tests)"; exit 1; }
done
W=$(mktemp -d /tmp/loom-guard.XXXXXX)
trap 'rm -rf "$W"' EXIT
host=$(hostname)
fails=0

ok()  { echo "ok   $*"; }
bad() { fails=$((fails + 1)); echo "FAIL $*"; sed 's/^/     | /' "$W/err" 2>/dev/null | tail -n 20; }

# processes (not zombies) whose environment holds GUARD_MARKER=$1
marked() {
    local f pid
    for f in $(grep -lsaF "GUARD_MARKER=$1" /proc/[0-9]*/environ); do
        pid=${f#/proc/}; pid=${pid%/environ}
        [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) =~ ^[^ZX]$ ]] && echo "$pid"
    done
}
segments() { ls /dev/shm 2>/dev/null | grep -F "loom-loomrun.$host.$1." ; }
# the guardian of the loomrun just started (its child named loomrun-guard)
guard_of() { ps -o pid=,comm= --ppid "$1" | awk '$2 == "loomrun-guard" {print $1}'; }
# is process $1 still there (a zombie counts: nobody reaped it)?
there()    { [[ -n $1 && -d /proc/$1 ]]; }

# start ARGS...: loomrun in the background (its own process group, as a shell job)
start() {
    rm -rf "$W/tmp"; mkdir -p "$W/tmp"
    set -m
    TMPDIR=$W/tmp "$LOOMRUN" "$@" >"$W/out" 2>"$W/err" </dev/null &
    lpid=$!
    set +m
    for _ in $(seq 100); do
        gpid=$(guard_of "$lpid")
        [[ -n $gpid ]] && break
        sleep 0.02
    done
}
wait_ready() {   # N
    for _ in $(seq 300); do
        (($(grep -c '^READY' "$W/out" 2>/dev/null) >= $1)) && return 0
        sleep 0.1
    done
    return 1
}

# ---- loomrun killed -----------------------------------------------------------------------
start -x GUARD_MARKER=$$.1 -n 3 "$PROG" shm-hang
if ! wait_ready 3; then
    bad "killed: ranks never ready"
    kill -KILL "$lpid"
else
    nseg=$(segments "$lpid" | wc -l)
    kill -KILL "$lpid"; wait "$lpid" 2>/dev/null
    left=1
    for _ in $(seq 50); do
        if [[ -z $(marked $$.1) && -z $(ls -A "$W/tmp") && -z $(segments "$lpid") &&
              $(awk '{print $3}' "/proc/$gpid/stat" 2>/dev/null) != [RS] ]]; then
            left=0; break
        fi
        sleep 0.1
    done
    if ((nseg != 3)) || [[ -z $gpid ]]; then
        bad "killed: expected 3 segments ($nseg) and a guardian (pid '${gpid}') before the kill"
    elif ((left)); then
        bad "killed: left after 5 s: ranks [$(marked $$.1)] files [$(ls -A "$W/tmp")]" \
            "segments [$(segments "$lpid")] guardian [$(ls -d /proc/"$gpid" 2>/dev/null)]"
    elif ! grep -q "^loomrun (pid $lpid) ended without cleaning up: its guardian killed [0-3] rank(s) still running and removed the job's files in $W/tmp/loomrun\." "$W/err"; then
        bad "killed: the guardian's message is missing"
    else
        ok "loomrun killed: ranks, PMIx tmpdir, 3 shm segments and the guardian gone"
    fi
fi
rm -f /dev/shm/loom-loomrun."$host"."$lpid".* 2>/dev/null

# ---- normal and failed runs: a quiet guardian -------------------------------------------
for mode in "modex:0" "exit 3 1:3"; do
    args=${mode%:*} want=${mode##*:}
    start -x GUARD_MARKER=$$.2 -n 2 "$PROG" $args
    wait "$lpid"; rc=$?
    sleep 0.3
    if ((rc != want)); then
        bad "'$args': exit $rc, expected $want"
    elif [[ -z $gpid ]] || grep -q "guardian" "$W/err" || there "$gpid"; then
        bad "'$args': no guardian (${gpid}), or it spoke or stayed"
    elif [[ -n $(ls -A "$W/tmp") || -n $(marked $$.2) ]]; then
        bad "'$args': files or ranks left"
    else
        ok "'$args': exit $rc, the guardian left quietly"
    fi
done

# ---- ^C to the process group ----------------------------------------------------------
start -x GUARD_MARKER=$$.3 -n 2 "$PROG" hang
if wait_ready 2; then
    kill -INT -- -"$lpid"
    wait "$lpid"; rc=$?
    sleep 0.3
    if ((rc != 130)) || ! grep -q "received SIGINT" "$W/err" || grep -q "guardian" "$W/err" ||
       there "$gpid" || [[ -n $(ls -A "$W/tmp") || -n $(marked $$.3) ]]; then
        bad "^C to the process group: exit $rc (want 130), or something left"
    else
        ok "^C to the process group: loomrun ends the job, the guardian leaves quietly"
    fi
else
    bad "^C: ranks never ready"; kill -KILL -- -"$lpid"
fi

echo "test_guard: $fails failed"
((fails == 0))
