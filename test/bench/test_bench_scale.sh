#!/usr/bin/env bash
# test_bench_scale.sh: the node-scale benchmarks of issue 22 work and can
# fail. Under loomrun, at 2-4 ranks (well under 30 s in release):
#   osu_incast  every size 8 B..1 MiB validated (data, per-sender order,
#               counts) and printed with the expected columns; its fault
#               copy (bench/osu_incast_fault.c) must fail both checks: a
#               corrupt byte and a corrupt sequence number
#   osu_startup start-up times and shared-memory figures present and sane
#               (loom's node segment is in /dev/shm: more than 0 kB in use),
#               the all-pairs exchange checked; the fault copy (osu_fault.c,
#               waitall) must fail it; a bad option exits 1
#   scale.sh    one loom-only row at np 2: table, CSV, nothing left in /dev/shm
# The programs: `make bench-loom bench-fault` (make check builds them).
#   BUILD=build/release bash test/bench/test_bench_scale.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}" || exit 1
. test/mpi/mpi_driver_lib.sh
mdl_init bench
bdir=$BUILD/bench/loom fdir=$BUILD/bench/loom-fault
mdl_require "$loomrun" "$bdir/osu_incast" "$bdir/osu_startup" "$fdir/osu_incast" \
    "$fdir/osu_startup"
mdl_timeout=60
log() { echo "$logdir/$1.log"; }

# check_incast NAME FIRST LAST: every size FIRST..LAST (powers of 2) is a
# row, in order, of MB/s (may round to 0.00 on a busy host), then positive
# messages/s, max and min sender times (max >= min) and "Pass"; no other row
check_incast() {
    local name=$1 want got
    want=$(awk -v a="$2" -v b="$3" 'BEGIN { for (s = a; s <= b; s *= 2) print s }')
    # result rows: a size and at least 4 more columns (sanitizer reports in
    # the log have fewer)
    got=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 {
                   if (NF == 6 && $6 == "Pass" && $2 >= 0 && $3 > 0 && $4 > 0 && $5 > 0 && $4 >= $5)
                       print $1
                   else
                       print "bad:" $0 }' "$(log "$name")")
    if [[ $got == "$want" ]]; then mdl_pass "$name.rows" "$(echo "$want" | wc -l) sizes"
    else mdl_fail "$name.rows" "rows differ from sizes $2..$3 all Pass" "$(log "$name")"; fi
}

run 0 incast.n2 "$loomrun" -n 2 "$bdir/osu_incast" -m 8:4096 -i 2 -x 1 -W 8 -c &&
    expect_log incast.n2 "1 sender -> rank 0" && check_incast incast.n2 8 4096
run 0 incast.n3 "$loomrun" -n 3 "$bdir/osu_incast" -m 8:65536 -i 2 -x 1 -W 16 -c &&
    check_incast incast.n3 8 65536
run 0 incast.n4 "$loomrun" -n 4 "$bdir/osu_incast" -m 8:1048576 -i 1 -x 0 -W 4 -c &&
    expect_log incast.n4 "3 senders -> rank 0, window 4" && check_incast incast.n4 8 1048576
run 1 incast.min_size "$loomrun" -n 2 "$bdir/osu_incast" -m 4:8 &&
    expect_log incast.min_size "sizes start at 8 bytes"

# the checks can fail: corrupt data, corrupt sequence (order) on rank 0
run nonzero incast.fault.data env LOOM_BENCH_FAULT=incast "$loomrun" -n 3 -x LOOM_BENCH_FAULT \
        "$fdir/osu_incast" -m 64:64 -i 2 -x 1 -W 4 &&
    expect_log incast.fault.data "validation failed on rank 0, size 64: message 1 of 4 from rank" \
        "VALIDATION FAILED at size 64"
run nonzero incast.fault.order env LOOM_BENCH_FAULT=incast-seq "$loomrun" -n 3 -x LOOM_BENCH_FAULT \
        "$fdir/osu_incast" -m 16:16 -i 2 -x 1 -W 4 &&
    expect_log incast.fault.order "lost, reordered or corrupt" "VALIDATION FAILED at size 16"

# osu_startup: the figures are there and plausible
check_startup() {
    local name=$1 np=$2 l
    l=$(log "$name")
    if awk -v np="$np" '
        $1 == "startup" { for (i = 2; i <= NF; i++) { split($i, kv, "="); s[kv[1]] = kv[2] } }
        $1 == "shm" { split($2, ph, "="); p = ph[2]
            for (i = 3; i <= NF; i++) { split($i, kv, "="); v[p, kv[1]] = kv[2] } }
        $1 == "exchange" { x = $0 }
        END {
            ok = s["np"] == np && s["init_max_s"] > 0 && s["launch_to_init_s"] >= s["init_max_s"] &&
                 s["launch_to_init_s"] < 60 && x ~ /errors=0/
            for (q = 0; q < 2; q++) { p = q ? "exchange" : "init"
                ok = ok && v[p, "shm_files"] >= 1 && v[p, "shm_alloc_kB"] > 0 &&
                     v[p, "shm_pss_kB"] > 0 && v[p, "shm_rss_kB"] >= v[p, "shm_pss_kB"] &&
                     v[p, "shm_map_kB"] >= v[p, "shm_alloc_kB"] / np && v[p, "meminfo_delta_kB"] != "" }
            exit !ok }' "$l"; then
        mdl_pass "$name.figures" "$(grep -m1 '^shm phase=exchange' "$l" | cut -d' ' -f3)"
    else
        mdl_fail "$name.figures" "a start-up or shared-memory figure is missing or implausible" "$l"
    fi
}
b=$(awk '$1 == "Shmem:" { print $2 }' /proc/meminfo)
run 0 startup.n4 "$loomrun" -n 4 "$bdir/osu_startup" -t "$(date +%s.%N)" -b "$b" -r 4 -v &&
    expect_log startup.n4 "result Pass" "# shared files mapped by rank 0 at init:" "/dev/shm/" &&
    check_startup startup.n4 4
run 0 startup.n3.noexchange "$loomrun" -n 3 "$bdir/osu_startup" -m 0 &&
    expect_log startup.n3.noexchange "startup np=3" "shm phase=init" "result Pass"
run nonzero startup.fault env LOOM_BENCH_FAULT=waitall "$loomrun" -n 3 -x LOOM_BENCH_FAULT \
        "$fdir/osu_startup" -m 64 -r 2 &&
    expect_log startup.fault "validation failed on rank 2, size 64" "result FAIL"
run 1 startup.badopt "$loomrun" -n 2 "$bdir/osu_startup" -m 8,x &&
    expect_log startup.badopt "Usage: osu_startup"

# scale.sh end to end (loom only: Open MPI is not a test dependency)
run 0 scale.n2 bash bench/scale.sh --np 2 --libs loom --no-build --build "$BUILD" \
        --rounds 2 --timeout 60 --out "$logdir/scale" --csv "$logdir/scale/copy.csv" &&
    expect_log scale.n2 "| 2 | loom |" "| ok |"
if [[ -s $logdir/scale/copy.csv ]] &&
    awk -F, 'NR == 2 && $1 == 2 && $2 == "loom" && $3 == "ok" && $9 > 0 && $16 == 0 { ok = 1 }
             END { exit !(ok && NR == 2) }' "$logdir/scale/copy.csv"; then
    mdl_pass scale.n2.csv "$(sed -n 2p "$logdir/scale/copy.csv" | cut -d, -f1-4,9)"
else
    mdl_fail scale.n2.csv "CSV row missing or wrong (status ok, shm > 0, left 0)" \
        "$logdir/scale/copy.csv"
fi
run 2 scale.badnp bash bench/scale.sh --np 1 --libs loom --no-build --build "$BUILD" &&
    expect_log scale.badnp "rank counts 2..4096"

mdl_summary "bench scale" "(logs in $logdir)"
