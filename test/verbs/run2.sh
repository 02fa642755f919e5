#!/usr/bin/env bash
# run2.sh: verbs across hosts, run on vm1 by `make check-verbs-2host`
# (test/verbs/vm.sh --pair test/verbs/run2.sh). Two soft-RoCE guests, vm1
# and vm2, share one Ethernet segment (QEMU socket network); loomrun on vm1
# starts its daemon on vm2 through the guests' launch agent ($VM_AGENT,
# test/verbs/prog_vm_agent.c). Jobs run 2 ranks per guest with
# LOOM_TRANSPORTS=self,shm,ib: shm inside a guest, ib (RC sends, RDMA reads)
# between the guests, nothing over TCP.
#   1. the agent: vm2 answers; a wrong token is refused
#   2. the device across guests: ibv_rc_pingpong vm1 <-> vm2
#   3. the p2p rank program (test/p2p/prog_p2p): sizes across the eager /
#      rendezvous boundary, random traffic all by rendezvous (RDMA reads
#      across the guests), wildcards, ssend/truncation/probe/cancel
#   4. the collectives rank program (test/coll/prog_coll light) with default
#      selection, and once with message-based algorithms forced
#      (every job of 3 and 4: each rank reports shm for its guest mate and
#      ib for the two ranks on the other guest (LOOM_LOG=info), no tcp)
#   5. multicast bcast across the guests (test/verbs/prog_mcast, bcast
#      algorithm "mcast", over self,ib), also with 5% of the multicast
#      datagrams dropped
#   6. one-sided over verbs across the guests (test/mpi/mpi_rma_ib, rma/
#      rma_ib.c): one rank per guest (RDMA windows, also with the target
#      making no MPI call), and 2 per guest over self,ib (RDMA windows, the
#      guest mates by loopback rxe) and over self,shm,ib (the guest mates
#      by shm: such mixed windows keep active messages; same answers)
#   7. nothing of the jobs left on vm2 (processes, /dev/shm)
#   8. a rank killed on vm2: the job ends within 3 s, one message naming the
#      rank, its pid, vm2 and the signal; nothing of the job left on vm2
#   9. rank 0's ib watchdog (vm1) declares rank 1 (vm2) failed: rank 1 is
#      told within 2 s (LOOM_IB_STALL_FAULT, prog_ib_tl stall)
# Every step prints its time. Exit status: number of failed steps.
#   VERBS_STEPS=regex   run only the steps whose name matches
set -u
. "$(dirname "$0")/steps.sh"
steps_init verbs2   # cd, BUILD, LOOM_TOP, PATH; logs in $BUILD/test-logs/verbs2
: "${VM_AGENT:?run2.sh runs on vm1 under test/verbs/vm.sh --pair (no VM_AGENT)}"
p2p=$BUILD/test/p2p/prog_p2p
coll=$BUILD/test/coll/prog_coll
mh=$BUILD/test/multihost/prog_multihost
mcprog=$BUILD/test/verbs/prog_mcast
hosts=vm1:2,vm2:2

# ---- the agent and the device ------------------------------------------------------

# vm2 boots alongside; its agent answers within two minutes, and only to the token
agent() {
    local t0=$SECONDS out bad
    until out=$($VM_AGENT vm2 hostname 2>&1) && [[ $out == vm2 ]]; do
        ((SECONDS - t0 < 120)) || { echo "vm2's agent did not answer: $out"; return 1; }
        sleep 1
    done
    echo "vm2 answered after $((SECONDS - t0)) s"
    bad=$(mktemp)
    head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$bad"
    # the same agent command line with another token
    out=$(${VM_AGENT/--token-file * --hosts/--token-file $bad --hosts} vm2 touch /tmp/pwned 2>&1)
    local rc=$?
    rm -f "$bad"
    echo "wrong token: exit $rc: $out"
    [[ $rc == 255 && $out == *"refused the connection: wrong token"* ]] || return 1
    ! $VM_AGENT vm2 test -e /tmp/pwned
}

# RC ping-pong between the guests with the stock tool (server on vm2)
pingpong() {
    local spid i rc=1
    $VM_AGENT vm2 timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 200 &
    spid=$!
    for i in $(seq 20); do
        sleep 1
        timeout 60 ibv_rc_pingpong -d rxe0 -g 1 -n 200 10.0.2.16 && { rc=0; break; }
    done
    wait $spid || rc=1
    return $rc
}

# ---- jobs across the guests --------------------------------------------------------

# job TIMEOUT [VAR=value...] PROG ARGS... : loomrun over both guests with the
# transports restricted to $transports; output in $out, status in $rc.
# The ib watchdog's stall limit is raised from 4 s to 60: an emulated guest on
# a loaded host can stall for seconds, and a live peer must not be declared
# dead for it (a dead rank is the launcher's to report, as kill_remote checks).
transports=self,shm,ib
job() {
    local tmo=$1 xs=(); shift
    while [[ $1 =~ ^[A-Z_][A-Z0-9_]*= ]]; do xs+=(-x "$1"); shift; done
    out=$(timeout -k 5 $((tmo + 30)) loomrun -q --timeout "$tmo" --host $hosts \
          --launch-agent "$VM_AGENT" -x LOOM_TRANSPORTS=$transports -x LOOM_LOG=info \
          -x LOOM_ERRORS=return -x LOOM_IB_STALL_TIMEOUT=60 "${xs[@]}" "$@" 2>&1)
    rc=$?
    echo "$out"
    echo "loomrun exit status $rc"
}

# Every rank: shm serves its guest mate, ib the two ranks of the other guest
# (with transports self,ib: ib serves all three).
check_transports() {
    local r h mate others bad=0
    for r in 0 1 2 3; do
        h=vm$((r / 2 + 1)) mate=$((r ^ 1)) others=$( ((r < 2)) && echo 2,3 || echo 0,1)
        if [[ $transports == self,ib ]]; then
            others=$( ((r < 2)) && echo "$mate,2,3" || echo "0,1,$mate")
            grep -q "^loom\[$r@$h\] INFO p2p: transport ib serves 3 peer(s) \[$others\]" <<<"$out" ||
                { echo "rank $r@$h: no 'ib serves 3 peer(s) [$others]'"; bad=1; }
            continue
        fi
        grep -q "^loom\[$r@$h\] INFO p2p: transport shm serves 1 peer(s) \[$mate\]" <<<"$out" ||
            { echo "rank $r@$h: no 'shm serves 1 peer(s) [$mate]'"; bad=1; }
        grep -q "^loom\[$r@$h\] INFO p2p: transport ib serves 2 peer(s) \[$others\]" <<<"$out" ||
            { echo "rank $r@$h: no 'ib serves 2 peer(s) [$others]'"; bad=1; }
    done
    if grep -E 'INFO p2p: transport tcp serves [1-9]' <<<"$out"; then
        echo "tcp carried messages"; bad=1
    fi
    return $bad
}

# p2p TIMEOUT [VAR=value...] MODE ARGS... : prog_p2p, "OK MODE", ib across
p2p() {
    local tmo=$1 a mode xs=(); shift
    while [[ $1 =~ ^[A-Z_][A-Z0-9_]*= ]]; do xs+=("$1"); shift; done
    mode=$1
    job "$tmo" "${xs[@]}" "$p2p" "$@"
    ((rc == 0)) && grep -q "^OK $mode" <<<"$out" && check_transports
}

# coll TIMEOUT [VAR=value...] : prog_coll light (quick's matrix with fewer
# sizes), ib across
coll() {
    local tmo=$1; shift
    job "$tmo" "$@" "$coll" light
    ((rc == 0)) && check_transports
}

# ---- multicast -------------------------------------------------------------------

# mcast REPS [VAR=value...] : prog_mcast bcast (test/verbs/prog_mcast.c)
# across the guests with bcast forced to multicast: every byte checked on
# WORLD and on communicators that split the guests' ranks differently; every
# rank must agree on multicast for WORLD and have carried broadcasts by it
# (the transport's counters; with drops, dropped datagrams resent). The
# transports are self,ib: a communicator takes multicast only when ib
# reaches all its ranks, so here the guest mates talk over rxe too.
mcast() {
    local reps=$1 r h transports=self,ib; shift
    job 240 LOOM_BCAST_ALGORITHM=mcast "$@" "$mcprog" bcast "$reps"
    ((rc == 0)) || return 1
    for r in 0 1 2 3; do
        h=vm$((r / 2 + 1))
        grep -q "^OK bcast rank $r\$" <<<"$out" || { echo "rank $r@$h: no OK line"; return 1; }
        grep -Eq "^loom\[$r@$h\] INFO coll: bcast on WORLD \(4 ranks\): multicast, every rank joined" \
            <<<"$out" || { echo "rank $r@$h: WORLD did not agree on multicast"; return 1; }
    done
    check_transports
}

# ---- failure ---------------------------------------------------------------------

# A rank on vm2 killed with SIGKILL: the job ends within 3 s, one message
# naming rank 3, its pid, vm2 and SIGKILL; then nothing of the job on vm2.
kill_remote() {
    local jf pid t0 dt hp i msgs left
    jf=$(mktemp -d)
    loomrun --host $hosts --launch-agent "$VM_AGENT" -x LOOM_TRANSPORTS=self,shm,ib \
        --timeout 200 "$mh" sleep 150 >"$jf/out" 2>"$jf/err" &
    hp=$!
    for i in $(seq 1200); do
        (($(grep -c '^READY' "$jf/out") >= 4)) && break
        sleep 0.1
    done
    pid=$(sed -n 's/^READY rank=3 pid=\([0-9]*\) host=vm2$/\1/p' "$jf/out")
    if [[ -z $pid ]]; then
        echo "rank 3 never ready on vm2"; cat "$jf/out" "$jf/err"
        kill -TERM $hp; wait $hp; rm -rf "$jf"; return 1
    fi
    $VM_AGENT vm2 kill -KILL "$pid"
    t0=$(date +%s%3N)
    wait $hp; rc=$?
    dt=$(($(date +%s%3N) - t0))
    cat "$jf/out" "$jf/err"
    msgs=$(grep -c '^loomrun: rank' "$jf/err")
    echo "job over ${dt} ms after the kill, exit $rc, $msgs message(s)"
    grep -q "^loomrun: rank 3 (pid $pid on vm2) was killed by signal 9 (SIGKILL" "$jf/err" &&
        ((rc == 137 && msgs == 1 && dt < 3000)) || { rm -rf "$jf"; return 1; }
    rm -rf "$jf"
    left_on_vm2
}

# One rank per guest; rank 0's watchdog (vm1) declares rank 1 (vm2) failed
# (LOOM_IB_STALL_FAULT=0, after 1 s) while rank 1 only waits: rank 1 must be
# told and fail the connection within 2 s (prog_ib_tl stall checks it), its
# error naming both ends and hosts.
stall_told_remote() {
    local hosts=vm1:1,vm2:1
    job 120 LOOM_IB_STALL_FAULT=0 LOOM_IB_STALL_TIMEOUT=1 "$BUILD/test/verbs/prog_ib_tl" stall
    ((rc == 0)) || return 1
    grep -q 'ERROR ib: rank 0 (vm1) -> rank 1 (vm2): send on .* failed: no completion for [12]\.' <<<"$out" ||
        { echo "rank 0: no watchdog error naming both ends"; return 1; }
    grep -q 'ERROR ib: rank 1 (vm2) -> rank 0 (vm1): connection on .* failed: rank 0 (vm1) declared the connection failed' \
        <<<"$out" || { echo "rank 1: no error naming both ends and rank 0's declaration"; return 1; }
    grep -q 'PASS stall: told' <<<"$out"
}

# Nothing of any job on vm2: processes (daemon, guardian, ranks), /dev/shm.
left_on_vm2() {
    local i left
    for i in 1 2 3 4 5; do
        sleep 1
        left=$($VM_AGENT vm2 ps -eo pid=,comm= |
                   grep -E ' (loomrun|loomrun-guard|prog_p2p|prog_coll|prog_mcast|prog_multihost)$'
               $VM_AGENT vm2 ls -A /dev/shm)
        [[ -z $left ]] && return 0
    done
    echo "left on vm2 5 s after the job: $left"
    return 1
}

step agent agent
step rc-pingpong-vm1-vm2 pingpong
step p2p-sizes p2p 200 sizes $((1 << 20))
step p2p-random-rendezvous p2p 150 LOOM_EAGER_LIMIT=0 random 2
step p2p-wildcard p2p 150 wildcard
step p2p-misc p2p 150 misc
step coll-default coll 200
step coll-forced coll 200 LOOM_BCAST_ALGORITHM=scatter_allgather \
    LOOM_ALLREDUCE_ALGORITHM=rabenseifner LOOM_ALLGATHER_ALGORITHM=ring \
    LOOM_ALLTOALL_ALGORITHM=bruck LOOM_BARRIER_ALGORITHM=dissemination
step mcast-bcast mcast 60
step mcast-bcast-drop-5pct mcast 40 LOOM_IB_MCAST_DROP=0.05
# rma HOSTS TRANSPORTS WANT_RDMA ARGS... : mpi_rma_ib across the guests; it
# must pass, and its windows be RDMA ones (WANT_RDMA 1) or not (0)
rma() {
    local hosts=$1 transports=$2 want=$3 n; shift 3
    job 240 "$BUILD/test/mpi/mpi_rma_ib" "$@"
    ((rc == 0)) && grep -q "^mpi_rma_ib.*: passed on" <<<"$out" || return 1
    n=$(grep -c "INFO rma: rank [0-9]*: window of .* over ib one-sided ops" <<<"$out")
    if ((want && n == 0)) || ((!want && n > 0)); then
        echo "$n window(s) over ib one-sided ops, wanted $( ((want)) && echo some || echo none)"
        return 1
    fi
}
step rma-ib-1-per-guest rma vm1:1,vm2:1 self,ib 1 20 noprogress
step rma-ib-2-per-guest rma vm1:2,vm2:2 self,ib 1 10
step rma-mixed-shm-ib rma vm1:2,vm2:2 self,shm,ib 0 10
step vm2-clean-after-jobs left_on_vm2
step stall-told-vm2 stall_told_remote
step kill-rank-on-vm2 kill_remote

steps_summary "two-guest verbs suite"
exit $?
