#!/usr/bin/env bash
# test_cause_hosts.sh: across hosts, loomrun's head names the rank that
# failed first in cause, not the first end it hears of, and an abort code
# outside 1..255 is explained (launcher/loomrun_note.c, loomrun_loop.c).
#
# The hosts are two network namespaces of this machine (n1, n2: 10.78.0.1-2
# on a bridge in a third namespace; nothing touches the machine's own
# network), made and removed here, as in test/multihost/test_multihost.sh;
# the launch agent is test/multihost/netns_agent.sh. The head runs on n1;
# ranks 0-1 on n1, 2-3 on n2 (--host n1:2,n2:2).
#
#   - exit-late (prog_launch.c): the culprit cuts its PMIx connection, the
#     survivors note that they saw it fail and exit 1 half a second before
#     the culprit exits 3 (across hosts PMIx completes their fence without
#     the lost rank, so they say LATE and note it themselves, as the p2p
#     engine does when a transport reports a peer gone). The culprit on the head's own
#     host (its survivors' notes come through the head's pipe and a daemon),
#     then on the daemon's host (notes and ends come over the control
#     channel): rank 1 or 3 is named, and loomrun exits 3.
#   - cut-hang: only consequences come; a survivor is named as such, exit 1.
#   - loom_abort(-1) on the daemon's host: exit 255, "(-1 mod 256)".
#
# Must run as root (network namespaces); CI does. About 10 s.
# LOOM_TEST_VERBOSE=1 prints each job's output.
#   BUILD=build/release bash test/launcher/test_cause_hosts.sh
set -u
# shellcheck source=test/common/script_preamble.sh
. "$(dirname "$0")/../common/script_preamble.sh"
LOOMRUN=$B/bin/loomrun
LAUNCH=$B/test/launcher/prog_launch
AGENT=$TOP/test/multihost/netns_agent.sh

loom_need_progs "$LOOMRUN" "$LAUNCH"
loom_need_root "root and iproute2 (it makes network namespaces)" ip unshare

NS=lc$$-
W=$(mktemp -d /tmp/loom-cause.XXXXXX)
export LOOM_NETNS_PREFIX=$NS LOOM_NETNS_SHM_DIR=$W/shm TMPDIR=$W/tmp
export TSAN_OPTIONS=${TSAN_OPTIONS:-atexit_sleep_ms=0}
mkdir -p "$W/tmp" "$W/shm"

ns_pids() { for h in n1 n2; do ip netns pids "$NS$h" 2>/dev/null; done; }
cleanup() {
    ns_pids | xargs -r kill -KILL 2>/dev/null
    for h in n1 n2 sw; do ip netns del "$NS$h" 2>/dev/null; done
    rm -rf "$W"
}
trap cleanup EXIT
trap "exit 143" TERM INT HUP

ip netns add "${NS}sw" && ip -n "${NS}sw" link set lo up &&
ip -n "${NS}sw" link add br0 type bridge && ip -n "${NS}sw" link set br0 up || {
    echo "FAIL: cannot create the switch namespace"; exit 1; }
for i in 1 2; do
    ip netns add "${NS}n$i" &&
    ip -n "${NS}sw" link add "v$i" type veth peer name eth0 netns "${NS}n$i" &&
    ip -n "${NS}sw" link set "v$i" master br0 up &&
    ip -n "${NS}n$i" addr add "10.78.0.$i/24" dev eth0 &&
    ip -n "${NS}n$i" link set eth0 up && ip -n "${NS}n$i" link set lo up || {
        echo "FAIL: cannot create host namespace n$i"; exit 1; }
done

# head ARGS...: loomrun on n1 (its host name n1, its own /dev/shm) with the
# netns agent; output in $out, status in $rc
head_run() {
    mkdir -p "$W/shm/n1"
    out=$(ip netns exec "${NS}n1" unshare --uts sh -c \
          'hostname n1 && mount --bind "$0" /dev/shm && exec "$@"' "$W/shm/n1" \
          timeout 60 "$LOOMRUN" --launch-agent "$AGENT" -x LOOM_OVERSUBSCRIBED=1 \
          --timeout 40 --host n1:2,n2:2 -n 4 "$LAUNCH" "$@" 2>&1)
    rc=$?
    [[ -n ${LOOM_TEST_VERBOSE:-} ]] && printf "%s\n" "$out"
}

# expect NAME STATUS ERE-THE-ONE-LOOMRUN-LINE-MATCHES ARGS...
expect() {
    local name=$1 want=$2 re=$3 line left
    shift 3
    head_run "$@"
    line=$(grep '^loomrun: rank ' <<<"$out")
    if [[ $rc != "$want" ]]; then
        bad "$name: exit $rc, want $want" "$out"
    elif [[ $(grep -c '^loomrun: rank ' <<<"$out") != 1 ]] || ! grep -Eq "$re" <<<"$line"; then
        bad "$name: the one loomrun line does not match '$re'" "$out"
    else
        ok "$name"
    fi
    sleep 0.3
    left=$(ns_pids | xargs -r ps -o pid=,args= -p 2>/dev/null)
    [[ -z $left ]] || bad "$name: processes left" "$left"
}

P='\(pid [0-9]+ on'
expect "culprit on the head's host, survivors' ends first" 3 \
    "^loomrun: rank 1 $P n1\) exited with status 3; as a consequence, rank [023] $P n[12]\) exited with status 1 \(after it saw " \
    exit-late 3 1 500
expect "culprit on a daemon's host, survivors' ends first" 3 \
    "^loomrun: rank 3 $P n2\) exited with status 3; as a consequence, rank [012] $P n[12]\) exited with status 1 \(after it saw " \
    exit-late 3 3 500
expect "only consequences: a survivor, said so" 1 \
    "^loomrun: rank [013] $P n[12]\) exited with status 1 \(after it saw " \
    cut-hang 2
expect "loom_abort(-1) on a daemon's host: 255, said so" 255 \
    "^loomrun: rank 2 $P n2\) aborted the job with status -1: test abort message from rank 2; loomrun exits with 255 \(-1 mod 256\)" \
    abort 2 -1

left=$(ls -A "$W/tmp" "$W"/shm/* 2>/dev/null | grep -v -e '^$' -e ':$')
[[ -z $left ]] || bad "files left in tmpdirs or /dev/shm" "$left"
[[ $fail == 0 ]] && echo "test_cause_hosts: 4 cases passed" || echo "test_cause_hosts: FAILED"
exit $fail
