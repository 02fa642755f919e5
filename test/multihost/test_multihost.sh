#!/usr/bin/env bash
# test_multihost.sh: loomrun across hosts. The hosts are network namespaces
# of this machine (n1, n2, n3: 10.77.0.1-3/24 on a bridge that lives in a
# fourth namespace, so no traffic touches the machine's own network), set
# up and torn down here; the launch agent is netns_agent.sh (ip netns exec,
# each host with its own /dev/shm). The head runs on n1.
#
#   - placement (fill, round robin, hostfile, a head without ranks) as the
#     ranks see it: every rank's host, local ranks, the modex
#   - transports: shm inside a host, tcp across (LOOM_LOG=info)
#   - the point-to-point and collectives suites, 2 and 3 hosts x 2 ranks
#   - PMIx direct modex across hosts (a fence without data, then gets)
#   - tagged output, stdin to a remote rank 0, hang reports (--timeout) of
#     remote ranks summarized at the head
#   - failures: a rank killed on another host (job ends within 3 s, one
#     message naming rank, host and signal), exit codes and aborts from
#     another host, SIGINT, the head killed (no orphans, daemons and the
#     head's cleanup guardian clean up), a daemon killed (its guardian does),
#     an unreachable host, a program missing on another host
#   - the same programs under Open MPI's mpirun (its rsh agent: the same
#     netns agent; its orted hosts PMIx on each namespace)
#   - outsiders: a connection to the head's control port with a wrong
#     secret, and one speaking garbage, are refused and the job goes on
#
# Must run as root (network namespaces); CI does. The namespaces share this
# machine's cores, so the ranks are told they are oversubscribed.
#   BUILD=build/release bash test/multihost/test_multihost.sh
set -u
# shellcheck source=test/common/script_preamble.sh
. "$(dirname "$0")/../common/script_preamble.sh"
LOOMRUN=$B/bin/loomrun
PROG=$B/test/multihost/prog_multihost
LAUNCH=$B/test/launcher/prog_launch
FAKEHANG=$B/test/launcher/prog_fakehang
P2P=$B/test/p2p/prog_p2p
COLL=$B/test/coll/prog_coll
AGENT=$TOP/test/multihost/netns_agent.sh

loom_need_progs "$LOOMRUN" "$PROG" "$LAUNCH" "$FAKEHANG" "$P2P" "$COLL"
loom_need_root "root and iproute2 (it makes network namespaces)" ip

# ---- the hosts ------------------------------------------------------------------

NS=lm$$-                  # namespaces lm<pid>-n1 ... and lm<pid>-sw
W=$(mktemp -d /tmp/loom-multihost.XXXXXX)
export LOOM_NETNS_PREFIX=$NS LOOM_NETNS_SHM_DIR=$W/shm TMPDIR=$W/tmp
mkdir -p "$W/tmp" "$W/shm"

# processes running in the test's hosts
ns_pids() { for h in n1 n2 n3; do ip netns pids "$NS$h" 2>/dev/null; done; }

cleanup() {
    ns_pids | xargs -r kill -KILL 2>/dev/null
    for h in n1 n2 n3 sw; do ip netns del "$NS$h" 2>/dev/null; done
    rm -rf "$W"
}
trap cleanup EXIT
trap "exit 143" TERM INT HUP

ip netns add "${NS}sw" && ip -n "${NS}sw" link set lo up &&
ip -n "${NS}sw" link add br0 type bridge && ip -n "${NS}sw" link set br0 up || {
    echo "FAIL: cannot create the switch namespace"; exit 1; }
for i in 1 2 3; do
    ip netns add "${NS}n$i" &&
    ip -n "${NS}sw" link add "v$i" type veth peer name eth0 netns "${NS}n$i" &&
    ip -n "${NS}sw" link set "v$i" master br0 up &&
    ip -n "${NS}n$i" addr add "10.77.0.$i/24" dev eth0 &&
    ip -n "${NS}n$i" link set eth0 up && ip -n "${NS}n$i" link set lo up || {
        echo "FAIL: cannot create host namespace n$i"; exit 1; }
done

# on HOST CMD...: run CMD on a host (its namespace, host name and /dev/shm),
# as the agent would, but with the arguments kept as they are
on() {
    local h=$1; shift
    mkdir -p "$W/shm/$h"
    ip netns exec "$NS$h" unshare --uts sh -c \
        'hostname "$0" && mount --bind "$1" /dev/shm && shift && exec "$@"' "$h" "$W/shm/$h" "$@"
}

# head ARGS...: loomrun on n1 with the netns agent (output in $out, status in $rc);
# n1 knows it is n1 by its host name
head_run() {
    out=$(on n1 timeout 170 "$LOOMRUN" --launch-agent "$AGENT" \
          -x LOOM_OVERSUBSCRIBED=1 --timeout 150 "$@" 2>&1)
    rc=$?
}

# Nothing of the job may be left: processes, PMIx tmpdirs, /dev/shm segments.
check_clean() {
    local what=$1 left
    sleep 0.3
    left=$(ns_pids | xargs -r ps -o pid=,args= -p 2>/dev/null)
    [[ -z $left ]] || bad "$what: processes left" "$left"
    left=$(ls -A "$W/tmp" "$W"/shm/* 2>/dev/null | grep -v -e '^$' -e ':$')
    [[ -z $left ]] || bad "$what: files left in tmpdirs or /dev/shm" "$left"
    rm -rf "${W:?}/tmp/"* "$W"/shm/*/* 2>/dev/null
}

# ---- placement ----------------------------------------------------------------------

expect_info() { # NAME HOSTS ARGS...
    local name=$1 hosts=$2; shift 2
    head_run "$@" "$PROG" info "$hosts"
    local n=$(tr ',' '\n' <<<"$hosts" | wc -l)
    if [[ $rc -ne 0 || $(grep -c '^OK info' <<<"$out") -ne $n ]]; then
        bad "$name (exit $rc)" "$out"
    else
        ok "$name"
    fi
}
expect_info "2 hosts, fill"              n1,n1,n2,n2       --host n1:2,n2:2
expect_info "3 hosts, --map-by node"     n1,n2,n3,n1,n2    --host n1:2,n2:2,n3:2 -n 5 --map-by node
printf '# test hosts\nn1 slots=1\nn3 slots=2 max_slots=4\n\nn2:1\n' >"$W/hostfile"
expect_info "hostfile"                   n1,n3,n3,n2       --hostfile "$W/hostfile"
expect_info "head without ranks"         n2,n2,n3,n3       --host n2:2,n3:2
expect_info "--hostname names this host" n1,n2             --hostname n1 --host n1:1,n2:1
expect_info "rank 0 on another host"     n3,n3,n1,n2       --host n3:2,n1:1,n2:1
# the head passes --bind-to and --report-bindings to its daemons with the job
head_run --host n1:1,n2:1 --bind-to hwthread --report-bindings "$PROG" info n1,n2
if [[ $rc -ne 0 ]] || ! grep -q "^loomrun: rank 0 on n1 bound to cpu [0-9]" <<<"$out" ||
        ! grep -q "^loomrun: rank 1 on n2 bound to cpu [0-9]" <<<"$out"; then
    bad "--bind-to and --report-bindings on every host (exit $rc)" "$out"
else
    ok "--bind-to and --report-bindings on every host"
fi
check_clean "placement"

# ---- transports: shm inside a host, tcp across ----------------------------------------

head_run --host n1:2,n2:2,n3:2 -x LOOM_LOG=info -x LOOM_ERRORS=return "$P2P" random 5
good=0
for r in 0 1 2 3 4 5; do
    h=$((r / 2 + 1)) mate=$((r ^ 1)) others=""
    for q in 0 1 2 3 4 5; do ((q / 2 + 1 != h)) && others+="${others:+,}$q"; done
    grep -q "^loom\[$r@n$h\] INFO p2p: transport shm serves 1 peer(s) \[$mate\]" <<<"$out" &&
    grep -q "^loom\[$r@n$h\] INFO p2p: transport tcp serves 4 peer(s) \[$others\]" <<<"$out" &&
        good=$((good + 1))
done
if [[ $rc -ne 0 || $good -ne 6 ]]; then
    bad "transports: shm within a host, tcp across ($good of 6 ranks right, exit $rc)" "$out"
else
    ok "transports: shm within a host, tcp across"
fi

# ---- the suites ----------------------------------------------------------------------------

suite() { # NAME HOSTS WANT PROG ARGS...
    local name=$1 hosts=$2 want=$3 t0=$SECONDS; shift 3
    head_run -q --host "$hosts" -x LOOM_ERRORS=return "$@"
    if [[ $rc -ne 0 || $out != *"$want"* ]]; then
        bad "$name on $hosts (exit $rc, $((SECONDS - t0))s)" "$out"
    else
        ok "$name on $hosts ($((SECONDS - t0))s)"
    fi
}
for hosts in n1:2,n2:2 n1:2,n2:2,n3:2; do
    suite "p2p sizes 0..8 MiB"    $hosts "OK sizes"    "$P2P" sizes $((8 << 20))
    suite "p2p wildcard storm"    $hosts "OK wildcard" "$P2P" wildcard
    suite "p2p 10,000 outstanding" $hosts "OK many"    "$P2P" many
    suite "p2p both sides send"   $hosts "OK bothsend" "$P2P" bothsend
    suite "p2p misc"              $hosts "OK misc"     "$P2P" misc
    suite "p2p bad input"         $hosts "OK badinput" "$P2P" badinput
    suite "p2p random seed 1"     $hosts "OK random"   "$P2P" random 1
    suite "p2p random seed 2, all rendezvous" $hosts "OK random" -x LOOM_EAGER_LIMIT=0 "$P2P" random 2
    suite "collectives (quick)"   $hosts ""            "$COLL" quick
done
suite "collectives (full)"        n1:2,n2:2 ""         "$COLL" full
check_clean "suites"

# ---- the same programs under Open MPI's mpirun ---------------------------------------------

if ! command -v mpirun >/dev/null; then
    bad "Open MPI's mpirun is not installed (apt-get install openmpi-bin)"
else
    mpi_run() { # NAME HOSTS NP WANT PROG ARGS...
        local name=$1 hosts=$2 np=$3 want=$4 t0=$SECONDS; shift 4
        out=$(on n1 timeout 170 mpirun --allow-run-as-root --oversubscribe \
              --mca plm_rsh_agent "$AGENT" --host "$hosts" -n "$np" \
              -x LOOM_OVERSUBSCRIBED=1 -x LOOM_ERRORS=return -x LOOM_LOG "$@" 2>&1)
        rc=$?
        if [[ $rc -ne 0 || $out != *"$want"* || $out == *FAIL* ]]; then
            bad "mpirun: $name on $hosts (exit $rc, $((SECONDS - t0))s)" "$out"
        else
            ok "mpirun: $name on $hosts ($((SECONDS - t0))s)"
        fi
    }
    mpi_run "placement"            n1:2,n2:2      4 "OK info"   "$PROG" info n1,n1,n2,n2
    mpi_run "placement"            n1:2,n2:2,n3:2 6 "OK info"   "$PROG" info n1,n1,n2,n2,n3,n3
    LOOM_LOG=info mpi_run "p2p random, tcp across" n1:2,n2:2,n3:2 6 \
        "transport tcp serves 4 peer(s) [0,1,2,3]" "$P2P" random 7
    mpi_run "p2p sizes 0..8 MiB"   n1:2,n2:2      4 "OK sizes"  "$P2P" sizes $((8 << 20))
    mpi_run "collectives (quick)"  n1:2,n2:2,n3:2 6 ""          "$COLL" quick
    check_clean "mpirun"
fi

# ---- PMIx direct modex, output, stdin ------------------------------------------------------

head_run --host n1:2,n2:2,n3:2 "$PROG" dmodex
if [[ $rc -ne 0 || $(grep -c '^OK dmodex' <<<"$out") -ne 6 ]]; then
    bad "direct modex across hosts (exit $rc)" "$out"
else
    ok "direct modex across hosts"
fi

head_run --tag-output --host n1:2,n2:2 "$LAUNCH" lines 200
good=$(grep -cE '^\[([0-3])\] (rank \1 line ([0-9]+): first half second half of \1/\3|tail of rank \1)$' <<<"$out")
if [[ $rc -ne 0 || $good -ne $((4 * 201)) || $(wc -l <<<"$out") -ne $((4 * 201)) ]]; then
    bad "tagged output by whole lines from every host ($good good lines, exit $rc)" "$out"
else
    ok "tagged output by whole lines from every host"
fi

seq 1 20000 >"$W/input"
out=$(on n1 timeout 170 "$LOOMRUN" --launch-agent "$AGENT" -x LOOM_OVERSUBSCRIBED=1 \
      --timeout 150 --host n2:1,n1:2 "$PROG" cat <"$W/input" 2>"$W/err")
rc=$?
if [[ $rc -ne 0 || $out != "$(cat "$W/input")" ]]; then
    bad "stdin to rank 0 on another host (exit $rc, $(wc -l <<<"$out") lines)" "$(cat "$W/err")"
else
    ok "stdin to rank 0 on another host"
fi
check_clean "modex and I/O"

# ---- failures --------------------------------------------------------------------------------

expect_fail() { # NAME CODE PATTERN ARGS...
    local name=$1 code=$2 pat=$3; shift 3
    head_run "$@"
    if [[ $rc -ne $code ]] || ! grep -qE "$pat" <<<"$out"; then
        bad "$name (exit $rc, want $code)" "$out"
    else
        ok "$name"
    fi
}
expect_fail "rank exits 3 on another host" 3 \
    "^loomrun: rank 3 \(pid [0-9]+ on n2\) exited with status 3" --host n1:2,n2:2 "$LAUNCH" exit 3 3
expect_fail "loom_abort on another host" 7 \
    "^loomrun: rank 2 \(pid [0-9]+ on n2\) aborted the job with status 7" --host n1:2,n2:2 "$LAUNCH" abort 2 7
expect_fail "killed before PMIx init on another host" 137 \
    "^loomrun: rank 3 \(pid [0-9]+ on n2\) was killed by signal 9 \(SIGKILL.*before it connected" \
    --host n1:2,n2:2 "$LAUNCH" kill-before 3
expect_fail "program missing on another host" 127 \
    "^loomrun: host n2: /nonexistent/prog: no such executable program" --host n2:1 /nonexistent/prog
t0=$SECONDS
expect_fail "unreachable host" 1 \
    "^loomrun: host n9: could not start loomrun there: the launch agent .* before the daemon called back" \
    --host n1:1,n9:1 "$PROG" info n1,n9
((SECONDS - t0 < 30)) || bad "unreachable host took $((SECONDS - t0)) s"
check_clean "failures"

# start_job ARGS...: a job in the background (head pid in $hpid, output in $W/job.*)
# (the files are emptied here, not only by the background job's redirection,
# which may come after wait_ready has read the previous job's READY lines)
start_job() {
    : >"$W/job.out"; : >"$W/job.err"
    on n1 "$LOOMRUN" --launch-agent "$AGENT" -x LOOM_OVERSUBSCRIBED=1 \
        --timeout 120 "$@" >"$W/job.out" 2>"$W/job.err" &
    hpid=$!
}
# wait_ready N: until N ranks said READY (or 60 s)
wait_ready() {
    for _ in $(seq 600); do
        (($(grep -c '^READY' "$W/job.out" 2>/dev/null) >= $1)) && return 0
        sleep 0.1
    done
    return 1
}
ms() { date +%s%3N; }

# a rank killed on another host: the job ends within 3 s, one message
start_job --host n1:2,n2:2 "$PROG" sleep 100
if wait_ready 4; then
    victim=$(sed -n 's/^READY rank=3 pid=\([0-9]*\) host=n2$/\1/p' "$W/job.out")
    t0=$(ms)
    kill -KILL "$victim"
    wait "$hpid"; rc=$?
    dt=$(($(ms) - t0))
    msgs=$(grep -c '^loomrun: rank' "$W/job.err")
    if [[ $rc -ne 137 || $dt -gt 3000 || $msgs -ne 1 ]] ||
       ! grep -q "^loomrun: rank 3 (pid $victim on n2) was killed by signal 9 (SIGKILL" "$W/job.err"; then
        bad "rank killed on another host (exit $rc, ${dt} ms, $msgs messages)" "$(cat "$W/job.err")"
    else
        ok "rank killed on another host: job over in ${dt} ms, one message"
    fi
else
    bad "rank killed on another host: ranks never ready" "$(cat "$W/job.out" "$W/job.err")"
    kill -KILL "$hpid" 2>/dev/null; wait "$hpid"
fi
check_clean "remote kill"

# SIGINT to the head: forwarded everywhere, 130
start_job --host n1:1,n2:1,n3:1 "$PROG" sleep 100
if wait_ready 3; then
    t0=$(ms)
    pkill -INT -f -- "^$LOOMRUN --launch-agent" ; wait "$hpid"; rc=$?
    dt=$(($(ms) - t0))
    if [[ $rc -ne 130 || $dt -gt 3000 ]]; then
        bad "SIGINT to the head (exit $rc, ${dt} ms)" "$(cat "$W/job.err")"
    else
        ok "SIGINT to the head ends the job on every host (${dt} ms)"
    fi
else
    bad "SIGINT: ranks never ready" "$(cat "$W/job.out" "$W/job.err")"
    kill -KILL "$hpid" 2>/dev/null; wait "$hpid"
fi
check_clean "SIGINT"

# the head killed: daemons kill their ranks and clean up after themselves
start_job --host n1:1,n2:2,n3:2 "$PROG" sleep 100
if wait_ready 5; then
    pkill -KILL -f -- "^$LOOMRUN --launch-agent"; wait "$hpid"
    gone=0
    for _ in $(seq 50); do
        [[ -z $(ns_pids) ]] && { gone=1; break; }
        sleep 0.1
    done
    # the head's own tmpdir and /dev/shm (n1): its cleanup guardian's work
    if ((gone == 0)); then
        bad "head killed: ranks, daemons or guardians still running after 5 s" \
            "$(ns_pids | xargs -r ps -o pid=,args= -p)"
    elif ! grep -q "^loomrun (pid [0-9]*) ended without cleaning up" "$W/job.err"; then
        bad "head killed: no word from the head's cleanup guardian" "$(cat "$W/job.err")"
    else
        ok "head killed: daemons and ranks gone, daemons and the head's guardian cleaned up"
    fi
else
    bad "head killed: ranks never ready" "$(cat "$W/job.out" "$W/job.err")"
    kill -KILL "$hpid" 2>/dev/null; wait "$hpid"
fi
check_clean "head killed"

# a daemon killed outright: the head names the host, its guardian cleans up there
start_job --host n1:1,n2:2 "$PROG" sleep 100
if wait_ready 3; then
    dpid=$(ip netns pids "${NS}n2" | xargs -r ps -o pid=,args= -p |
           awk -v l="$LOOMRUN" '$2 == l && $3 == "--daemon" {print $1; exit}')
    kill -KILL "$dpid"; wait "$hpid"; rc=$?
    if ((rc == 0)) || ! grep -q "^loomrun: host n2: " "$W/job.err"; then
        bad "daemon killed (pid '$dpid'): exit $rc, or host n2 not named" "$(cat "$W/job.err")"
    elif ! grep -q "^loomrun daemon (pid $dpid) ended without cleaning up" "$W/job.err"; then
        bad "daemon killed: no word from its cleanup guardian" "$(cat "$W/job.err")"
    else
        ok "daemon killed: the head names n2, the daemon's guardian cleans up"
    fi
else
    bad "daemon killed: ranks never ready" "$(cat "$W/job.out" "$W/job.err")"
    kill -KILL "$hpid" 2>/dev/null; wait "$hpid"
fi
check_clean "daemon killed"

# hang reports of ranks on other hosts reach the head through the daemons
# (SIGUSR1 on --timeout goes out through them too); one summary at the head
head_run --host n1:1,n2:2,n3:2 -x FAKEHANG_SIZE=5 --timeout 2 "$FAKEHANG" usr1 missing-send
if ((rc == 124)) &&
   grep -qxF "  allreduce #412 on WORLD: ranks 0-3 waiting, rank 4 never entered" <<<"$out" &&
   grep -qxF "  rank 4 is blocked in loom_recv from rank 3 tag 9 on WORLD (posted, 4 bytes)" <<<"$out" &&
   [[ $(grep -c "the ranks' state" <<<"$out") == 1 ]] && ! grep -q "^loom-report 4 begin" <<<"$out"; then
    ok "hang summary across hosts: rank 4 on n3 named, reports kept at the head"
else
    bad "hang summary across hosts (exit $rc)" "$out"
fi
check_clean "hang summary"

# ---- outsiders on the control port -----------------------------------------------------------

# HELLO (type 1): magic "LMRN", version 1, node 1, pid 1, host "x", and a
# 16-byte secret that is not the job's
hello_wrong_secret() {
    printf '\0\0\0\x2a\0\0\0\x01LMRN\0\0\0\x01\0\0\0\x01\0\0\0\x01\0\0\0\x02x\0'
    printf '\0\0\0\x100123456789abcdef'
}
# attack PORT: send stdin from n2, then wait for the head to hang up (1 = it did)
attack() {
    ip netns exec "${NS}n2" timeout 15 bash -c \
        'exec 3<>/dev/tcp/10.77.0.1/'"$1"' || exit 2; cat >&3; cat <&3 >/dev/null; exit 1'
}
start_job --host n1:2,n2:2 "$PROG" sleep 4
if wait_ready 4; then
    # the head listens on every address (its PMIx server on loopback only)
    port=$(ip netns exec "${NS}n1" ss -Hltnp | grep '"loomrun"' |
           sed -n 's/.* 0\.0\.0\.0:\([0-9][0-9]*\) .*/\1/p' | head -1)
    hello_wrong_secret | attack "$port"; r1=$?
    printf 'GET / HTTP/1.0\r\n\r\n' | attack "$port"; r2=$?
    wait "$hpid"; rc=$?
    if [[ -z $port || $r1 -ne 1 || $r2 -ne 1 ]]; then
        bad "outsiders: control port '$port', connections not dropped ($r1, $r2)" "$(cat "$W/job.err")"
    elif ! grep -q "^loomrun: refused a control connection from 10.77.0.2:[0-9]*: wrong job secret" "$W/job.err" ||
         ! grep -q "^loomrun: refused a control connection from 10.77.0.2:[0-9]*: unknown message type" "$W/job.err"; then
        bad "outsiders: no refusal messages" "$(cat "$W/job.err")"
    elif [[ $rc -ne 0 || $(grep -c '^OK sleep' "$W/job.out") -ne 4 ]]; then
        bad "outsiders: the job did not go on (exit $rc)" "$(cat "$W/job.out" "$W/job.err")"
    else
        ok "outsiders with a wrong secret or garbage are refused; the job goes on"
    fi
else
    bad "outsiders: ranks never ready" "$(cat "$W/job.out" "$W/job.err")"
    kill -KILL "$hpid" 2>/dev/null; wait "$hpid"
fi
check_clean "outsiders"

if ((fail)); then
    echo "test_multihost: FAILED"
    exit 1
fi
echo "test_multihost: all passed"
