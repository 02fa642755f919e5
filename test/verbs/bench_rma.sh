#!/usr/bin/env bash
# bench_rma.sh: one-sided latency at 8 B INSIDE the soft-RoCE guest
# (test/verbs/vm.sh test/verbs/bench_rma.sh): raw perftest on rxe0
# (ib_write_lat, ib_read_lat, ib_atomic_lat fetch-add and compare-swap)
# against loom over LOOM_TRANSPORTS=self,ib (an RDMA window, rma/rma_ib.c):
# test/verbs/rma_lat (op + MPI_Win_flush timed one by one, the median,
# as perftest's t_typical) and bench/osu_rma -w flush (OSU's mean, for
# reference). Prints a markdown table, also left in
# $BUILD/test-logs/verbs/bench_rma.md (`make bench-verbs-rma`).
# Emulated hardware: ratios only.
#
# What is compared: perftest's ib_read_lat and ib_atomic_lat time one
# operation to its completion, a full round trip, like op + flush; but
# ib_write_lat is a ping-pong of writes and reports half a round trip, so
# an MPI_Put + flush (write, then its completion: a round trip) is also
# compared with twice that figure. Each figure is the best of
# BENCH_ROUNDS interleaved rounds.
#   BENCH_ITERS=N    iterations (default 2000)
#   BENCH_ROUNDS=N   rounds (default 3)
set -u
cd "$(dirname "$0")/../.."
export BUILD=${BUILD:-build/release}
export PATH="$PWD/$BUILD/bin:$PATH"
logs=$BUILD/test-logs/verbs
mkdir -p "$logs"
addr=10.0.2.15
iters=${BENCH_ITERS:-2000}
rounds=${BENCH_ROUNDS:-3}
port=18700
declare -A raw
t_all=$SECONDS

# perf NAME TOOL ARGS... : server then client (retried until the server listens)
perf() {
    local name=$1 tool=$2 out=$logs/bench_rma-$1.log try; shift 2
    port=$((port + 1))
    timeout 180 "$tool" -d rxe0 -x 1 -p $port "$@" >"$out.srv" 2>&1 &
    local spid=$!
    for try in $(seq 20); do
        sleep 1
        timeout 180 "$tool" -d rxe0 -x 1 -p $port "$@" $addr >"$out" 2>&1 && break
        grep -q "Couldn't connect" "$out" || break
    done
    wait $spid
    # #bytes #iterations t_min t_max t_typical t_avg ...
    awk '$1 == 8 && NF >= 6 { print $5, $6; exit }' "$out"
}

best() {   # best KEY VALUE: keep the smallest
    local k=$1 v=$2 cur=${raw[$1]:-}
    [[ -z $v || $v == inf ]] && return 0
    if [[ -z $cur ]] || awk -v a="$v" -v b="$cur" 'BEGIN { exit !(a < b) }'; then
        raw[$k]=$v
    fi
}

osu() {   # osu TEST: the 8-byte mean of osu_rma -t TEST -w flush over self,ib
    local out=$logs/bench_rma-osu-$1.log
    LOOM_TRANSPORTS=self,ib timeout 300 loomrun -q -n 2 "$BUILD/bench/loom/osu_rma" \
        -t "$1" -w flush -m 8:8 -i "$iters" -x 100 >"$out" 2>&1
    awk '$1 == 8 { print $2; exit }' "$out"
}

lat() {   # lat: "TEST MEDIAN MEAN" lines of rma_lat over self,ib
    local out=$logs/bench_rma-lat.log
    LOOM_TRANSPORTS=self,ib timeout 300 loomrun -q -n 2 "$BUILD/test/verbs/rma_lat" \
        -n "$iters" >"$out" 2>&1
    grep -q FAIL "$out" && { cat "$out" >&2; echo "rma_lat: wrong data" >&2; }
    awk '$1 == "rma_lat" { print $2, $5, $6 }' "$out"
}

both() {   # both KEY "TYPICAL AVG": keep the best of each
    set -- "$1" $2
    best "$1" "${2:-}"
    best "$1:avg" "${3:-}"
}

if ! command -v ib_write_lat >/dev/null; then
    echo "perftest (ib_write_lat) is not installed: only loom's figures"
fi
for ((r = 1; r <= rounds; ++r)); do
    t0=$SECONDS
    if command -v ib_write_lat >/dev/null; then
        both write "$(perf write ib_write_lat -s 8 -n "$iters")"
        both read "$(perf read ib_read_lat -s 8 -n "$iters")"
        both fadd "$(perf fadd ib_atomic_lat -A FETCH_AND_ADD -n "$iters")"
        both cswap "$(perf cswap ib_atomic_lat -A CMP_AND_SWAP -n "$iters")"
    fi
    while read -r t med mean; do
        best "$t" "$med"
        best "$t:avg" "$mean"
    done < <(lat)
    for t in put get fop cas; do
        best "osu:$t" "$(osu $t)"
    done
    echo "round $r: $((SECONDS - t0)) s"
done

ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo -; }
twice() { [[ -n ${1:-} ]] && awk -v a="$1" 'BEGIN { printf "%.2f", 2 * a }'; }
row() {   # row LABEL PERFTEST_KEY LOOM_KEY [x2]
    local p=${raw[$2]:-} pa=${raw[$2:avg]:-}
    if [[ ${4:-} == x2 ]]; then p=$(twice "$p"); pa=$(twice "$pa"); fi
    echo "| $1 | ${p:--} | ${raw[$3]:--} | $(ratio "${raw[$3]:-}" "$p") |" \
         "${pa:--} | ${raw[$3:avg]:--} | ${raw[osu:$3]:--} | $(ratio "${raw[$3:avg]:-}" "$pa") |"
}
{
    echo "| 8 B, us | perftest median | loom median | ratio | perftest mean | loom mean | osu_rma mean | ratio of means |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|"
    row "put+flush vs ib_write_lat (half round trip)" write put
    row "put+flush vs 2 x ib_write_lat" write put x2
    row "get+flush vs ib_read_lat" read get
    row "fop+flush vs ib_atomic_lat FETCH_AND_ADD" fadd fop
    row "cas+flush vs ib_atomic_lat CMP_AND_SWAP" cswap cas
} >"$logs/bench_rma.md"
echo
cat "$logs/bench_rma.md"
echo
echo "bench_rma: $((SECONDS - t_all)) s; best of $rounds rounds"
