#!/usr/bin/env bash
# compare.sh: run loom's OSU-style benchmarks side by side with Open MPI.
#
# One benchmark source is built twice (Open MPI's mpicc, loom's loomcc) and
# both builds run alternately on this machine, in the same script:
#   shm: Open MPI --mca pml ob1 --mca btl self,vader  vs  loom default (shm)
#   tcp: Open MPI --mca pml ob1 --mca btl self,tcp    vs  LOOM_TRANSPORTS=self,tcp
#        (only when loom has transport/tcp)
# Point-to-point at np=2, collectives at np=2 and np=4 (oversubscribed on a
# 2-core machine). Each configuration runs --runs times (ompi first on odd
# repetitions, loom first on even ones); the table shows medians and a ratio
# where < 1 always means loom is better: loom/ompi for latency,
# ompi/loom for bandwidth. Results: raw.csv, compare.csv, compare.md,
# targets.md, env.txt, one PNG per benchmark/transport/np, logs in raw/.
#
# --short is the CI mode: a few iterations with validation printed (-c),
# every run must exit 0 with every row "Pass", both builds must print the
# same sizes, and the fault-injection copies (osu_fault.c) must FAIL under
# both libraries, proving the checks can fail. No timing is asserted.
# Short mode also tests np=3 and runs tcp only for latency, bw, allreduce.
#
# usage: bench/compare.sh [--short] [--runs N] [--build DIR] [--out DIR]
#            [--bench a,b,...] [--transports shm,tcp] [--np-coll "2 4"]
#            [--bind none|core] [--iters N] [--no-build] [--no-plots]
#            [--update-docs]
#
# --bind sets both launchers' binding (mpirun --bind-to, loomrun --bind-to;
# default core, which both use by themselves when the ranks fit the cores);
# runs with more ranks than cores are always unbound. --ompi-bind is the old
# name of the same option.
# --iters N passes -i N -x max(N/10,1) to every benchmark in full mode, and
# -i max(N/50,2) -x 1 to bw and bibw (OSU's own defaults otherwise; 10000
# latency iterations take long on a busy host).
# --update-docs (full mode) replaces the generated part of
# docs/performance.md (between its BEGIN/END markers) with this run's
# report.md and copies the main plots to docs/img/.
# Run a copy (LOOM_TOP=<tree> bash copy.sh) while editing this file: bash
# reads a script as it runs.
set -u -o pipefail
invocation="bench/compare.sh $*"

usage() { awk 'NR > 1 && /^set -u/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; }

TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP" || exit 1
BUILD=${BUILD:-build/release}
short=0 runs= out= do_build=1 do_plots=1 update_docs=0
benches="latency bw bibw barrier bcast reduce allreduce allgather alltoall"
transports="shm tcp" np_coll="2 4" bind=core iters=

while (($#)); do
    case $1 in
        --short) short=1 ;;
        --runs) runs=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --out) out=$2; shift ;;
        --bench) benches=${2//,/ }; shift ;;
        --transports) transports=${2//,/ }; shift ;;
        --np-coll) np_coll=${2//,/ }; shift ;;
        --bind|--ompi-bind) bind=$2; shift ;;
        --iters) iters=$2; shift ;;
        --no-build) do_build=0 ;;
        --no-plots) do_plots=0 ;;
        --update-docs) update_docs=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "compare.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || runs=$((short ? 1 : 5))
((short)) && [[ $np_coll == "2 4" ]] && np_coll="2 3 4"
((short && update_docs)) && { echo "compare.sh: --update-docs needs a full run" >&2; exit 2; }
[[ -n $out ]] || out=$([[ $short == 1 ]] && echo "$BUILD/compare-short" || echo build/compare)
case $bind in none|core) ;; *) echo "compare.sh: --bind none|core, not '$bind'" >&2; exit 2 ;; esac
[[ -z $iters || $iters =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --iters needs a positive number" >&2; exit 2; }

p2p_set=" latency bw bibw "
is_p2p() { [[ $p2p_set == *" $1 "* ]]; }
metric_of() { case $1 in bw|bibw) echo bandwidth ;; *) echo latency ;; esac; }

# Per-benchmark options. Full: OSU's defaults. Short: few iterations, sizes
# across the eager/rendezvous boundaries, the Validation column on.
bench_args() {
    local b=$1
    if ((short)); then
        case $b in
            latency) echo "-m 0:1048576 -i 10 -x 2 -c" ;;
            bw|bibw) echo "-m 1:1048576 -i 2 -x 1 -W 8 -c" ;;
            barrier) echo "-i 20 -x 2 -c" ;;
            *) echo "-m 1:262144 -i 5 -x 1 -c" ;;
        esac
    elif [[ -n $iters ]]; then
        # OSU runs bandwidth tests 100x fewer times than latency (100 vs
        # 10000 windows of 64 messages); keep that proportion.
        case $b in
            bw|bibw) echo "-i $((iters / 50 > 2 ? iters / 50 : 2)) -x 1" ;;
            *) echo "-i $iters -x $((iters / 10 > 0 ? iters / 10 : 1))" ;;
        esac
    else
        echo ""
    fi
}

ncores=$(nproc)
run_timeout=$((short ? 120 : 900))
FLOOR=$BUILD/bench/floor_pingpong
OMPI_DIR=$BUILD/bench/ompi LOOM_DIR=$BUILD/bench/loom
LOOMRUN=$BUILD/bin/loomrun

if ((do_build)); then
    targets="bench-ompi bench-loom"
    ((short)) && targets+=" bench-fault"
    echo "== building: make -j2 BUILD=$BUILD $targets"
    make -s -j2 BUILD="$BUILD" $targets >/dev/null || { echo "compare.sh: build failed" >&2; exit 1; }
fi

have_ompi=1 have_loom=1
command -v mpirun >/dev/null && [[ -x $OMPI_DIR/osu_latency ]] || have_ompi=0
[[ -x $LOOMRUN && -x $LOOM_DIR/osu_latency ]] || have_loom=0
if ((!have_ompi)); then
    echo "compare.sh: Open MPI build missing ($OMPI_DIR, mpirun); run make bench-ompi" >&2
    exit 1
fi
if ((!have_loom)); then
    if ((short)); then
        echo "compare.sh: loom build missing ($LOOM_DIR/osu_latency or $LOOMRUN)" >&2
        exit 1
    fi
    echo "note: loom not built ($LOOM_DIR or $LOOMRUN missing): Open MPI columns only"
fi
if [[ " $transports " == *" tcp "* ]] && ! ls transport/tcp/*.c >/dev/null 2>&1; then
    echo "note: loom has no tcp transport (transport/tcp/*.c): skipping the tcp comparison"
    transports=${transports//tcp/}
fi

mkdir -p "$out/raw"
rm -f "$out"/raw/* "$out"/*.png "$out"/*.csv "$out"/*.md "$out"/*.dat

bind_for() { # np -> the binding both launchers get (oversubscribed: none)
    if (($1 > ncores)); then echo none; else echo "$bind"; fi
}
ompi_cmd() { # transport np -> mpirun prefix
    local btl=self,vader
    [[ $1 == tcp ]] && btl=self,tcp
    local cmd=(timeout -k 10 "$run_timeout" mpirun -np "$2" --bind-to "$(bind_for "$2")")
    (($(id -u) == 0)) && cmd+=(--allow-run-as-root)
    (($2 > ncores)) && cmd+=(--oversubscribe)
    cmd+=(--mca pml ob1 --mca btl "$btl")
    echo "${cmd[*]}"
}
loom_cmd() { # transport np -> loomrun prefix
    local env=""
    [[ $1 == tcp ]] && env="env LOOM_TRANSPORTS=self,tcp "
    echo "${env}$LOOMRUN -q --timeout $run_timeout --bind-to $(bind_for "$2") -np $2"
}

# Parse an OSU output into "size,value" lines (barrier: size 0).
parse_osu() {
    awk '/^#/ || NF == 0 { next }
         $1 ~ /^[0-9]+$/ && NF >= 2 && $2 ~ /^[0-9.]+$/ { print $1 "," $2; next }
         $1 ~ /^[0-9.]+$/ { print "0," $1 }' "$1"
}

failures=0
fail_note() { failures=$((failures + 1)); echo "FAIL: $*" | tee -a "$out/failures.txt" >&2; }

# run_one lib bench transport np rep: one run, appended to raw.csv
run_one() {
    local lib=$1 b=$2 tr=$3 np=$4 rep=$5 prefix dir
    local tag="osu_${b}_${tr}_np${np}_${lib}_r${rep}"
    if [[ $lib == ompi ]]; then prefix=$(ompi_cmd "$tr" "$np"); dir=$OMPI_DIR
    else prefix=$(loom_cmd "$tr" "$np"); dir=$LOOM_DIR; fi
    local cmd="$prefix $dir/osu_$b $(bench_args "$b")"
    echo "$cmd" >"$out/raw/$tag.cmd"
    $cmd >"$out/raw/$tag.out" 2>"$out/raw/$tag.err"
    local rc=$?
    if ((rc != 0)); then
        fail_note "$lib osu_$b $tr np=$np run $rep exited $rc: $cmd"
        tail -n 8 "$out/raw/$tag.err" | sed 's/^/      | /' >&2
        return 1
    fi
    if ((short)) && ! awk '/^#/ || NF == 0 { next } $NF != "Pass" { bad = 1 } END { exit bad }' \
            "$out/raw/$tag.out"; then
        fail_note "$lib osu_$b $tr np=$np: a row is not Pass (see $out/raw/$tag.out)"
        return 1
    fi
    parse_osu "$out/raw/$tag.out" | sed "s/^/$b,$tr,$np,$lib,$rep,/" >>"$out/raw.csv"
}

# Short mode keeps CI time down: tcp (slower to start, same engine above the
# transport) runs only latency, bw and allreduce; collectives add np=3 (odd).
short_tcp=" latency bw allreduce "
configs=()
for b in $benches; do
    for tr in $transports; do
        ((short)) && [[ $tr == tcp && $short_tcp != *" $b "* ]] && continue
        if is_p2p "$b"; then configs+=("$b $tr 2")
        else for np in $np_coll; do configs+=("$b $tr $np"); done; fi
    done
done

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified tree)')"
    echo "host: $(uname -srm), $ncores cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "cpu: $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "Open MPI: $(mpirun --version 2>/dev/null | head -1)"
    echo "loom: $([[ -x $BUILD/bin/loomcc ]] && "$BUILD/bin/loomcc" --showme:version)"
    echo "build: $BUILD; runs per configuration: $runs; mode: $([[ $short == 1 ]] && echo short || echo full)"
    echo "binding: --bind-to $bind for both launchers (none when ranks outnumber the $ncores cores)"
    echo "benchmark options: $(if ((short)); then echo "short mode (per benchmark, see raw/*.cmd)"
                               elif [[ -n $iters ]]; then echo "$(bench_args latency) (bw, bibw: $(bench_args bw))"
                               else echo "OSU defaults"; fi)"
} >"$out/env.txt"
cat "$out/env.txt"
load1=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load1" -v n="$ncores" 'BEGIN { exit !(l > n * 0.75) }' &&
    echo "WARNING: load average $load1 on $ncores cores: other work is running, timings are noisy"

echo "== ${#configs[@]} configurations x $runs runs x $((1 + have_loom)) libraries"
for ((rep = 1; rep <= runs; rep++)); do
    for c in "${configs[@]}"; do
        read -r b tr np <<<"$c"
        order="ompi loom"
        ((rep % 2 == 0)) && order="loom ompi"
        for lib in $order; do
            [[ $lib == loom && $have_loom == 0 ]] && continue
            printf '  run %d/%d  %-6s osu_%-10s %-3s np=%d\n' "$rep" "$runs" "$lib" "$b" "$tr" "$np"
            run_one "$lib" "$b" "$tr" "$np" "$rep"
        done
        # the cache-line floor next to every shm latency pair, on the cpus ranks
        # 0 and 1 get: 2 processes started by the same launcher with the same
        # binding (loomrun's; mpirun's where loom is not built)
        if [[ $b == latency && $tr == shm && -x $FLOOR ]]; then
            floor_launch=$(loom_cmd shm 2); ((have_loom)) || floor_launch=$(ompi_cmd shm 2)
            $floor_launch "$FLOOR" >"$out/raw/floor_r$rep.out" 2>&1 ||
                fail_note "floor_pingpong run $rep failed: $(tail -n 1 "$out/raw/floor_r$rep.out")"
        fi
    done
done

# ---- agreement (short mode): both builds printed the same sizes ----------------
sizes_of() { # file bench -> the size column (barrier: the number of rows)
    if [[ $2 == barrier ]]; then awk '!/^#/ && NF { n++ } END { print n + 0 }' "$1"
    else awk '!/^#/ && NF { print $1 }' "$1"; fi
}
if ((short && have_loom)); then
    for c in "${configs[@]}"; do
        read -r b tr np <<<"$c"
        for ((rep = 1; rep <= runs; rep++)); do
            o=$out/raw/osu_${b}_${tr}_np${np}_ompi_r$rep.out l=$out/raw/osu_${b}_${tr}_np${np}_loom_r$rep.out
            [[ -s $o && -s $l ]] || continue
            if [[ "$(sizes_of "$o" "$b")" != "$(sizes_of "$l" "$b")" ]]; then
                fail_note "osu_$b $tr np=$np: Open MPI and loom printed different sizes"
            fi
        done
    done
fi

# ---- fault injection (short mode): validation must fail under both libraries --------
fault_of() { case $1 in latency) echo recv ;; bw|bibw) echo waitall ;; *) echo "$1" ;; esac; }
if ((short)); then
    echo "== validation self-test: wrong data injected through PMPI must fail each benchmark"
    for lib in ompi loom; do
        [[ $lib == loom && $have_loom == 0 ]] && continue
        for b in $benches; do
            np=3; is_p2p "$b" && np=2
            f=$(fault_of "$b")
            if [[ $lib == ompi ]]; then prefix="$(ompi_cmd shm $np) -x LOOM_BENCH_FAULT"
            else prefix="$(loom_cmd shm $np) -x LOOM_BENCH_FAULT"; fi
            bin=$BUILD/bench/$lib-fault/osu_$b
            args="-i 3 -x 1"
            [[ $b != barrier ]] && args+=" -m 64"
            log=$out/raw/fault_${b}_$lib
            LOOM_BENCH_FAULT=$f $prefix "$bin" $args >"$log.out" 2>"$log.err"
            rc=$?
            if ((rc != 0)) && grep -q "VALIDATION FAILED\|validation failed on rank" "$log.err"; then
                printf '  ok    %-5s osu_%-10s fault=%-9s exit %d: %s\n' "$lib" "$b" "$f" "$rc" \
                    "$(grep -m1 'validation failed on rank' "$log.err" | cut -c1-90)"
            else
                fail_note "$lib osu_$b: injected fault '$f' was not detected (exit $rc, $log.err)"
            fi
        done
    done
fi

# ---- medians, ratios, tables ------------------------------------------------------------
[[ -s $out/raw.csv ]] || { echo "compare.sh: no results" >&2; exit 1; }
# compare.csv: benchmark,transport,np,size_bytes,metric,ompi,loom,ratio,ompi_runs,loom_runs
sort -t, -k1,1 -k2,2 -k3,3n -k6,6n -k4,4 -k7,7g "$out/raw.csv" | awk -F, '
    function flush() {
        if (key == "") return
        med = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        res[key] = med; cnt[key] = n
    }
    { k = $1 "," $2 "," $3 "," $6 "," $4
      if (k != key) { flush(); key = k; n = 0 }
      v[++n] = $7
      g = $1 "," $2 "," $3 "," $6
      if (!(g in seen)) { seen[g] = 1; order[++ng] = g } }
    END {
        flush()
        print "benchmark,transport,np,size_bytes,metric,ompi,loom,ratio,ompi_runs,loom_runs"
        for (i = 1; i <= ng; i++) {
            g = order[i]; split(g, f, ",")
            bw = (f[1] == "bw" || f[1] == "bibw")
            o = (g ",ompi") in res ? res[g ",ompi"] : ""
            l = (g ",loom") in res ? res[g ",loom"] : ""
            r = ""
            if (o != "" && l != "" && o > 0 && l > 0) r = sprintf("%.3f", bw ? o / l : l / o)
            printf "osu_%s,%s,%s,%s,%s,%s,%s,%s,%d,%d\n", f[1], f[2], f[3], f[4],
                   bw ? "bandwidth_MBps" : "latency_us", o, l, r, cnt[g ",ompi"], cnt[g ",loom"]
        }
    }' >"$out/compare.csv"

tr_label() { [[ $1 == shm ]] && echo "shm (Open MPI: ob1 self,vader; loom: default)" ||
                                echo "tcp (Open MPI: ob1 self,tcp; loom: LOOM_TRANSPORTS=self,tcp)"; }

# Text table on stdout and markdown in compare.md, one section per configuration.
: >"$out/compare.md"
for c in "${configs[@]}"; do
    read -r b tr np <<<"$c"
    rows=$(awk -F, -v b="osu_$b" -v t="$tr" -v n="$np" '$1 == b && $2 == t && $3 == n' "$out/compare.csv")
    [[ -n $rows ]] || continue
    if [[ $(metric_of "$b") == bandwidth ]]; then
        unit="MB/s"; rdef="ompi/loom"
    else
        unit="us"; rdef="loom/ompi"
    fi
    echo
    echo "== osu_$b  np=$np  $(tr_label "$tr")  median of $runs"
    printf '%-10s %16s %16s %10s\n' "# Size" "Open MPI ($unit)" "loom ($unit)" "$rdef"
    printf '%-10s %16s %16s %10s\n' "#" "" "" "(<1: loom better)"
    echo "$rows" | awk -F, '{ printf "%-10s %16s %16s %10s\n", ($1 == "osu_barrier" ? "-" : $4),
                              $6 == "" ? "-" : $6, $7 == "" ? "-" : $7, $8 == "" ? "-" : $8 }'
    {
        echo
        echo "#### osu_$b, np=$np, $(tr_label "$tr")"
        echo
        echo "| size (B) | Open MPI ($unit) | loom ($unit) | ratio $rdef (<1: loom better) |"
        echo "|---:|---:|---:|---:|"
        echo "$rows" | awk -F, '{ printf "| %s | %s | %s | %s |\n", ($1 == "osu_barrier" ? "-" : $4),
                                  $6 == "" ? "-" : $6, $7 == "" ? "-" : $7, $8 == "" ? "-" : $8 }'
    } >>"$out/compare.md"
done

# ---- targets (issues 3 and 4), reported, never asserted ----------------------------------
# name|benchmark|transport|np|size|limit on the ratio (ratio <= limit is met)
targets="p2p latency 8 B <= 0.6x Open MPI|osu_latency|shm|2|8|0.6
p2p bandwidth 1 MiB >= 1.0x Open MPI|osu_bw|shm|2|1048576|1.0
allreduce np=2 8 B <= 0.6x Open MPI|osu_allreduce|shm|2|8|0.6
allreduce np=2 1 MiB <= 0.8x Open MPI|osu_allreduce|shm|2|1048576|0.8
allreduce np=4 8 B <= 0.5x Open MPI|osu_allreduce|shm|4|8|0.5"
meets() { # ratio limit -> yes/no
    awk -v r="$1" -v m="$2" 'BEGIN { print (r <= m) ? "yes" : "no" }'
}
{
    echo "| target | Open MPI | loom | ratio | met? | paired ratio | best runs | met by best? |"
    echo "|---|---:|---:|---:|---|---:|---:|---|"
    while IFS='|' read -r name b tr np size limit; do
        row=$(awk -F, -v b="$b" -v t="$tr" -v n="$np" -v s="$size" \
              '$1 == b && $2 == t && $3 == n && $4 == s' "$out/compare.csv")
        IFS=, read -r _ _ _ _ _ o l r _ _ <<<"$row"
        verdict="not measured"
        [[ -n ${r:-} ]] && verdict=$(meets "$r" "$limit")
        # the same size from raw.csv: the median over repetitions of the
        # ratio within each repetition, and the ratio of each library's best run
        short_b=${b#osu_}
        read -r pr br <<<"$(awk -F, -v b="$short_b" -v t="$tr" -v n="$np" -v s="$size" '
            $1 == b && $2 == t && $3 == n && $6 == s { v[$4, $5] = $7; reps[$5] = 1 }
            END {
                bw = (b == "bw" || b == "bibw"); k = 0
                for (rep in reps) if (((("ompi", rep) in v)) && (("loom", rep) in v)) {
                    o = v["ompi", rep]; l = v["loom", rep]
                    if (o > 0 && l > 0) q[++k] = bw ? o / l : l / o
                    if (!bo || (bw ? o > bo : o < bo)) bo = o
                    if (!bl || (bw ? l > bl : l < bl)) bl = l
                }
                if (!k) { print "- -"; exit }
                for (i = 2; i <= k; i++) for (j = i; j > 1 && q[j] < q[j - 1]; j--) {
                    x = q[j]; q[j] = q[j - 1]; q[j - 1] = x }
                m = (k % 2) ? q[(k + 1) / 2] : (q[k / 2] + q[k / 2 + 1]) / 2
                printf "%.3f %.3f\n", m, bw ? bo / bl : bl / bo
            }' "$out/raw.csv")"
        bverdict="-"
        [[ ${br:--} != - ]] && bverdict=$(meets "$br" "$limit")
        echo "| $name | ${o:--} | ${l:--} | ${r:--} | $verdict | ${pr:--} | ${br:--} | $bverdict |"
    done <<<"$targets"
    echo
    echo "ratio: of the medians; paired ratio: median over repetitions of the ratio"
    echo "within one repetition (both libraries back to back); best runs: each"
    echo "library's best run (interference here only ever slows a run down)."
    floor=$(cat "$out"/raw/floor_r*.out 2>/dev/null | awk '$1 == "floor_us" { print $2 }' |
            sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
    if [[ -n $floor ]]; then
        lat8=$(awk -F, '$1 == "osu_latency" && $2 == "shm" && $3 == 2 && $4 == 8 { print $6 }' \
               "$out/compare.csv")
        echo
        echo "Cache-line floor on the same two cores (bench/floor_pingpong.c, median of runs):"
        line="$floor us one way: no library's 8 B latency can be below it."
        if [[ -n $lat8 ]]; then
            line+=$(awk -v o="$lat8" -v f="$floor" 'BEGIN { t = 0.6 * o
                printf " The 8 B latency target, 0.6 x %s us = %.3f us, is %s the floor here.", o, t,
                       (t < f) ? "below" : "above" }')
        fi
        echo "$line"
    fi
} >"$out/targets.md"
echo
echo "== targets (ratio < 1: loom better; informational, never asserted)"
cat "$out/targets.md"

# ---- plots --------------------------------------------------------------------------------
if ((do_plots)) && command -v gnuplot >/dev/null; then
    for c in "${configs[@]}"; do
        read -r b tr np <<<"$c"
        [[ $b == barrier ]] && continue
        dat=$out/osu_${b}_${tr}_np$np.dat
        awk -F, -v b="osu_$b" -v t="$tr" -v n="$np" \
            '$1 == b && $2 == t && $3 == n && $4 > 0 { print $4, ($6 == "" ? "NaN" : $6), ($7 == "" ? "NaN" : $7) }' \
            "$out/compare.csv" >"$dat"
        [[ -s $dat ]] || continue
        if [[ $(metric_of "$b") == bandwidth ]]; then ylabel="Bandwidth (MB/s)"; key="bottom right"
        else ylabel="Latency (us)"; key="top left"; fi
        gnuplot <<EOF || fail_note "gnuplot failed for $dat"
set terminal pngcairo size 760,460 noenhanced font ",10"
set output "$out/osu_${b}_${tr}_np$np.png"
set title "osu_$b, np=$np, $tr: median of $runs runs ($(date -u +%F))"
set logscale x 2
set logscale y 10
set xtics ("1" 1, "16" 16, "256" 256, "4K" 4096, "64K" 65536, "1M" 1048576)
set xlabel "Message size (bytes)"
set ylabel "$ylabel"
set key $key
set grid
plot "$dat" using 1:2 with linespoints lw 2 pt 7 ps 0.6 title "Open MPI 4.1.4", \
     "$dat" using 1:3 with linespoints lw 2 pt 5 ps 0.6 title "loom"
EOF
    done
fi

# ---- report.md: what docs/performance.md shows -------------------------------------------
doc_plots="latency_shm_np2 bw_shm_np2 bibw_shm_np2 allreduce_shm_np2 allreduce_shm_np4 latency_tcp_np2"
{
    echo "Measured $(sed -n 's/^date: //p' "$out/env.txt") on $(sed -n 's/^host: //p' "$out/env.txt")"
    echo "($(sed -n 's/^cpu: //p' "$out/env.txt")), git $(sed -n 's/^git: //p' "$out/env.txt"),"
    echo "load average at start $(sed -n 's/^load average at start: //p' "$out/env.txt");"
    echo "$(sed -n 's/^Open MPI: mpirun (Open MPI) /Open MPI /p' "$out/env.txt") against $(sed -n 's/^loom: loomcc: //p' "$out/env.txt");"
    echo "median of $runs runs per configuration; benchmark options:"
    echo "$(sed -n 's/^benchmark options: //p' "$out/env.txt"); both launchers --bind-to $bind (none when oversubscribed)."
    echo
    echo "Command: \`${MAKELEVEL:+make compare  # runs }$invocation\`"
    echo
    echo "### Targets (issues 3 and 4)"
    echo
    cat "$out/targets.md"
    echo
    echo "### Plots"
    echo
    for p in $doc_plots; do
        [[ -f $out/osu_$p.png ]] && echo "![osu_$p](img/perf-osu_$p.png)"
    done
    echo
    echo "### Tables (medians; ratio < 1: loom better)"
    echo
    echo "<details><summary>every benchmark, transport and rank count" \
         "($(grep -c '^#### ' "$out/compare.md") tables)</summary>"
    cat "$out/compare.md"
    echo
    echo "</details>"
} >"$out/report.md"

if ((update_docs)); then
    doc=docs/performance.md
    if ! grep -q '^<!-- BEGIN compare.sh report -->' "$doc" 2>/dev/null; then
        fail_note "--update-docs: $doc has no '<!-- BEGIN compare.sh report -->' marker"
    else
        mkdir -p docs/img
        for p in $doc_plots; do
            [[ -f $out/osu_$p.png ]] && cp "$out/osu_$p.png" "docs/img/perf-osu_$p.png"
        done
        awk -v rep="$out/report.md" '
            /^<!-- BEGIN compare.sh report -->/ { print; while ((getline l < rep) > 0) print l; skip = 1; next }
            /^<!-- END compare.sh report -->/ { skip = 0 }
            !skip' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
        echo "updated $doc and docs/img/perf-*.png"
    fi
fi

echo
echo "results: $out/report.md  $out/compare.csv  $out/compare.md  $out/targets.md  $out/*.png  (logs: $out/raw/)"
if ((failures)); then
    echo "compare.sh: $failures failure(s); see $out/failures.txt" >&2
    exit 1
fi
echo "compare.sh: all runs succeeded"
