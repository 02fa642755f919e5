#!/usr/bin/env bash
# test_tcp_dt_s15.sh: typed rendezvous receives over tcp read straight into
# the receive type's pieces (tcp get_iov, session 15): prog_tcp_dt_s15 in a
# ring of 2 and 3 ranks with LOOM_TRANSPORTS=self,tcp checks every element
# and every gap of each receive (vector, vector of another shape, mixed
# indexed blocks; 100 KiB-5.9 MB, one to several gets each), and the tcp
# debug log must show the reads went by get_iov (before session 15 they
# came through the engine's bounce, so this fails there).
#   BUILD=build/release bash test/tcp/test_tcp_dt_s15.sh
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/release}
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
PROG=$BUILD/test/tcp/prog_tcp_dt_s15
fail=0

for f in "$LOOMRUN" "$PROG"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

for np in 2 3; do
    out=$("$LOOMRUN" -q --timeout 300 -x LOOM_TRANSPORTS=self,tcp -x LOOM_LOG=debug:tcp \
          -n "$np" "$PROG" 2>&1)
    rc=$?
    gets=$(grep -c "get_iov from rank" <<<"$out")
    if [[ $rc -ne 0 || $out != *"OK dt_s15 6"* ]]; then
        echo "FAIL typed receives over tcp (np $np, exit $rc)"
        grep -v "DEBUG" <<<"$out" | tail -n 25 | sed 's/^/    /'
        fail=1
    elif (( gets < np * 6 )); then
        echo "FAIL typed receives over tcp (np $np): $gets reads by get_iov, expected >= $((np * 6))"
        fail=1
    else
        echo "ok   typed receives over tcp into the pieces (np $np, $gets reads by get_iov)"
    fi
done
exit $fail
