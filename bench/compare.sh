#!/usr/bin/env bash
# compare.sh: run loom's OSU-style benchmarks side by side with Open MPI.
#
# One benchmark source is built twice (Open MPI's mpicc, loom's loomcc) and
# both builds run alternately on this machine, in the same script:
#   shm: Open MPI --mca pml ob1 --mca btl self,vader  vs  loom default (shm)
#   tcp: Open MPI --mca pml ob1 --mca btl self,tcp    vs  LOOM_TRANSPORTS=self,tcp
#        (only when loom has transport/tcp)
# Point-to-point at np=2, collectives and the polling ring (osu_polling) at
# np=2 and np=4 (oversubscribed on a 2-core machine). Each configuration
# runs --runs times (ompi first on odd repetitions, loom first on even
# ones); the table shows medians and a ratio
# where < 1 always means loom is better: loom/ompi for latency,
# ompi/loom for bandwidth. Results: raw.csv, compare.csv, compare.md,
# targets.md, env.txt, one PNG per benchmark/transport/np, logs in raw/.
#
# Placement: on a virtual machine the host may move the two vCPUs between
# placements (e.g. sibling threads of one core, or farther apart) at any
# time, and every timing, shm and tcp alike, follows. So full mode runs
# bench/floor_pingpong (a bare cache-line handoff between the cpus of ranks
# 0 and 1, ~0.1 s) before the first pair and after every pair (a pair: both
# libraries' runs of one configuration in one repetition): raw/floors.csv,
# raw/pairs.csv. The floors split in two classes where the between-class
# variance of their logarithms is largest; when the classes' geometric
# means differ by more than 1.5x the run saw two placements, "close" and
# "far", else "one". A pair whose floors before and after fall in the same
# class gets that placement, else it is "straddled": in the all-runs medians
# only. Every table adds the ratio of the medians over each placement's pairs.
#
# Derived datatypes (issue 20), not in the default set: --bench dtype (or
# any of halo, halo3d, column, struct, pack) runs osu_halo (2-D, and -d 3
# as halo3d: the halo exchange on a periodic grid of np ranks, at the
# collectives' np), osu_column and osu_struct (ping-pong, np=2) and dt_pack
# (MPI_Pack/MPI_Unpack of a vector vs a hand loop: one rank, MB/s, shm only).
# Their validation checks every byte of the receive side against a model
# of the layout, so the fault shim's flipped byte fails them wherever it
# lands; dt_pack (no communication) has no fault-injection copy.
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
#            [--update-docs] [--tables-only]
#
# --bind sets both launchers' binding (mpirun --bind-to, loomrun --bind-to;
# default core, which both use by themselves when the ranks fit the cores);
# runs with more ranks than cores are always unbound. --ompi-bind is the old
# name of the same option.
# --iters N passes -i N -x max(N/10,1) to every benchmark in full mode, and
# -i max(N/50,2) -x 1 to bw and bibw, -x max(N/10,100) to latency_mt (OSU's
# own defaults otherwise; 10000 latency iterations take long on a busy host).
# --tables-only runs nothing: it remakes the tables, placements and plots of
# --out from its raw.csv, raw/floors.csv and raw/pairs.csv (pass the same
# --bench, --transports and --np-coll), e.g. after editing raw/ by hand.
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
short=0 runs= out= do_build=1 do_plots=1 update_docs=0 tables_only=0
benches="latency bw bibw barrier bcast reduce allreduce allgather alltoall gather scatter reduce_scatter polling"
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
        --tables-only) tables_only=1 do_build=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "compare.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
((short)) && [[ $np_coll == "2 4" ]] && np_coll="2 3 4"
benches=" $benches "
benches=${benches/ dtype / halo halo3d column struct pack }
((short && update_docs)) && { echo "compare.sh: --update-docs needs a full run" >&2; exit 2; }
[[ -n $out ]] || out=$([[ $short == 1 ]] && echo "$BUILD/compare-short" || echo build/compare)
((tables_only)) && [[ -z $runs ]] && runs=$(sed -n 's/.*runs per configuration: \([0-9]*\).*/\1/p' "$out/env.txt" 2>/dev/null)
[[ $runs =~ ^[0-9]+$ && $runs -ge 1 ]] || runs=$((short ? 1 : 5))
case $bind in none|core) ;; *) echo "compare.sh: --bind none|core, not '$bind'" >&2; exit 2 ;; esac
[[ -z $iters || $iters =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --iters needs a positive number" >&2; exit 2; }

p2p_set=" latency bw bibw column struct "
is_p2p() { [[ $p2p_set == *" $1 "* ]]; }
metric_of() { case $1 in bw|bibw|pack) echo bandwidth ;; *) echo latency ;; esac; }
# the program a benchmark name runs, and the options it always gets
bin_of() { case $1 in halo3d) echo osu_halo ;; pack) echo dt_pack ;; *) echo "osu_$1" ;; esac; }
fixed_args() { [[ $1 == halo3d ]] && echo "-d 3"; }

# Per-benchmark options. Full: OSU's defaults. Short: few iterations, sizes
# across the eager/rendezvous boundaries, the Validation column on.
bench_args() {
    local b=$1
    if ((short)); then
        case $b in
            latency) echo "-m 0:1048576 -i 10 -x 2 -c" ;;
            bw|bibw) echo "-m 1:1048576 -i 2 -x 1 -W 8 -c" ;;
            barrier) echo "-i 20 -x 2 -c" ;;
            halo|halo3d|column|struct|pack) echo "-m 1024:262144 -i 5 -x 1 -c" ;;
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

# ---- osu_incast (issue 22) ------------------------------------------------------
# Not in the default set: `--bench incast` runs n-1 senders into rank 0 at
# each --np-coll (np 2: one sender). Its first value column is the aggregate
# MB/s, so it is a bandwidth here (ratio ompi/loom); the message rate and the
# per-sender finish times (fairness) stay in raw/*.out. Sizes start at 8 B
# (a sequence header). Its fault copy breaks rank 0, the receiver
# (bench/osu_incast_fault.c, LOOM_BENCH_FAULT=incast). These wrappers keep
# the generic functions above untouched.
eval "generic_$(declare -f metric_of)"
eval "generic_$(declare -f bench_args)"
metric_of() { if [[ $1 == incast ]]; then echo bandwidth; else generic_metric_of "$1"; fi; }
bench_args() {
    if [[ $1 != incast ]]; then generic_bench_args "$1"
    elif ((short)); then echo "-m 8:262144 -i 2 -x 1 -W 16 -c"
    else generic_bench_args bw    # bandwidth proportions under --iters
    fi
}

# ---- MPI_THREAD_MULTIPLE (issue 24) ----------------------------------------------
# Not in the default set: `--bench mt` runs osu_latency_mt with 2 thread
# pairs (latency_mt) and osu_mt_rate with 1, 2 and 4 threads per rank
# (mt_rate1, mt_rate2, mt_rate4: messages/s, a rate, so ompi/loom like a
# bandwidth), np=2. Both programs ask for MPI_THREAD_MULTIPLE (Debian's
# Open MPI grants it). mt_rate1s is osu_mt_rate -t 1 -T single, the
# single-threaded run (MPI_THREAD_SINGLE, the pair on the main thread),
# run right after mt_rate1 in each repetition: the table "MULTIPLE at one
# thread against SINGLE" (mt_single_table, after the per-configuration
# tables) sets each library's mt_rate1 against its own mt_rate1s (the
# issue's clause: at 1 thread no slower than the single-threaded run).
# No fault-injection copies: --short validates them (-c, every row Pass)
# but runs no fault case for them.
benches=${benches/ mt / latency_mt mt_rate1 mt_rate1s mt_rate2 mt_rate4 }
p2p_set+="latency_mt mt_rate1 mt_rate1s mt_rate2 mt_rate4 "
eval "generic_$(declare -f bin_of)"
eval "generic_$(declare -f fixed_args)"
eval "generic2_$(declare -f metric_of)"
eval "generic2_$(declare -f bench_args)"
bin_of() { case $1 in mt_rate*) echo osu_mt_rate ;; *) generic_bin_of "$1" ;; esac; }
fixed_args() {
    case $1 in
        latency_mt) echo "-t 2" ;;
        mt_rate1s) echo "-t 1 -T single" ;;
        mt_rate*) echo "-t ${1#mt_rate}" ;;
        *) generic_fixed_args "$1" ;;
    esac
}
metric_of() { case $1 in mt_rate*) echo bandwidth ;; *) generic2_metric_of "$1" ;; esac; }
bench_args() {
    case $1 in
        latency_mt|mt_rate*)
            # sizes to 64 KiB: Open MPI's MULTIPLE build, threads outnumbering
            # cores, took over 10 minutes for one run of the 4 MiB default
            # --iters keeps latency_mt's warm-up at OSU's own (100 round
            # trips, LAT_SKIP_SMALL): the first round trips of the first
            # size are the process's first threaded calls (loom, at -x 20:
            # a stall of 2-10 ms among the first 100 in half the runs, which
            # made the first size's median; at -x 100 none was timed)
            if ((short)); then echo "-m 1:65536 -i 10 -x 2 -c"
            elif [[ -n $iters && $1 == latency_mt ]]; then
                echo "-m 1:65536 -i $iters -x $((iters / 10 > 100 ? iters / 10 : 100))"
            elif [[ -n $iters ]]; then echo "-m 1:65536 -i $iters -x $((iters / 10 > 0 ? iters / 10 : 1))"
            else echo "-m 1:65536"
            fi ;;
        *) generic2_bench_args "$1" ;;
    esac
}

# mt_single_table md|text: per transport and size, each library's mt_rate1
# (MULTIPLE, one thread) against its mt_rate1s (SINGLE), from compare.csv
# (medians) and raw.csv (paired: the median over repetitions of the ratio
# within one repetition, the two series run back to back). Cost = SINGLE
# rate / MULTIPLE rate: <= 1 means MULTIPLE at one thread is no slower.
# Prints nothing when either series is missing.
mt_single_table() {
    local md=0 tr rows
    [[ $1 == md ]] && md=1
    for tr in $transports; do
        rows=$(awk -F, -v t="$tr" '
            NR == FNR { if ($2 == t && $3 == 2 && ($1 == "mt_rate1" || $1 == "mt_rate1s"))
                            v[$1, $4, $5, $6] = $7; next }
            $2 == t && $3 == 2 && $1 == "osu_mt_rate1s" { s[$4] = 1; so[$4] = $6; sl[$4] = $7 }
            $2 == t && $3 == 2 && $1 == "osu_mt_rate1" { mo[$4] = $6; ml[$4] = $7; order[++n] = $4 }
            function cost(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.3f", a / b) : "-" }
            function paired(lib, sz,   k, r, q, i, j, x) {
                k = 0
                for (r = 1; r <= 999; r++) {
                    if (!(("mt_rate1", lib, r, sz) in v) || !(("mt_rate1s", lib, r, sz) in v)) continue
                    if (v["mt_rate1", lib, r, sz] > 0) q[++k] = v["mt_rate1s", lib, r, sz] / v["mt_rate1", lib, r, sz]
                }
                if (!k) return "-"
                for (i = 2; i <= k; i++) for (j = i; j > 1 && q[j] < q[j - 1]; j--) { x = q[j]; q[j] = q[j - 1]; q[j - 1] = x }
                return sprintf("%.3f", (k % 2) ? q[(k + 1) / 2] : (q[k / 2] + q[k / 2 + 1]) / 2)
            }
            END {
                for (i = 1; i <= n; i++) {
                    z = order[i]; if (!(z in s)) continue
                    print z, so[z] == "" ? "-" : so[z], mo[z] == "" ? "-" : mo[z], cost(so[z], mo[z]), paired("ompi", z),
                          sl[z] == "" ? "-" : sl[z], ml[z] == "" ? "-" : ml[z], cost(sl[z], ml[z]), paired("loom", z)
                }
            }' "$out/raw.csv" "$out/compare.csv")
        [[ -n $rows ]] || continue
        if ((md)); then
            echo
            echo "#### MULTIPLE at one thread against SINGLE (osu_mt_rate -t 1, np=2, $tr), messages/s"
            echo
            echo "| size (B) | Open MPI SINGLE | Open MPI MULTIPLE | cost | paired | loom SINGLE | loom MULTIPLE | cost | paired |"
            echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            echo "$rows" | awk '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }'
            echo
            echo "cost: SINGLE rate / MULTIPLE rate (medians; <= 1: MULTIPLE no slower);" \
                 "paired: the median over repetitions of that ratio within one repetition."
        else
            echo
            echo "== MULTIPLE at one thread against SINGLE  osu_mt_rate -t 1  np=2  $tr  (messages/s; cost = SINGLE/MULTIPLE, <= 1: no slower)"
            printf '%-10s %14s %14s %7s %7s %14s %14s %7s %7s\n' "# Size" "ompi SINGLE" "ompi MULTIPLE" \
                "cost" "paired" "loom SINGLE" "loom MULTIPLE" "cost" "paired"
            echo "$rows" | awk '{ printf "%-10s %14s %14s %7s %7s %14s %14s %7s %7s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
        fi
    done
}

# ---- one-sided (issue 23) ------------------------------------------------------
# Not in the default set: `--bench rma` runs bench/osu_rma.c (np=2) as
# rma_<test>_<sync>_<window>: test put, get, put_bw, acc, fop, cas (get_bw
# by name only), sync fence, lock, flush, window alloc (MPI_Win_allocate) or
# create (MPI_Win_create); e.g. --bench rma_put_flush_alloc. Over shm Open
# MPI runs its default one-sided component (4.1.4 here: osc rdma over btl
# vader). Over tcp it runs osc pt2pt (--mca osc pt2pt): active messages
# over ob1 and btl tcp, like loom's windows under LOOM_TRANSPORTS=self,tcp;
# its default there would be osc sm (shared memory) for Win_allocate on one
# host, and MPI_Win_create would fail with MPI_ERR_WIN. osc pt2pt in 4.1.4
# needs no option: it refuses windows under MPI_THREAD_MULTIPLE ("does not
# support MPI_THREAD_MULTIPLE in this release", MPI_ERR_WIN), so osu_rma
# initializes with MPI_Init (SINGLE) under both libraries. The table
# header names the component.
# Open MPI 4.1.4's osc rdma crashes in MPI_Compare_and_swap of
# MPI_LONG_LONG on Win_allocate windows over vader (rma_cas_*_alloc: its
# runs fail). Short mode: sizes 1..64 KiB (fop, cas:
# 8 B); no fault copies (fault_of names none).
rma_names() {
    local t s a
    for t in put get put_bw acc fop cas; do for s in fence lock flush; do for a in alloc create; do
        printf ' rma_%s_%s_%s' "$t" "$s" "$a"; done; done; done
}
benches=${benches/ rma / $(rma_names) }
is_rma() { [[ $1 == rma_* ]]; }
rma_fixed() { # rma_<test>_<sync>_<window> -> osu_rma options
    local r=${1#rma_} a s
    a=${r##*_}; r=${r%_*}; s=${r##*_}; r=${r%_*}
    echo "-t $r -w $s -a $([[ $a == alloc ]] && echo allocate || echo create)"
}
eval "rmaprev2_$(declare -f metric_of)"
eval "rmaprev2_$(declare -f bench_args)"
eval "rmaprev_$(declare -f bin_of)"
eval "rmaprev_$(declare -f fixed_args)"
eval "rmaprev_$(declare -f is_p2p)"
metric_of() { if is_rma "$1" && [[ $1 == *_bw_* ]]; then echo bandwidth; else rmaprev2_metric_of "$1"; fi; }
bin_of() { if is_rma "$1"; then echo osu_rma; else rmaprev_bin_of "$1"; fi; }
fixed_args() { if is_rma "$1"; then rma_fixed "$1"; else rmaprev_fixed_args "$1"; fi; }
is_p2p() { is_rma "$1" || rmaprev_is_p2p "$1"; }
bench_args() {
    if ! is_rma "$1"; then rmaprev2_bench_args "$1"
    elif ((short)); then echo "-m 1:65536 -i 5 -x 1 -c"
    elif [[ $1 == *_bw_* ]]; then rmaprev2_bench_args bw
    else rmaprev2_bench_args latency
    fi
}
# the label of a table: which one-sided component Open MPI ran ($b: the loop's bench)
rma_tr_label() {
    if ! is_rma "${b:-}"; then generic_tr_label "$1"
    elif [[ $1 == tcp ]]; then echo "$(generic_tr_label "$1"); Open MPI one-sided: osc pt2pt (active messages over ob1/tcp, --mca osc pt2pt)"
    else echo "$(generic_tr_label "$1"); Open MPI one-sided: its default osc (rdma over vader)"; fi
}
# mpirun's prefix for a one-sided run over tcp adds osc pt2pt ($b: run_one's bench)
rma_ompi_cmd() {
    if is_rma "${b:-}" && [[ $1 == tcp ]]; then echo "$(generic_ompi_cmd "$@") --mca osc pt2pt"
    else generic_ompi_cmd "$@"; fi
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
if ((!have_ompi && !tables_only)); then
    echo "compare.sh: Open MPI build missing ($OMPI_DIR, mpirun); run make bench-ompi" >&2
    exit 1
fi
if ((!have_loom && !tables_only)); then
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
if ((tables_only)); then
    for f in raw.csv raw/pairs.csv raw/floors.csv env.txt; do
        [[ -s $out/$f ]] || { echo "compare.sh: --tables-only: no $out/$f" >&2; exit 2; }
    done
    rm -f "$out"/*.png "$out"/compare.csv "$out"/*.md "$out"/*.dat
else
    rm -f "$out"/raw/* "$out"/*.png "$out"/*.csv "$out"/*.md "$out"/*.dat
fi

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
eval "generic_$(declare -f ompi_cmd)"; ompi_cmd() { rma_ompi_cmd "$@"; }   # one-sided block above

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
    local cmd="$prefix $dir/$(bin_of "$b") $(fixed_args "$b") $(bench_args "$b")"
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
        if [[ $b == pack ]]; then [[ $tr == shm ]] && configs+=("$b $tr 1")
        elif is_p2p "$b"; then configs+=("$b $tr 2")
        else for np in $np_coll; do configs+=("$b $tr $np"); done; fi
    done
done

((tables_only)) || {
    echo "command: ${MAKELEVEL:+make compare  # runs }$invocation"
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
((!tables_only)) && awk -v l="$load1" -v n="$ncores" 'BEGIN { exit !(l > n * 0.75) }' &&
    echo "WARNING: load average $load1 on $ncores cores: other work is running, timings are noisy"

# The cache-line floor on the cpus ranks 0 and 1 get: 2 processes started by
# the same launcher with the same binding (loomrun's; mpirun's where loom is
# not built). 20000 round trips x 5 trials: 0.1 s far, less close, so it can
# run between every pair. Appends to raw/floors.csv; sets floor_us (empty
# when it did not run or failed).
floor_args="-i 20000 -r 5"
nfloors=0 floor_us=
run_floor() { # what it follows
    floor_us=
    [[ -x $FLOOR ]] || return 0
    local launch log
    launch=$(loom_cmd shm 2); ((have_loom)) || launch=$(ompi_cmd shm 2)
    nfloors=$((nfloors + 1)); log=$out/raw/$(printf 'floor_%03d.out' "$nfloors")
    if $launch "$FLOOR" $floor_args >"$log" 2>&1; then
        floor_us=$(awk '$1 == "floor_us" { print $2 }' "$log")
    else
        fail_note "floor_pingpong run $nfloors (after $1) failed: $(tail -n 1 "$log")"
    fi
    echo "$nfloors,$1,$floor_us" >>"$out/raw/floors.csv"
}

# pairs.csv: one line per pair with the floors around it (full mode; short
# mode runs the floor only after the shm latency pair, as a smoke test)
if ((!tables_only)); then
    echo "seq,after,floor_us" >"$out/raw/floors.csv"
    echo "bench,transport,np,rep,floor_before,floor_after" >"$out/raw/pairs.csv"
    echo "== ${#configs[@]} configurations x $runs runs x $((1 + have_loom)) libraries"
    ((short)) || run_floor start
fi
for ((rep = 1; rep <= (tables_only ? 0 : runs); rep++)); do
    for c in "${configs[@]}"; do
        read -r b tr np <<<"$c"
        before=$floor_us
        order="ompi loom"
        ((rep % 2 == 0)) && order="loom ompi"
        for lib in $order; do
            [[ $lib == loom && $have_loom == 0 ]] && continue
            printf '  run %d/%d  %-6s osu_%-10s %-3s np=%d\n' "$rep" "$runs" "$lib" "$b" "$tr" "$np"
            run_one "$lib" "$b" "$tr" "$np" "$rep"
        done
        if ((!short)); then
            run_floor "osu_$b $tr np=$np r$rep"
            echo "osu_$b,$tr,$np,$rep,$before,$floor_us" >>"$out/raw/pairs.csv"
        else
            [[ $b == latency && $tr == shm ]] && run_floor "osu_$b $tr np=$np r$rep"
            echo "osu_$b,$tr,$np,$rep,," >>"$out/raw/pairs.csv"
        fi
    done
done

# ---- agreement (short mode): both builds printed the same sizes ----------------
sizes_of() { # file bench -> the size column (barrier: the number of rows)
    if [[ $2 == barrier ]]; then awk '!/^#/ && NF { n++ } END { print n + 0 }' "$1"
    else awk '!/^#/ && NF { print $1 }' "$1"; fi
}
if ((short && have_loom && !tables_only)); then
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
fault_of() { case $1 in latency) echo recv ;; bw|bibw) echo waitall ;; polling) echo testall ;;
                        column|struct) echo recv ;; halo|halo3d) echo waitall ;; pack|rma_*) ;;
                        latency_mt|mt_rate*) ;;   # no fault copies (see --bench mt)
                        *) echo "$1" ;; esac; }
if ((short && !tables_only)); then
    echo "== validation self-test: wrong data injected through PMPI must fail each benchmark"
    for lib in ompi loom; do
        [[ $lib == loom && $have_loom == 0 ]] && continue
        for b in $benches; do
            np=3; is_p2p "$b" && np=2
            f=$(fault_of "$b")
            [[ -n $f ]] || continue   # no fault-injection copy (see the top)
            if [[ $lib == ompi ]]; then prefix="$(ompi_cmd shm $np) -x LOOM_BENCH_FAULT"
            else prefix="$(loom_cmd shm $np) -x LOOM_BENCH_FAULT"; fi
            bin=$BUILD/bench/$lib-fault/$(bin_of "$b")
            args="-i 3 -x 1 $(fixed_args "$b")"
            case $b in
                barrier) ;;
                halo|halo3d|column|struct) args+=" -m 1024:1024" ;;
                *) args+=" -m 64" ;;
            esac
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

# ---- placement: classify the floors, then the pairs --------------------------------------
# Two classes of log(floor), split where the between-class variance is
# largest (Otsu's rule in one dimension: a lone slow floor from a busy host
# barely moves it, where it would drag a split at the geometric mean of min
# and max past a whole class).
# Prints: mode (none, one, two), split (us), the classes' geometric means,
# the number of floors, the lowest, the highest, and how many lie more than
# 1.5x from their class's geometric mean (a move during the floor run, or
# other work on the machine: the classes are not tight).
read -r pmode psplit plow phigh nfloors_ok fmin fmax nodd <<<"$(awk -F, 'NR > 1 && $3 != "" { print $3 }' "$out/raw/floors.csv" |
    sort -g | awk '
    { x[++n] = log($1); v[n] = $1; s += x[n] }
    END {
        if (n == 0) { print "none - - - 0 - - 0"; exit }
        best = -1
        for (k = 1; k < n; k++) {
            lo += x[k]
            if (v[k] == v[k + 1]) continue
            m0 = lo / k; m1 = (s - lo) / (n - k); b = k * (n - k) * (m1 - m0) ^ 2
            if (b > best) { best = b; bk = k; g0 = exp(m0); g1 = exp(m1) }
        }
        if (best >= 0 && g1 / g0 > 1.5) printf "two %.3f %.3f %.3f", sqrt(v[bk] * v[bk + 1]), g0, g1
        else { printf "one - - -"; bk = n; g0 = exp(s / n) }
        for (i = 1; i <= n; i++) { q = v[i] / (i <= bk ? g0 : g1); odd += (q > 1.5 || q < 1 / 1.5) }
        print "", n, v[1], v[n], odd + 0
    }')"
# placement of each floor and each pair (close, far, one; straddled; unknown
# when a floor is missing, as in short mode)
place_awk='function place(f) { return f == "" ? "" : mode == "one" ? "one" : f + 0 < cut ? "close" : "far" }'
awk -F, -v OFS=, -v mode="$pmode" -v cut="$psplit" "$place_awk"'
    FNR == 1 { print "seq,after,floor_us,placement"; next }
    { print $1, $2, $3, place($3) }' "$out/raw/floors.csv" >"$out/raw/floors.tmp" && mv "$out/raw/floors.tmp" "$out/raw/floors.csv"
awk -F, -v OFS=, -v mode="$pmode" -v cut="$psplit" "$place_awk"'
    FNR == 1 { print "bench,transport,np,rep,floor_before,floor_after,placement"; next }
    { a = place($5); b = place($6)
      print $1, $2, $3, $4, $5, $6, (a == "" || b == "") ? "unknown" : (a == b) ? a : "straddled" }' \
    "$out/raw/pairs.csv" >"$out/raw/pairs.tmp" && mv "$out/raw/pairs.tmp" "$out/raw/pairs.csv"
# the placements seen, in table order, and the first compare.csv column of each
places=$(awk -F, 'NR > 1 { n[$7]++ } END { for (p in n) print p }' "$out/raw/pairs.csv" |
         grep -xE 'close|far|one' | sort | tr '\n' ' ')
place_col() { case $1 in close) echo 11 ;; far) echo 15 ;; one) echo 19 ;; esac; }
place_label() { case $1 in close) echo "vCPUs close" ;; far) echo "vCPUs far" ;; *) echo "one placement" ;; esac; }
npairs() { awk -F, -v p="$1" 'NR > 1 && $7 == p { n++ } END { print n + 0 }' "$out/raw/pairs.csv"; }
frange="$fmin-$fmax us"; [[ $fmin == "$fmax" ]] && frange="$fmin us"
case $pmode in
    two) placement_note="Placement: the cache-line floor ran $nfloors_ok times (before the first pair and after each; a pair is both libraries' runs of one configuration in one repetition), $frange: two placements, split at $psplit us (largest between-class variance of the log floors; class geometric means $plow and $phigh us). A pair is close or far when the floors before and after it fall on the same side: $(npairs close) close, $(npairs far) far, $(npairs straddled) straddled (in the all-runs medians only)." ;;
    one) placement_note="Placement: the cache-line floor ran $nfloors_ok times (before the first pair and after each), $frange: one placement (the two classes of floors differ by less than 1.5x), $(npairs one) pairs in it." ;;
    *) placement_note="Placement: not measured (no floor_pingpong): pairs not classified." ;;
esac
((short)) && [[ $pmode != none ]] &&
    placement_note="Placement: short mode runs the floor only after the shm latency pair ($frange): pairs not classified."
((!short)) && [[ $pmode != none ]] && (($(npairs unknown))) &&
    placement_note+=" $(npairs unknown) pairs lack a floor on one side: not classified."
((!short && nodd)) &&
    placement_note+=" Floors more than 1.5x from their class's geometric mean: $nodd (a move during the floor run, or other work on the machine): the classes are loose."

# ---- medians, ratios, tables ------------------------------------------------------------
[[ -s $out/raw.csv ]] || { echo "compare.sh: no results" >&2; exit 1; }
# compare.csv: benchmark,transport,np,size_bytes,metric,ompi,loom,ratio,ompi_runs,loom_runs,
# then for each placement P of close, far, one: ompi_P,loom_P,ratio_P,pairs_P
# (the medians over P's pairs only; pairs: runs of the library with fewer)
sort -t, -k1,1 -k2,2 -k3,3n -k6,6n -k4,4 -k7,7g "$out/raw.csv" | awk -F, '
    function med(k, n) { return (n % 2) ? v[k, (n + 1) / 2] : (v[k, n / 2] + v[k, n / 2 + 1]) / 2 }
    function add(k) { v[k, ++cnt[k]] = $7 }   # values come sorted within a size and library
    function ratio(o, l) { return (o != "" && l != "" && o > 0 && l > 0) ? sprintf("%.3f", bw ? o / l : l / o) : "" }
    NR == FNR { if (FNR > 1) pl[$1, $2, $3, $4] = $7; next }
    { g = $1 "," $2 "," $3 "," $6
      if (!(g in seen)) { seen[g] = 1; order[++ng] = g }
      add(g SUBSEP $4 SUBSEP "all")
      p = pl["osu_" $1, $2, $3, $5]
      if (p == "close" || p == "far" || p == "one") add(g SUBSEP $4 SUBSEP p) }
    END {
        print "benchmark,transport,np,size_bytes,metric,ompi,loom,ratio,ompi_runs,loom_runs" \
              ",ompi_close,loom_close,ratio_close,pairs_close,ompi_far,loom_far,ratio_far,pairs_far" \
              ",ompi_one,loom_one,ratio_one,pairs_one"
        nplaces = split("all close far one", places, " ")
        for (i = 1; i <= ng; i++) {
            g = order[i]; split(g, f, ",")
            bw = (f[1] == "bw" || f[1] == "bibw" || f[1] == "pack" || f[1] == "incast" || f[1] ~ /^rma_.*_bw_/ || f[1] ~ /^mt_rate/)
            line = ""
            for (j = 1; j <= nplaces; j++) {
                ko = g SUBSEP "ompi" SUBSEP places[j]; no = cnt[ko] + 0
                kl = g SUBSEP "loom" SUBSEP places[j]; nl = cnt[kl] + 0
                o = no ? med(ko, no) : ""; l = nl ? med(kl, nl) : ""
                if (j == 1) line = sprintf("%s,%s,%s,%d,%d", o, l, ratio(o, l), no, nl)
                else line = line sprintf(",%s,%s,%s,%d", o, l, ratio(o, l), no < nl ? no : nl)
            }
            printf "osu_%s,%s,%s,%s,%s,%s\n", f[1], f[2], f[3], f[4],
                   bw ? "bandwidth_MBps" : "latency_us", line
        }
    }' "$out/raw/pairs.csv" - >"$out/compare.csv"

tr_label() { [[ $1 == shm ]] && echo "shm (Open MPI: ob1 self,vader; loom: default)" ||
                                echo "tcp (Open MPI: ob1 self,tcp; loom: LOOM_TRANSPORTS=self,tcp)"; }
eval "generic_$(declare -f tr_label)"; tr_label() { rma_tr_label "$1"; }   # one-sided block above

# Text table on stdout and markdown in compare.md, one section per
# configuration; a column per placement seen: its ratio and pair count.
place_cols=$(for p in $places; do place_col "$p"; done | tr '\n' ' ')
table_rows() { # md|text: the configuration's $rows
    echo "$rows" | awk -F, -v md="$([[ $1 == md ]] && echo 1 || echo 0)" -v cols="$place_cols" '{
        n = split(cols, c, " ")
        cell[1] = $1 == "osu_barrier" ? "-" : $4
        for (i = 6; i <= 8; i++) cell[i - 4] = $i == "" ? "-" : $i
        for (i = 1; i <= n; i++) {
            r = $(c[i] + 2); k = $(c[i] + 3)
            cell[4 + i] = (r == "" || !k) ? "-" : r " (" k ")"
        }
        if (md) {
            line = "|"; for (i = 1; i <= 4 + n; i++) line = line " " cell[i] " |"; print line
        } else {
            printf "%-10s %16s %16s %10s", cell[1], cell[2], cell[3], cell[4]
            for (i = 1; i <= n; i++) printf " %14s", cell[4 + i]
            printf "\n"
        }
    }'
}
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
    printf '%-10s %16s %16s %10s' "# Size" "Open MPI ($unit)" "loom ($unit)" "$rdef"
    for p in $places; do printf ' %14s' "${p} (pairs)"; done
    printf '\n%-10s %16s %16s %10s\n' "#" "" "" "(<1: loom better)"
    table_rows text
    {
        echo
        echo "#### osu_$b, np=$np, $(tr_label "$tr")"
        echo
        printf '| size (B) | Open MPI (%s) | loom (%s) | ratio %s (<1: loom better) |' "$unit" "$unit" "$rdef"
        for p in $places; do printf ' ratio, %s (pairs) |' "$(place_label "$p")"; done
        printf '\n|---:|---:|---:|---:|'
        for p in $places; do printf -- '---:|'; done
        echo
        table_rows md
    } >>"$out/compare.md"
done
mt_single_table text
mt_single_table md >>"$out/compare.md"
{ echo; echo "$placement_note"; } >>"$out/compare.md"
echo; echo "$placement_note"

# ---- targets (issues 3, 4 and 17), reported, never asserted ----------------------------------
# name|benchmark|transport|np|size|limit on the ratio (ratio <= limit is met)
targets="p2p latency 8 B <= 0.6x Open MPI|osu_latency|shm|2|8|0.6
p2p bandwidth 1 MiB >= 1.0x Open MPI|osu_bw|shm|2|1048576|1.0
allreduce np=2 8 B <= 0.6x Open MPI|osu_allreduce|shm|2|8|0.6
allreduce np=2 1 MiB <= 0.8x Open MPI|osu_allreduce|shm|2|1048576|0.8
allreduce np=4 8 B <= 0.5x Open MPI|osu_allreduce|shm|4|8|0.5
polling ring np=4 8 B <= 1.0x Open MPI|osu_polling|shm|4|8|1.0
polling ring np=4 64 KiB <= 1.0x Open MPI|osu_polling|shm|4|65536|1.0"
meets() { # ratio limit -> yes/no
    awk -v r="$1" -v m="$2" 'BEGIN { print (r <= m) ? "yes" : "no" }'
}
{
    printf '| target | Open MPI | loom | ratio | met? | paired ratio | best runs | met by best? |'
    for p in $places; do printf ' ratio, %s (pairs) | met? |' "$(place_label "$p")"; done
    printf '\n|---|---:|---:|---:|---|---:|---:|---|'
    for p in $places; do printf -- '---:|---|'; done
    echo
    while IFS='|' read -r name b tr np size limit; do
        row=$(awk -F, -v b="$b" -v t="$tr" -v n="$np" -v s="$size" \
              '$1 == b && $2 == t && $3 == n && $4 == s' "$out/compare.csv")
        IFS=, read -r -a fld <<<"$row"
        o=${fld[5]:-} l=${fld[6]:-} r=${fld[7]:-}
        verdict="not measured"
        [[ -n ${r:-} ]] && verdict=$(meets "$r" "$limit")
        # the same size from raw.csv: the median over repetitions of the
        # ratio within each repetition, and the ratio of each library's best run
        short_b=${b#osu_}
        read -r pr br <<<"$(awk -F, -v b="$short_b" -v t="$tr" -v n="$np" -v s="$size" '
            $1 == b && $2 == t && $3 == n && $6 == s { v[$4, $5] = $7; reps[$5] = 1 }
            END {
                bw = (b == "bw" || b == "bibw" || b == "pack"); k = 0
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
        line="| $name | ${o:--} | ${l:--} | ${r:--} | $verdict | ${pr:--} | ${br:--} | $bverdict |"
        for p in $places; do   # compare.csv column c is fld[c - 1]
            c=$(place_col "$p"); q=${fld[c + 1]:-} qn=${fld[c + 2]:-0}
            if [[ -n $q && $qn != 0 ]]; then line+=" $q ($qn) | $(meets "$q" "$limit") |"
            else line+=" - | - |"; fi
        done
        echo "$line"
    done <<<"$targets"
    echo
    echo "ratio: of the medians; paired ratio: median over repetitions of the ratio"
    echo "within one repetition (both libraries back to back); best runs: each"
    echo "library's best run (interference here only ever slows a run down)."
    [[ -n $places ]] && echo "Per placement: the ratio of the medians over that placement's pairs."
    echo
    echo "$placement_note"
    # the floor per placement, against the target of the 8 B latency in it
    fplaces=$(awk -F, 'NR > 1 && $4 != "" { print $4 }' "$out/raw/floors.csv" | sort -u | tr '\n' ' ')
    [[ -n $fplaces ]] && { echo; echo "Cache-line floor on the same two cores (bench/floor_pingpong.c," \
        "median of the floor runs in each placement): no library's 8 B latency can be below it."; }
    lat8row=$(awk -F, '$1 == "osu_latency" && $2 == "shm" && $3 == 2 && $4 == 8' "$out/compare.csv")
    IFS=, read -r -a fld <<<"$lat8row"
    for p in $fplaces; do
        read -r floor nf <<<"$(awk -F, -v p="$p" 'NR > 1 && $4 == p { print $3 }' "$out/raw/floors.csv" |
            sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], NR }')"
        c=$(place_col "$p"); lat8=${fld[c - 1]:-} from="Open MPI, $p pairs"
        [[ $p == one ]] && from="Open MPI, its pairs"
        [[ $p == one && -z $lat8 ]] && lat8=${fld[5]:-} from="Open MPI, all runs"
        line="- $(place_label "$p"): $floor us one way (floor runs: $nf)."
        if [[ -n $lat8 ]]; then
            line+=$(awk -v o="$lat8" -v f="$floor" -v from="$from" 'BEGIN { t = 0.6 * o
                printf " The 8 B latency target, 0.6 x %s us (%s) = %.3f us, is %s the floor.", o, from, t,
                       (t < f) ? "below" : "above" }')
        fi
        echo "$line"
    done
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
    # the run's own command (--tables-only remakes the tables of that run)
    run_cmd=$(sed -n 's/^command: //p' "$out/env.txt")
    echo "Command: \`${run_cmd:-${MAKELEVEL:+make compare  # runs }$invocation}\`"
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
