#!/usr/bin/env bash
# bench.sh: benchmarks INSIDE the soft-RoCE guest, one boot, one run
# (`make bench-verbs`, i.e. test/verbs/vm.sh test/verbs/bench.sh):
#   1. raw perftest on rxe0: ib_send_lat, ib_read_lat, ib_read_bw
#   2. loom over ib (LOOM_TRANSPORTS=self,ib): test/verbs/pingpong.c built
#      with loomcc; and the transport alone (prog_ib_tl lat)
#   3. Open MPI 4.1 over UCX on the same device (rc_verbs), the same
#      pingpong.c built with mpicc
# then a markdown table with ratios (loom / ib_send_lat, loom / Open MPI) in
# $BUILD/test-logs/verbs/bench.md. Emulated hardware: ratios only.
# Latency figures are medians of individually timed round trips / 2
# (perftest's t_typical), the best of BENCH_ROUNDS interleaved rounds; the
# means are in the raw logs ($BUILD/test-logs/verbs/bench-*).
#   BENCH_ITERS=N    ping-pong iterations for small messages (default 2000)
#   BENCH_ROUNDS=N   rounds (default 3)
set -u
cd "$(dirname "$0")/../.."
export BUILD=${BUILD:-build/release}
export PATH="$PWD/$BUILD/bin:$PATH"
logs=$BUILD/test-logs/verbs
mkdir -p "$logs"
addr=10.0.2.15
iters=${BENCH_ITERS:-2000}
port=18600
declare -A raw            # raw[tool:size] = one-way us (latency) or MB/s (bw)
t_all=$SECONDS

# perf NAME TOOL ARGS... : server then client (retried until the server
# listens); the client's output goes to $logs/bench-NAME.log
perf() {
    local name=$1 tool=$2 out=$logs/bench-$1.log try; shift 2
    port=$((port + 1))
    timeout 180 "$tool" -d rxe0 -x 1 -p $port "$@" >"$out.srv" 2>&1 &
    local spid=$!
    for try in $(seq 20); do
        sleep 1
        timeout 180 "$tool" -d rxe0 -x 1 -p $port "$@" $addr >"$out" 2>&1 && break
        grep -q "Couldn't connect" "$out" || break
    done
    wait $spid
}

# perftest result line: #bytes #iter t_min t_max t_typical ... (latency) or
# #bytes #iter BW_peak BW_average MsgRate (bandwidth)
perf_field() {   # perf_field NAME SIZE FIELD
    awk -v s="$2" -v f="$3" '$1 == s && NF >= f { print $f; exit }' "$logs/bench-$1.log"
}

# Every figure is the best of ROUNDS interleaved rounds (the host's other load
# preempts the emulated CPUs at random, adding milliseconds to whole runs).
rounds=${BENCH_ROUNDS:-3}
best() {   # best KEY VALUE [max]: keep the smallest (latency) or largest (bw)
    local k=$1 v=$2 cur=${raw[$1]:-}
    [[ -z $v || $v == inf ]] && return 0
    if [[ -z $cur ]] || awk -v a="$v" -v b="$cur" -v m="${3:-}" \
            'BEGIN { exit !(m == "max" ? a > b : a < b) }'; then
        raw[$k]=$v
    fi
}
mpi_run() {   # mpi_run loom|ompi ROUND
    local out=$logs/bench-$1.$2.log
    if [[ $1 == loom ]]; then
        LOOM_TRANSPORTS=self,ib timeout 900 loomrun -q -n 2 \
            "$BUILD/test/verbs/pingpong-loom" -n "$iters" -m 1048576 >"$out" 2>&1
    else
        timeout 900 mpirun --allow-run-as-root --oversubscribe -np 2 --mca pml ucx \
            --mca btl self --mca osc ^ucx -x UCX_NET_DEVICES=rxe0:1 \
            -x UCX_TLS=rc_verbs,ud_verbs,self -x UCX_UD_VERBS_ETH_DGID_CHECK=n \
            "$BUILD/test/verbs/pingpong-ompi" -n "$iters" -m 1048576 >"$out" 2>&1
    fi
    awk -v m="$1" '$1 == "lat" { print m ":lat:" $2, $4 } $1 == "bw" { print m ":bw:" $2, $3 }' \
        "$out"
}
for ((r = 1; r <= rounds; ++r)); do
    t0=$SECONDS
    for s in 8 1024 8192 65536; do
        perf send_lat_$s ib_send_lat -s $s -n $((s > 8192 ? 300 : iters))
        best send:$s "$(perf_field send_lat_$s $s 5)"
    done
    for s in 8 65536 1048576; do
        perf read_lat_$s ib_read_lat -s $s -n $((s > 8192 ? 100 : iters))
        best read:$s "$(perf_field read_lat_$s $s 5)"
    done
    for s in 8192 65536 1048576; do
        perf read_bw_$s ib_read_bw -s $s -n $((s > 65536 ? 100 : 500))
        best readbw:$s "$(perf_field read_bw_$s $s 4)" max
    done
    # the transport alone (prog_ib_tl lat: no p2p engine, no MPI layer)
    LOOM_TRANSPORTS=self,ib timeout 300 loomrun -q -n 2 "$BUILD/test/verbs/prog_ib_tl" lat \
        "$iters" >"$logs/bench-tl.$r.log" 2>&1
    best tl:lat:8 "$(awk '$1 == "lat-tl" { print $4 }' "$logs/bench-tl.$r.log")"
    for m in loom ompi; do
        mpi_run $m $r >"$logs/bench-$m.$r.kv"
        while read -r k v; do
            best "$k" "$v" "$([[ $k == *:bw:* ]] && echo max)"
        done <"$logs/bench-$m.$r.kv"
    done
    echo "round $r: $((SECONDS - t0)) s (loom 8 B ${raw[loom:lat:8]:-?} us," \
         "Open MPI ${raw[ompi:lat:8]:-?} us, ib_send_lat ${raw[send:8]:-?} us so far)"
done

# table
ratio() { [[ -n $1 && -n $2 ]] && awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }' || echo -; }
{
    echo "| size | ib_send_lat | ib_read_lat | loom | Open MPI+UCX | loom / ib_send_lat | loom / OMPI |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    for s in 8 64 512 1024 4096 8192 16384 65536 262144 1048576; do
        l=${raw[loom:lat:$s]:-}; o=${raw[ompi:lat:$s]:-}
        echo "| $s | ${raw[send:$s]:--} | ${raw[read:$s]:--} | ${l:--} | ${o:--} |" \
             "$(ratio "$l" "${raw[send:$s]:-}") | $(ratio "$l" "$o") |"
    done
    echo
    echo "Transport alone (prog_ib_tl lat, no p2p engine): 8 B ${raw[tl:lat:8]:--} us" \
         "($(ratio "${raw[tl:lat:8]:-}" "${raw[send:8]:-}") x ib_send_lat)."
    echo
    echo "| size | ib_read_bw MB/s | loom MB/s | Open MPI+UCX MB/s | loom / ib_read_bw | loom / OMPI |"
    echo "|---:|---:|---:|---:|---:|---:|"
    for s in 8 512 8192 65536 1048576; do
        l=${raw[loom:bw:$s]:-}; o=${raw[ompi:bw:$s]:-}
        [[ -z $l && -z ${raw[readbw:$s]:-} ]] && continue
        echo "| $s | ${raw[readbw:$s]:--} | ${l:--} | ${o:--} |" \
             "$(ratio "$l" "${raw[readbw:$s]:-}") | $(ratio "$l" "$o") |"
    done
} >"$logs/bench.md"
echo
cat "$logs/bench.md"
echo
echo "bench: $((SECONDS - t_all)) s; latency in us (median one-way), bandwidth in MB/s"
