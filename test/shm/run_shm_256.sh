#!/usr/bin/env bash
# run_shm_256.sh: 256 ranks on this node start, exchange with every peer
# (test/shm/prog_shm_scale.c mem: 8, 100 and 2000 bytes, every byte
# checked) and finish; prints the shared memory in use and the time. Not
# part of make check (tens of seconds and a quarter of a thousand
# processes on a shared machine): run it by hand after changing the shm
# transport (issue 22).
#   BUILD=build/release bash test/shm/run_shm_256.sh [NP [ROUNDS]]
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build/release}
NP=${1:-256}
ROUNDS=${2:-24}
PROG=$BUILD/test/shm/prog_shm_scale
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
for f in "$PROG" "$LOOMRUN"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done
t0=$(date +%s.%N)
out=$(timeout 600 "$LOOMRUN" -q --timeout 580 -x LOOM_TRANSPORTS=shm -n "$NP" "$PROG" mem \
    "$ROUNDS" 2>&1)
rc=$?
t1=$(date +%s.%N)
echo "$out" | grep -v '^SEG '
line=$(grep '^MEM ' <<<"$out")
after=$(sed -n 's/.* transport_after=\([0-9]*\).*/\1/p' <<<"$line")
printf 'np %d: exit %d, %.1f s wall\n' "$NP" "$rc" "$(echo "$t1 - $t0" | bc)"
if [[ $rc -ne 0 || -z $after ]] || ((after > 256 * 1024)); then
    echo "FAIL"
    exit 1
fi
echo "ok (transport segment in use: $((after / 1024)) MiB)"
