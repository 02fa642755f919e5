#!/usr/bin/env bash
# run.sh: the verbs suite, run INSIDE the soft-RoCE guest by `make check-verbs`
# (test/verbs/vm.sh test/verbs/run.sh). Every message crosses rxe0 with RC
# sends and RDMA reads: the shared-memory transport is disabled.
#   1. device smoke test (stock tools: rc/ud ping-pong, perftest)
#   2. transport tests (prog_ib_tl): frames and flow control with 2 and 3
#      ranks, eager and on-demand connection; rendezvous reads with buffer
#      reuse (registration cache) and with a small cache (eviction); a peer
#      whose QPs vanish mid-transfer gives the named error; a peer killed
#      mid-transfer ends the job promptly with the dead rank named; a peer
#      declared failed by the other side's watchdog is told within 2 s
#   3. the p2p and collectives rank programs (test/p2p/prog_p2p,
#      test/coll/prog_coll) with LOOM_TRANSPORTS=self,ib, a reduced matrix
#      that fits CI under emulation: np 2 and 3, sizes across the eager /
#      rendezvous boundary, wildcards, ssend/truncation/probe/cancel, both
#      sides sending first, 10,000 outstanding, random traffic (also all by
#      rendezvous, and with connection on demand), and every message-based
#      collective algorithm forced once; the MPI program mpi_dt_zc (derived
#      datatypes through the typed p2p paths) at np 2. Each job runs with
#      LOOM_LOG=info and must show every rank reaching all its peers over ib.
#   4. multicast bcast (prog_mcast): np 2, 3 and 4, sizes 0 .. threshold,
#      every root, several communicators, 600 back-to-back and nonblocking
#      broadcasts, with 0, 5 and 30 % of multicast datagrams dropped; a rank
#      refused the group (LOOM_IB_MCAST_FAULT) makes all fall back.
#   5. one-sided over verbs (rma/rma_ib.c; VERBS_STEPS=rma for these only):
#      test/mpi/mpi_rma_ib (every accumulate op on 8-byte elements by the
#      atomic verbs against a model, other types and misaligned ones by
#      messages, contention, put/get by RDMA write/read up to 1.5 MiB,
#      exclusive locks by atomics) at np 2 and 3, and with a target making
#      no MPI call ("noprogress": over messages it would hang); the general
#      one-sided programs mpi_rma, mpi_rma2 (fetch-and-op atomicity, a CAS
#      spin lock, noprogress), mpi_rma_big and mpi_rma_err over self,ib;
#      each window must say it runs over ib one-sided ops; rma_lat checks
#      its data at 8 B.
# Every step prints its time. Exit status: number of failed steps (0 = all passed).
#   VERBS_STEPS=regex   run only the steps whose name matches (e.g. 'p2p|coll')
set -u
. "$(dirname "$0")/steps.sh"
steps_init verbs   # cd, BUILD, LOOM_TOP, PATH; logs in $BUILD/test-logs/verbs
prog=$BUILD/test/verbs/prog_ib_tl
p2p=$BUILD/test/p2p/prog_p2p
coll=$BUILD/test/coll/prog_coll

# A real SIGKILL: the job must end promptly, the launcher naming the dead rank.
kill_real() {
    local out rc
    out=$(loomrun -n 2 "$prog" kill 2>&1); rc=$?
    echo "$out"
    ((rc == 137)) && grep -q 'rank 0 .* killed by signal 9' <<<"$out"
}

# kill_named: rank 0's QPs vanish while rank 1 reads from it; rank 1 must log
# the error naming both ends and the QP, and the job must not hang.
kill_named() {
    local out
    out=$(PROG_IB_SIMULATE_DEATH=1 timeout -k 5 120 loomrun -n 2 "$prog" kill 2>&1) || {
        echo "$out"; return 1; }
    echo "$out"
    grep -q 'ERROR ib: rank 1 (.*) -> rank 0 (.*): RDMA read on .* QP 0x[0-9a-f]* failed' \
        <<<"$out" || { echo "no error naming both ends and the QP"; return 1; }
    grep -q 'PASS kill' <<<"$out"
}

# stall_told: rank 0's watchdog declares rank 1 failed (LOOM_IB_STALL_FAULT=0
# makes it take every peer for stalled) while rank 1 only waits; rank 0 must
# tell it:
# rank 1 fails the connection within 2 s of the declaration (prog_ib_tl
# checks the time), its error naming both ends and rank 0's declaration.
stall_told() {
    local out
    out=$(LOOM_IB_STALL_FAULT=0 LOOM_IB_STALL_TIMEOUT=1 timeout -k 5 120 \
          loomrun -n 2 "$prog" stall 2>&1) || { echo "$out"; return 1; }
    echo "$out"
    grep -q 'ERROR ib: rank 0 (.*) -> rank 1 (.*): send on .* QP 0x[0-9a-f]* failed: no completion' \
        <<<"$out" || { echo "rank 0: no watchdog error naming both ends"; return 1; }
    grep -q 'ERROR ib: rank 1 (.*) -> rank 0 (.*): connection on .* QP 0x[0-9a-f]* failed: rank 0 (.*) declared the connection failed' \
        <<<"$out" || { echo "rank 1: no error naming both ends and rank 0's declaration"; return 1; }
    grep -q 'PASS stall' <<<"$out"
}

# ib_job NP TIMEOUT [VAR=value...] PROG ARGS... : one job of a rank program
# over self,ib; exit 0, and (LOOM_LOG=info) every rank must report that ib
# serves all NP-1 peers and no other transport serves any.
ib_job() {
    local np=$1 tmo=$2 out rc r n bad=0; shift 2
    n=$(ib_nenv "$@")
    out=$(env LOOM_TRANSPORTS=self,ib LOOM_LOG=info LOOM_ERRORS=return "${@:1:n}" \
          loomrun -q --timeout "$tmo" -n "$np" "${@:$((n + 1))}" 2>&1)
    rc=$?
    echo "$out"
    if ((rc != 0)); then
        echo "job exit status $rc"; return 1
    fi
    for ((r = 0; r < np; ++r)); do
        if ! grep -Eq "^loom\[$r@[^]]*\] INFO p2p: transport ib serves $((np - 1)) peer" \
                <<<"$out"; then
            echo "rank $r: no 'transport ib serves $((np - 1)) peer(s)' line"; bad=1
        fi
    done
    if grep -E 'INFO p2p: transport (shm|tcp) serves [1-9]' <<<"$out"; then
        echo "a transport other than ib carried messages"; bad=1
    fi
    if [[ " ${*:1:n} " == *" LOOM_IB_LAZY_THRESHOLD=1 "* ]] &&
       (($(grep -c 'INFO ib: using .*, on-demand connection)' <<<"$out") != np)); then
        echo "LOOM_IB_LAZY_THRESHOLD=1 but not every rank connects on demand"; bad=1
    fi
    return $bad
}

# number of leading VAR=value words
ib_nenv() {
    local n=0 a
    for a in "$@"; do
        [[ $a =~ ^[A-Z_][A-Z0-9_]*= ]] || break
        n=$((n + 1))
    done
    echo $n
}

# p2p NP TIMEOUT [VAR=value...] MODE ARGS... : prog_p2p must also print OK MODE
p2p() {
    local np=$1 tmo=$2 n mode out; shift 2
    n=$(ib_nenv "$@")
    mode=${*:$((n + 1)):1}
    out=$(ib_job "$np" "$tmo" "${@:1:n}" "$p2p" "${@:$((n + 1))}") || { echo "$out"; return 1; }
    echo "$out"
    grep -q "^OK $mode" <<<"$out"
}

# coll NP TIMEOUT MODE ALGORITHMS... : prog_coll with one algorithm forced per
# collective, in the order of colls below (every one message-based)
colls=(BARRIER BCAST REDUCE ALLREDUCE ALLGATHER GATHER SCATTER ALLTOALL REDUCE_SCATTER)
coll() {
    local np=$1 tmo=$2 mode=$3 env=() i=0 a; shift 3
    for a in "$@"; do
        env+=("LOOM_${colls[$i]}_ALGORITHM=$a")
        i=$((i + 1))
    done
    echo "${env[*]}"
    ib_job "$np" "$tmo" "${env[@]}" "$coll" "$mode"
}

step smoke 120 bash test/verbs/smoke.sh
step am-2 240 loomrun -n 2 "$prog" am
step am-3-on-demand 300 env LOOM_IB_LAZY_THRESHOLD=1 loomrun -n 3 "$prog" am
step get-2 240 loomrun -n 2 "$prog" get
step get-3-small-rcache 300 env LOOM_IB_RCACHE_MAX=1m LOOM_IB_LAZY_THRESHOLD=2 \
    loomrun -n 3 "$prog" get
step kill-named 130 kill_named
step kill-real 120 kill_real
step stall-told 130 stall_told

# point-to-point (eager limit 8120 bytes over ib; sizes go to 4 MiB = 4 reads)
for np in 2 3; do
    step "p2p-sizes-np$np" 180 p2p $np 150 sizes $((8 << 20 >> np))
    step "p2p-wildcard-np$np" 120 p2p $np 100 wildcard
    step "p2p-misc-np$np" 120 p2p $np 100 misc
    step "p2p-bothsend-np$np" 120 p2p $np 100 bothsend
    step "p2p-random-np$np" 120 p2p $np 100 random $np
done
step p2p-many-np2 180 p2p 2 150 many
step p2p-random-all-rendezvous-np3 120 p2p 3 100 LOOM_EAGER_LIMIT=0 random 9
step p2p-random-on-demand-np3 120 p2p 3 100 LOOM_IB_LAZY_THRESHOLD=1 random 4

# dt_zc: non-contiguous datatypes through the typed p2p paths (issue 20,
# test/mpi/mpi_dt_zc at its small sizes, past the eager limit): eager frames
# packed into the engine's bounce, rendezvous reads through the receive
# bounce (ib offers neither am_send_pack nor get_iov)
dt_zc() {
    local out
    out=$(ib_job 2 200 "$BUILD/test/mpi/mpi_dt_zc" small) || { echo "$out"; return 1; }
    echo "$out"
    grep -q "^mpi_dt_zc: passed on 2 ranks" <<<"$out"
}
step dt_zc-np2 240 dt_zc

# collectives: every message-based algorithm forced at least once
#        barrier       bcast             reduce       allreduce          allgather          gather   scatter  alltoall reduce_scatter
set_a=(dissemination binomial          binomial     recursive_doubling recursive_doubling binomial binomial pairwise ring)
set_b=(dissemination scatter_allgather rabenseifner rabenseifner       ring               linear   linear   bruck    ordered)
set_c=(dissemination chain             ordered      ring               bruck              binomial binomial pairwise ring)
set_d=(dissemination binomial          binomial     ordered            recursive_doubling linear   linear   bruck    ordered)
step coll-a-np2 200 coll 2 150 quick "${set_a[@]}"
step coll-b-np2 200 coll 2 150 quick "${set_b[@]}"
step coll-a-np3 200 coll 3 150 quick "${set_a[@]}"
step coll-b-np3 200 coll 3 150 quick "${set_b[@]}"
step coll-c-np3 200 coll 3 150 quick "${set_c[@]}"
step coll-d-np3 200 coll 3 150 quick "${set_d[@]}"

# multicast bcast (prog_mcast): every rank must report the multicast group
# joined on WORLD, every byte must arrive with 0 %, 5 % and 30 % of the
# multicast datagrams dropped on receive; a rank that cannot join makes
# every rank fall back to the trees, with an info notice on each
# mcast NP MODE[:REPS] [VAR=value...]: prog_mcast MODE REPS (REPS back-to-back
# broadcasts per communicator, default 300)
mcast() {
    local np=$1 want=${2%%:*} reps=300 out r
    [[ $2 == *:* ]] && reps=${2#*:}
    shift 2
    out=$(ib_job "$np" 240 "$@" "$BUILD/test/verbs/prog_mcast" "$want" "$reps") ||
        { echo "$out"; return 1; }
    echo "$out"
    for ((r = 0; r < np; ++r)); do
        grep -q "^OK $want rank $r" <<<"$out" || { echo "rank $r: no OK line"; return 1; }
        if [[ $want == bcast ]]; then
            grep -Eq "^loom\[$r@[^]]*\] INFO coll: bcast on WORLD \($np ranks\): multicast, every rank joined" \
                <<<"$out" || { echo "rank $r: WORLD did not agree on multicast"; return 1; }
        else
            grep -Eq "^loom\[$r@[^]]*\] INFO coll: bcast on WORLD \($np ranks\): multicast unavailable on some rank" \
                <<<"$out" || { echo "rank $r: no fallback notice"; return 1; }
        fi
    done
}
step mcast-np2 240 mcast 2 bcast
step mcast-np3-drop5 240 mcast 3 bcast:200 LOOM_IB_MCAST_DROP=0.05
step mcast-np4-drop30 240 mcast 4 bcast:60 LOOM_IB_MCAST_DROP=0.3 LOOM_IB_MCAST_THRESHOLD=20000
step mcast-fallback-np3 240 mcast 3 fallback:50 LOOM_IB_MCAST_FAULT=1

# rma NP TIMEOUT [VAR=value...] PROG ARGS... : an MPI one-sided program over
# self,ib (ib_job); it must pass and every rank must have made its windows
# RDMA ones (rma/rma_ib.c logs each at info)
rma() {
    local np=$1 tmo=$2 out r; shift 2
    out=$(ib_job "$np" "$tmo" "$@") || { echo "$out"; return 1; }
    echo "$out"
    grep -q ": passed on $np ranks" <<<"$out" || { echo "no 'passed' line"; return 1; }
    for ((r = 0; r < np; ++r)); do
        grep -Eq "^loom\[$r@[^]]*\] INFO rma: rank $r: window of [0-9]+ bytes over ib one-sided ops" \
            <<<"$out" || { echo "rank $r: no window over ib one-sided ops"; return 1; }
    done
}
mpi=$BUILD/test/mpi
step rma-ib-np2 200 rma 2 150 "$mpi/mpi_rma_ib" 30
step rma-ib-noprogress-np3 240 rma 3 200 "$mpi/mpi_rma_ib" 20 noprogress
step rma-general-np2 200 rma 2 150 "$mpi/mpi_rma" 100
step rma2-noprogress-np3 200 rma 3 150 "$mpi/mpi_rma2" 50 noprogress
step rma-big-np2 200 rma 2 150 "$mpi/mpi_rma_big" 1
step rma-err-np2 120 ib_job 2 100 "$mpi/mpi_rma_err"
step rma-lat-np2 120 ib_job 2 100 "$BUILD/test/verbs/rma_lat" -n 200

steps_summary "verbs suite"
exit $?
