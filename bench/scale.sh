#!/usr/bin/env bash
# scale.sh: start-up time and shared memory in use at many local ranks,
# loom and Open MPI side by side (issue 22).
#
# For each rank count of --np, runs bench/osu_startup once under each
# library of --libs (one after the other, same machine, same script) and
# prints one table: time from the launch to MPI_Init's return (the launcher
# passes its clock, the ranks report the largest difference), MPI_Init's
# own wall time (largest over ranks), the launcher's wall time for the whole
# job, and the shared memory in use right after MPI_Init and after every
# ordered pair exchanged 20 x 8 B and 20 x 64 KiB (osu_startup's defaults;
# --sizes, --rounds), plus a loom / Open MPI ratio table per rank count.
#
# "In use" is osu_startup's shm_alloc_kB: pages allocated to the /dev/shm
# files the ranks map (du -k of the segment files, read through
# /proc/self/map_files so unlinked segments count too), united over ranks,
# taken while every rank waits in a barrier. The /proc/meminfo Shmem delta
# against just before the launch is printed beside it as a cross-check
# (whole machine: other users' jobs add noise). PMIx dstore files in /tmp
# (both launchers have them, ~8 MB, not tmpfs) are in the CSV only.
#
# Oversubscription: ranks wait in MPI_Waitall/MPI_Barrier only. loomrun
# yields by itself when ranks outnumber cores (LOOM_OVERSUBSCRIBED); Open
# MPI gets --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 there.
# Both use --bind-to core when the ranks fit the cores. Open MPI runs with
# --mca pml ob1 --mca btl self,vader, as in compare.sh.
#
# After each job the script checks the job's own /dev/shm files (rank 0
# lists the ones it maps, osu_startup -v) are gone 3 s after the launcher
# returned ("left" column: should be 0; the names in raw/*.shm_left).
#
# usage: bench/scale.sh [--np 2,16,64] [--libs ompi,loom] [--sizes 8,65536]
#            [--rounds N] [--timeout S] [--csv FILE] [--out DIR] [--build DIR]
#            [--no-build] [--keep-going]
#
# --np        rank counts (comma or space separated, 2..4096); default 2,16,64
# --libs      which libraries, in run order: ompi, loom or both (default)
# --timeout   seconds per job (default 600; the job is killed after it)
# --csv FILE  also write the results as CSV (always in OUT/scale.csv)
# --out DIR   logs and CSV (default $BUILD/scale)
# --keep-going  run the larger rank counts even after a job failed or timed out
#               (default: stop that library at its first failure)
# Big rank counts take minutes on 2 cores (128 ranks: ~1 min per library);
# on a shared machine run them rarely.
set -u -o pipefail

usage() { awk 'NR > 1 && /^set -u/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; }

TOP=${LOOM_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$TOP" || exit 1
BUILD=${BUILD:-build/release}
nps="2 16 64" libs="ompi loom" sizes='' rounds='' run_timeout=600 csv='' out='' do_build=1 keep_going=0

while (($#)); do
    case $1 in
        --np) nps=${2//,/ }; shift ;;
        --libs) libs=${2//,/ }; shift ;;
        --sizes) sizes=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --timeout) run_timeout=$2; shift ;;
        --csv) csv=$2; shift ;;
        --out) out=$2; shift ;;
        --build) BUILD=$2; shift ;;
        --no-build) do_build=0 ;;
        --keep-going) keep_going=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "scale.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
for n in $nps; do
    [[ $n =~ ^[0-9]+$ ]] && ((n >= 2 && n <= 4096)) ||
        { echo "scale.sh: --np takes rank counts 2..4096, not '$n'" >&2; exit 2; }
done
for l in $libs; do
    [[ $l == ompi || $l == loom ]] || { echo "scale.sh: --libs takes ompi and/or loom, not '$l'" >&2; exit 2; }
done
[[ $run_timeout =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: --timeout needs seconds" >&2; exit 2; }
[[ -z $rounds || $rounds =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: --rounds needs a positive number" >&2; exit 2; }
[[ -z $sizes || $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "scale.sh: --sizes takes e.g. 8,65536" >&2; exit 2; }
[[ -n $out ]] || out=$BUILD/scale
ncores=$(nproc)
LOOMRUN=$BUILD/bin/loomrun

if ((do_build)); then
    targets=
    for l in $libs; do targets+=" $BUILD/bench/$l/osu_startup"; done
    [[ " $libs " == *" loom "* ]] && targets+=" $LOOMRUN"
    echo "== building:$targets"
    make -s -j2 BUILD="$BUILD" $targets >/dev/null || { echo "scale.sh: build failed" >&2; exit 1; }
fi
for l in $libs; do
    [[ -x $BUILD/bench/$l/osu_startup ]] ||
        { echo "scale.sh: $BUILD/bench/$l/osu_startup missing (make bench-$l)" >&2; exit 1; }
done
[[ " $libs " != *" ompi "* ]] || command -v mpirun >/dev/null ||
    { echo "scale.sh: Open MPI's mpirun not found (use --libs loom)" >&2; exit 1; }
[[ " $libs " != *" loom "* || -x $LOOMRUN ]] || { echo "scale.sh: $LOOMRUN missing" >&2; exit 1; }

mkdir -p "$out/raw"
rm -f "$out"/raw/* "$out/scale.csv" "$out/scale.md"

# launcher prefix for library $1 at $2 ranks
launch_cmd() {
    local lib=$1 np=$2 bind=core
    ((np > ncores)) && bind=none
    if [[ $lib == loom ]]; then
        echo "$LOOMRUN -q --timeout $run_timeout --bind-to $bind -np $np"
    else
        local cmd="mpirun -np $np --bind-to $bind --mca pml ob1 --mca btl self,vader"
        (($(id -u) == 0)) && cmd+=" --allow-run-as-root"
        ((np > ncores)) && cmd+=" --oversubscribe --mca mpi_yield_when_idle 1"
        echo "$cmd"
    fi
}

shmem_kb() { awk '$1 == "Shmem:" { print $2 }' /proc/meminfo; }

# kv log first second key: the value of key=value on the first line of log
# whose first word is @first and whose second word is @second (or any
# second word when @second is "-"); empty when absent
kv() {
    awk -v w1="$2" -v w2="$3" -v key="$4" '
        $1 == w1 && (w2 == "-" || $2 == w2) {
            for (i = 2; i <= NF; i++) { split($i, kvp, "="); if (kvp[1] == key) { print kvp[2]; exit } }
        }' "$1"
}
shm_field() { kv "$1" shm "phase=$2" "$3"; }
line_field() { kv "$1" "$2" - "$3"; }

csv_header="np,lib,status,launch_to_init_s,init_max_s,wall_s,exchange_s,shm_init_kB,shm_exchange_kB,pss_init_kB,pss_exchange_kB,meminfo_delta_init_kB,meminfo_delta_exchange_kB,other_alloc_kB,shm_files,left_in_dev_shm"
echo "$csv_header" >"$out/scale.csv"

# run_one lib np: one job; appends a CSV line; returns its exit status
run_one() {
    local lib=$1 np=$2 tag="startup_${1}_np$2" log rc t0 t1 base args=""
    log=$out/raw/$tag
    [[ -n $sizes ]] && args+=" -m $sizes"
    [[ -n $rounds ]] && args+=" -r $rounds"
    base=$(shmem_kb)
    t0=$(date +%s.%N)
    local cmd
    cmd="$(launch_cmd "$lib" "$np") $BUILD/bench/$lib/osu_startup -v -t $t0 -b $base$args"
    echo "$cmd" >"$log.cmd"
    timeout -k 10 "$((run_timeout + 30))" $cmd >"$log.out" 2>"$log.err"
    rc=$?
    t1=$(date +%s.%N)
    # the job's own /dev/shm files (rank 0 lists them, -v): still there?
    # Open MPI's segments go a moment after mpirun returns: allow 3 s
    sed -n 's|^#   file \(/dev/shm/[^ :]*\).*|\1|p' "$log.out" | sort -u >"$log.shm_files"
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        while read -r f; do [[ -e $f ]] && echo "$f"; done <"$log.shm_files" >"$log.shm_left"
        [[ -s $log.shm_left ]] || break
        sleep 0.2
    done
    local status=ok
    ((rc == 124 || rc == 137)) && status=timeout
    ((rc != 0 && rc != 124 && rc != 137)) && status="exit$rc"
    [[ $status == ok ]] && ! grep -q '^result Pass' "$log.out" && status=invalid
    local f=(
        "$np" "$lib" "$status"
        "$(line_field "$log.out" startup launch_to_init_s)" "$(line_field "$log.out" startup init_max_s)"
        "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
        "$(line_field "$log.out" exchange time_s)"
        "$(shm_field "$log.out" init shm_alloc_kB)" "$(shm_field "$log.out" exchange shm_alloc_kB)"
        "$(shm_field "$log.out" init shm_pss_kB)" "$(shm_field "$log.out" exchange shm_pss_kB)"
        "$(shm_field "$log.out" init meminfo_delta_kB)" "$(shm_field "$log.out" exchange meminfo_delta_kB)"
        "$(shm_field "$log.out" exchange other_alloc_kB)" "$(shm_field "$log.out" init shm_files)"
        "$(wc -l <"$log.shm_left")"
    )
    (IFS=,; echo "${f[*]}") >>"$out/scale.csv"
    if [[ $status != ok ]]; then
        echo "FAIL: $lib np=$np: $status: $cmd" >&2
        tail -n 5 "$log.err" | sed 's/^/      | /' >&2
        return 1
    fi
    return 0
}

{
    echo "command: bench/scale.sh --np ${nps// /,} --libs ${libs// /,}${sizes:+ --sizes $sizes}${rounds:+ --rounds $rounds} --timeout $run_timeout"
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "git: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified tree)')"
    echo "host: $(uname -srm), $ncores cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    [[ " $libs " == *" ompi "* ]] && echo "Open MPI: $(mpirun --version 2>/dev/null | head -1)"
    [[ " $libs " == *" loom "* ]] && echo "loom: $("$BUILD/bin/loomcc" --showme:version 2>/dev/null)"
} | tee "$out/env.txt"

failures=0
declare -A stopped=()
for np in $nps; do
    for lib in $libs; do
        if [[ -n ${stopped[$lib]:-} ]]; then
            echo "  skip  $lib np=$np (stopped after ${stopped[$lib]})"
            continue
        fi
        printf '  run   %-4s np=%-5d ' "$lib" "$np"
        if run_one "$lib" "$np"; then
            tail -n 1 "$out/scale.csv" | awk -F, '{ printf "%s s to MPI_Init return, %.1f MB after exchange\n", $4, $9 / 1000 }'
        else
            echo "failed"
            failures=$((failures + 1))
            ((keep_going)) || stopped[$lib]="np=$np"
        fi
    done
done

# ---- tables -------------------------------------------------------------------
sec() { awk -v s="$1" 'BEGIN { if (s == "") print "-"; else printf "%.2f", s }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == "" || k < 0) print "-"; else printf "%.1f", k / 1000 }'; }
{
    echo
    echo "| ranks | library | launch → MPI_Init return (s) | MPI_Init (s) | job wall (s) | shm in use after init (MB) | after exchange (MB) | per rank (kB) | meminfo Δ after exchange (MB) | exchange (s) | left in /dev/shm | status |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 "$out/scale.csv" | while IFS=, read -r np lib st l2i init wall xs si se _ _ _ me _ _ left; do
        perrank=$(awk -v k="$se" -v n="$np" 'BEGIN { if (k == "") print "-"; else printf "%.0f", k / n }')
        name=$([[ $lib == ompi ]] && echo "Open MPI" || echo loom)
        echo "| $np | $name | $(sec "$l2i") | $(sec "$init") | $(sec "$wall") | $(mb "$si") | $(mb "$se") | $perrank | $(mb "$me") | $(sec "$xs") | $left | $st |"
    done
    if [[ " $libs " == *" ompi "* && " $libs " == *" loom "* ]]; then
        echo
        echo "loom / Open MPI (< 1: loom uses less or starts faster):"
        echo
        echo "| ranks | shm after init | shm after exchange | launch → MPI_Init return |"
        echo "|---|---|---|---|"
        awk -F, 'NR > 1 { k = $1 SUBSEP $2; si[k] = $8; se[k] = $9; l2i[k] = $4; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } }
            function r(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "-" }
            END { for (i = 1; i <= n; i++) { p = o[i]
                printf "| %s | %s | %s | %s |\n", p, r(si[p, "loom"], si[p, "ompi"]),
                    r(se[p, "loom"], se[p, "ompi"]), r(l2i[p, "loom"], l2i[p, "ompi"]) } }' "$out/scale.csv"
    fi
    echo
    echo "shm in use: pages allocated to the ranks' /dev/shm segment files (du -k, unlinked ones included), MB = 1000 kB, at a barrier; exchange: every ordered pair, ${sizes:-8,65536} bytes x ${rounds:-20}. Logs: $out/raw/."
} | tee "$out/scale.md"
[[ -n $csv ]] && cp "$out/scale.csv" "$csv"
((failures == 0)) || { echo "scale.sh: $failures job(s) failed" >&2; exit 1; }
exit 0
