#!/usr/bin/env bash
# test_mpi_threads_bench.sh: the MPI_THREAD_MULTIPLE benchmarks (issue 24)
# run at each thread level they accept and refuse what they must, so the
# "MULTIPLE at one thread against SINGLE" series of compare.sh --bench mt
# (mt_rate1 vs mt_rate1s) measure what they claim:
#   osu_mt_rate -T single -t 1      header "thread level SINGLE", every size
#                                   a row marked Pass (each byte of a window
#                                   checked); likewise funneled, serialized,
#                                   multiple at 1 thread and multiple at 2
#   osu_latency_mt -T single -t 1   the same for the latency program
#   -T single -t 2, -T bogus        refused: exit status not 0, the message
#                                   names what was wrong
# Two ranks under loomrun, few iterations (a few seconds in release; fewer
# sizes under a sanitizer, and under TSan no report may appear).
# The programs: `make bench-loom` ($BUILD/bench/loom; make check builds them).
#   BUILD=build/release bash test/mpi/test_mpi_threads_bench.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}" || exit 1
. test/mpi/mpi_driver_lib.sh
mdl_init mpi_threads_bench
bdir=$BUILD/bench/loom
mdl_require "$loomrun" "$bdir/osu_mt_rate" "$bdir/osu_latency_mt"
mdl_width=34
mdl_timeout=60
shun=(-x "WARNING: ThreadSanitizer" -x "ERROR: AddressSanitizer" -x "runtime error")
if [[ $BUILD == *thread* ]]; then
    export TSAN_OPTIONS="${TSAN_OPTIONS:-} halt_on_error=1 exitcode=66 suppressions=$PWD/test/tsan.supp"
fi
if [[ $BUILD == *address* || $BUILD == *thread* ]]; then
    maxsz=1024
else
    maxsz=65536
fi

# check_rows NAME FIRST LAST NF: the rows of case NAME are the sizes
# FIRST..LAST (doubling; 0 is followed by 1), each with NF columns, the
# first value (messages/s, latency) positive (MB/s may round to 0.00 on a
# busy host) and the last column "Pass"; no other row (a row: a size, then
# a Pass or Fail verdict; LeakSanitizer's suppression table is not one)
check_rows() {
    local name=$1 want got
    want=$(awk -v a="$2" -v b="$3" 'BEGIN { for (s = a; s <= b; s = s ? s * 2 : 1) print s }')
    got=$(awk -v nf="$4" '$1 ~ /^[0-9]+$/ && ($NF == "Pass" || $NF == "Fail") {
              print (NF == nf && $NF == "Pass" && $2 + 0 > 0) ? $1 : "bad:" $0 }' "$logdir/$name.log")
    if [[ $got == "$want" ]]; then mdl_pass "$name.rows" "$(echo "$want" | wc -l) sizes Pass"
    else mdl_fail "$name.rows" "rows differ from sizes $2..$3, each Pass" "$logdir/$name.log"; fi
}

# rate NAME LEVEL-NAME THREADS [-T LEVEL]: one osu_mt_rate run, checked
rate() {
    local name=$1 want=$2 t=$3
    shift 3
    run "${shun[@]}" -m "thread level $want" 0 "$name" "$loomrun" -n 2 "$bdir/osu_mt_rate" \
        -t "$t" -m "1:$maxsz" -i 3 -x 1 -W 16 -c "$@" &&
        check_rows "$name" 1 "$maxsz" 4
}

rate rate.single.t1 SINGLE 1 -T single
rate rate.funneled.t1 FUNNELED 1 -T funneled
rate rate.serialized.t1 SERIALIZED 1 -T serialized
rate rate.multiple.t1 MULTIPLE 1 -T multiple
rate rate.default.t2 MULTIPLE 2
run "${shun[@]}" -m "thread level SINGLE" 0 latency.single.t1 "$loomrun" -n 2 "$bdir/osu_latency_mt" \
    -T single -t 1 -m "0:$maxsz" -i 5 -x 1 -c &&
    check_rows latency.single.t1 0 "$maxsz" 3
run "${shun[@]}" -m "thread level MULTIPLE" 0 latency.multiple.t2 "$loomrun" -n 2 "$bdir/osu_latency_mt" \
    -t 2 -m "0:1024" -i 5 -x 1 -c &&
    check_rows latency.multiple.t2 0 1024 3

run -m "below MPI_THREAD_MULTIPLE only -t 1 runs" nonzero refuse.single.t2 \
    "$loomrun" -n 2 "$bdir/osu_mt_rate" -T single -t 2 -m 1:1 -i 1
run -m "-T takes single, funneled, serialized or multiple" nonzero refuse.bad.level \
    "$loomrun" -n 2 "$bdir/osu_latency_mt" -T bogus -t 1 -m 1:1 -i 1

mdl_summary "mpi threads bench" "(logs in $logdir)"
