#!/usr/bin/env bash
# test_failinject.sh: kill a random rank at a random point, many times, and
# check that loomrun always ends the job quickly and cleanly
# (test/reliability/prog_failinject.c is the workload: init, eager ring,
# rendezvous ring, collectives, finalize).
#
# Every run is drawn from one seed (printed; bash's RANDOM seeded with it):
#   np 2..8, the victim rank, and how it dies:
#   - self: the victim raises SIGKILL at a chosen phase and iteration;
#   - ext:  this script sends SIGKILL after a random delay from the moment
#           the victim started (the phase the kill landed in is printed);
#   the transport (shm, or tcp one run in five), LOOM_OVERSUBSCRIBED, and
#   one run in eight the ranks ignore SIGTERM (FI_NOTERM: loomrun's SIGKILL,
#   2.25 s after the death, must end them, still within the 3 s).
# Per run, all of:
#   - loomrun ends (no hang) within 3 s of the death (FI_MAX_LATENCY);
#   - its first message names the victim: "rank V (pid P on HOST) was
#     killed by signal 9", and it exits 137;
#   - no process of the job is left (each job carries a unique FI_MARKER in
#     its environment; /proc/*/environ is searched the moment loomrun exits);
#   - no file is left: the job's /dev/shm/loom-loomrun.HOST.PID.* segments,
#     anything in the private TMPDIR given to loomrun (its PMIx tmpdir);
#   - no survivor saw corrupted data.
# An external kill that comes after the job ended is a clean run and must
# be one (exit 0, "OK failinject").
#
#   BUILD=build/release bash test/reliability/test_failinject.sh
#   LOOM_FI_SEED=S LOOM_FI_RUNS=N LOOM_FI_JOBS=J  seed, runs (200), jobs at once (2)
#   LOOM_FI_ONLY=K   only run K of the seed's plan (to reproduce one), with its output
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/release}
PROG=$PWD/$BUILD/test/reliability/prog_failinject
LOOMRUN=${LOOMRUN:-$PWD/$BUILD/bin/loomrun}
MAX_LATENCY=${FI_MAX_LATENCY:-3.0}

for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

seed=${LOOM_FI_SEED:-$((($(date +%s) ^ $$) % 32768))}
runs=${LOOM_FI_RUNS:-200}
njobs=${LOOM_FI_JOBS:-2}
only=${LOOM_FI_ONLY:-}
host=$(hostname)
# Known bugs: a run failing only for one of these is XFAIL (counted, shown,
# not a suite failure). Remove the text here once the bug is fixed.
#  - over tcp a survivor sees the connection close before loomrun reaps the
#    victim, aborts with "a peer process failed" (p2p/p2p_failure.c,
#    loom_p2p_peer_err_handler: the abort message does not name the peer),
#    and loomrun reports that abort first (launcher/loomrun_loop.c,
#    loomrun_loop_dispatch: events before SIGCHLD), so the dead rank is not
#    named in loomrun's message and the exit status is 1, not 137
KNOWN_ABORT_FIRST="known bug: loomrun names the survivor that aborted, not the dead rank"
#  - a death inside a PMIx fence (loom_init, loom_finalize) fails the fence
#    at once at every survivor, which exits with status 1; when loomrun reaps
#    the victim and such a survivor in the same waitpid sweep
#    (launcher/loomrun_loop.c, loomrun_reap), it reports them in child-list
#    order, not in order of death, and may name the survivor
KNOWN_REAP_ORDER="known bug: loomrun reports a survivor's exit (fence failed) before the death that caused it"
work=$(mktemp -d /tmp/loom-failinject.XXXXXX)
# (only the main shell: a background subshell killed early would run it too)
trap '[[ $BASHPID == "$$" ]] && rm -rf "$work"' EXIT

# ---- the plan: one line per run, drawn before anything runs ---------------------
PHASES=(init eager rndv coll finalize)
ITERS=(2 60 6 80 2)            # iterations per phase (prog_failinject.c)
RANDOM=$seed
plan=()
for ((i = 1; i <= runs; ++i)); do
    np=$((2 + RANDOM % 7))
    victim=$((RANDOM % np))
    if ((RANDOM % 5 < 3)); then
        p=$((RANDOM % 5))
        how="self ${PHASES[p]} $((RANDOM % ITERS[p]))"
    else
        # half the delays short (init and the first messages), half long
        if ((RANDOM % 2)); then how="ext $((RANDOM % 60))"; else how="ext $((RANDOM % 400))"; fi
    fi
    tl=shm; ((RANDOM % 5 == 0)) && tl=tcp
    ov=1; ((RANDOM % 8 == 0)) && ov=auto
    term=dfl; ((RANDOM % 8 == 0)) && term=ign
    plan[i]="$np $victim $tl $ov $term $how"
done

# shm segments of the job whose loomrun had pid $1
shm_left() { ls -d /dev/shm/loom-loomrun."$host"."$1".* 2>/dev/null; }

# pids of live processes (not zombies) whose environment holds FI_MARKER=$1
marked_procs() {
    local f pid
    for f in $(grep -lsaF "FI_MARKER=$1" /proc/[0-9]*/environ); do
        pid=${f#/proc/}; pid=${pid%/environ}
        [[ -r /proc/$pid/stat ]] && [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]] &&
            echo "$pid($(tr -d '\0' <"/proc/$pid/comm" 2>/dev/null))"
    done
}

# run_one I: run plan[I]; write "$work/I.res": STATUS LATENCY WHERE | DETAIL
run_one() {
    trap - EXIT   # run in the background: $work is the main shell's to remove
    local i=$1 np victim tl ov term mode a b
    read -r np victim tl ov term mode a b <<<"${plan[i]}"
    # the marker ends in a dot: run 1's must not be a prefix of run 12's
    # (marked_procs greps the environment for it as a fixed string)
    local rd=$work/$i marker="$$.$i." args lpid vpid="" t_death="" where="" rc t_end
    local -a x=(-x "FI_MARKER=$marker" -x "FI_DIR=$rd/fi")
    mkdir -p "$rd/tmp" "$rd/fi"
    [[ $tl == tcp ]] && x+=(-x LOOM_TRANSPORTS=self,tcp)
    [[ $ov == 1 ]] && x+=(-x LOOM_OVERSUBSCRIBED=1)
    [[ $term == ign ]] && x+=(-x FI_NOTERM=1)
    if [[ $mode == self ]]; then args="$victim $a $b"; else args="-1 none 0"; fi
    # shellcheck disable=SC2086
    TMPDIR=$rd/tmp "$LOOMRUN" --timeout 30 "${x[@]}" -n "$np" "$PROG" $args >"$rd/out" 2>&1 &
    lpid=$!
    # watchdog: a job still there 45 s on is killed (and reported as a hang)
    # (trap - EXIT: the subshell must not run the cleanup of $work)
    ( trap - EXIT; trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 45 & s=$!; wait $s
      kill -9 "$lpid" 2>/dev/null ) &
    local dog=$!
    if [[ $mode == ext ]]; then
        # builtins only from here to the kill: a fork costs tens of ms on a
        # loaded machine, longer than the short delays
        local t0=$EPOCHREALTIME sfd st env=()
        exec {sfd}<> <(:)
        while [[ ! -s $rd/fi/$victim.pid ]] && kill -0 "$lpid" 2>/dev/null; do
            read -r -t 0.002 -u "$sfd" _
            (( ${EPOCHREALTIME%.*} - ${t0%.*} > 20 )) && break
        done
        read -r vpid <"$rd/fi/$victim.pid" 2>/dev/null
        read -r -t "$(printf '0.%03d' "$a")" -u "$sfd" _
        exec {sfd}<&-
        # alive, ours, and not a zombie (a zombie accepts the signal: it
        # would pass for a kill of a rank that had in fact exited)
        [[ -n $vpid ]] && { mapfile -d "" env <"/proc/$vpid/environ"; } 2>/dev/null
        if [[ " ${env[*]} " == *" FI_MARKER=$marker "* ]]; then
            read -r where <"$rd/fi/$victim.phase" 2>/dev/null
            read -r _ _ st _ <"/proc/$vpid/stat" 2>/dev/null
            [[ $st == [^ZX] ]] && kill -9 "$vpid" 2>/dev/null && t_death=$EPOCHREALTIME
        fi
        [[ -z $t_death ]] && where=after-end
    fi
    wait "$lpid"; rc=$?
    t_end=$EPOCHREALTIME
    local procs files
    procs=$(marked_procs "$marker")
    kill "$dog" 2>/dev/null; wait "$dog" 2>/dev/null
    files=$(shm_left "$lpid"; find "$rd/tmp" -mindepth 1 2>/dev/null)
    [[ -z $vpid ]] && vpid=$(cat "$rd/fi/$victim.pid" 2>/dev/null)
    if [[ $mode == self ]]; then
        t_death=$(sed -n "s/^FI died: rank $victim .* at \([0-9.]*\)$/\1/p" "$rd/out" | head -n 1)
        where="$a/$b"
    fi
    local lat=- st=ok why="" known=""
    [[ -n $t_death ]] && lat=$(awk -v e="$t_end" -v d="$t_death" 'BEGIN{printf "%.2f", e - d}')
    local first
    first=$(grep -m1 '^loomrun: ' "$rd/out")
    if [[ $mode == ext && -n $t_death && $rc == 0 ]] && grep -q '^OK failinject' "$rd/out"; then
        where=after-end   # SIGKILL reached the rank inside exit(): no effect
    fi
    if [[ $where == after-end ]]; then
        # the job ended before the kill: a clean run
        [[ $rc == 0 ]] && grep -q '^OK failinject' "$rd/out" || why="job ended (exit $rc) before the kill, not cleanly"
    elif [[ -z $t_death ]]; then
        why="the victim never reached its death point (exit $rc)"
    elif [[ $rc == 124 ]] || awk -v l="$lat" -v m="$MAX_LATENCY" 'BEGIN{exit !(l > m)}'; then
        why="job ended ${lat} s after the death (limit $MAX_LATENCY s; exit $rc)"
    elif [[ $first == "loomrun: rank $victim (pid $vpid on $host) was killed by signal 9"* ]]; then
        [[ $rc == 137 ]] || why="exit $rc, expected 137 (the victim's SIGKILL)"
    elif [[ $first =~ ^loomrun:\ rank\ [0-9]+\ .*aborted\ the\ job\ with\ status\ 1:.*peer\ rank\ ${victim}[@\ ] ]]; then
        :   # a survivor's abort came first, and it names the dead rank: fine
    elif [[ $first == *"aborted the job with status 1: a peer process failed"* ]]; then
        known="$KNOWN_ABORT_FIRST: '$first'"
    elif [[ $first =~ ^loomrun:\ rank\ [0-9]+\ .*exited\ with\ status\ 1 ]] &&
         grep -q 'PMIx_Fence .* failed .*a rank of the job probably died' "$rd/out"; then
        known="$KNOWN_REAP_ORDER: '$first'"
    else
        why="loomrun's first message does not name rank $victim (pid $vpid): '$first'"
    fi
    [[ -n $procs ]] && why="${why:+$why; }processes left: $procs"
    [[ -n $files ]] && why="${why:+$why; }files left: $(echo $files)"
    grep -q 'FI: .* is wrong' "$rd/out" && why="${why:+$why; }corrupted data: $(grep -m1 'is wrong' "$rd/out")"
    if [[ -n $why ]]; then
        st=FAIL
    elif [[ -n $known ]]; then
        st=XFAIL; why=$known
    fi
    echo "$st $lat ${where:-?} | $why" >"$work/$i.res"
    # leave nothing behind even when the run failed
    [[ -n $procs ]] && for p in $procs; do kill -9 "${p%%(*}" 2>/dev/null; done
    [[ -n $files ]] && rm -rf $(shm_left "$lpid")
}

report() {   # report I
    local i=$1 np victim tl ov term mode a b st lat where why
    read -r np victim tl ov term mode a b <<<"${plan[i]}"
    read -r st lat where _ <"$work/$i.res"
    why=$(sed 's/^[^|]*| //' "$work/$i.res")
    local how="self $a/$b"; [[ $mode == ext ]] && how="ext ${a}ms"
    printf '%-5s run %3d: np %d victim %d %-14s %s oversub=%-4s SIGTERM %s landed %-9s end %s s%s\n' \
        "$st" "$i" "$np" "$victim" "$how" "$tl" "$ov" "$term" "$where" "$lat" "${why:+  $why}"
    if [[ $st != ok || -n $only ]]; then
        sed 's/^/      | /' "$work/$i/out" | tail -n 20
    fi
}

echo "failinject: seed $seed, $runs runs, $njobs at a time (LOOM_FI_SEED=$seed reproduces)"
t_start=$SECONDS
if [[ -n $only ]]; then
    list=("$only")
else
    mapfile -t list < <(seq 1 "$runs")
fi
running=0
for i in "${list[@]}"; do
    if ((running >= njobs)); then
        wait -n; running=$((running - 1))
    fi
    run_one "$i" &
    running=$((running + 1))
done
wait

fails=0; xfails=0; maxlat=0; missed=0; declare -A landed
for i in "${list[@]}"; do
    report "$i"
    read -r st lat where _ <"$work/$i.res"
    [[ $st == FAIL ]] && fails=$((fails + 1))
    [[ $st == XFAIL ]] && xfails=$((xfails + 1))
    [[ $where == after-end ]] && missed=$((missed + 1))
    landed[${where%%/*}]=$(( ${landed[${where%%/*}]:-0} + 1 ))
    [[ $lat != - ]] && maxlat=$(awk -v a="$maxlat" -v b="$lat" 'BEGIN{print (b > a) ? b : a}')
done
cover=""
for k in init eager rndv coll finalize none after-end; do
    cover+="$k ${landed[$k]:-0}, "
done
echo "failinject: seed $seed: ${#list[@]} runs in $((SECONDS - t_start)) s, max end latency" \
     "after the death $maxlat s (limit $MAX_LATENCY), $fails failed, $xfails known bugs (XFAIL)"
echo "failinject: deaths by phase: ${cover%, } (after-end: the job had finished)"
((fails == 0))
