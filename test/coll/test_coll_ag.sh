#!/usr/bin/env bash
# test_coll_ag.sh: allgather(v) by messages (recursive_doubling, ring), whose
# first exchange sends straight from sendbuf while the own block is copied
# into the result (docs/collectives.md, "allgather at np 2"), through
# prog_ag_exchange.c: blocks of 1 B to 1 MiB, blocking, in place, two
# nonblocking in flight, allgatherv with gaps; every byte checked, sendbuf
# unchanged. np 1-7 on shm (powers of two and not: extra ranks of the
# recursive doubling) and np 2, 3 over tcp (LOOM_TRANSPORTS=self,tcp).
#   BUILD=build/release bash test/coll/test_coll_ag.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_ag_exchange
RUN="$BUILD/bin/loomrun -q --timeout 60"
export LOOM_ERRORS=return
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
nps="1 2 3 4 5 6 7" tnps="2 3" max=1048576
case $BUILD in
    *-address*|*-thread*|*-undefined*|*asan*|*tsan*) nps="2 3 5" tnps="2" max=300001 ;;
esac

run() { # label np env...
    local label=$1 np=$2 log rc
    shift 2
    log=$(env "$@" timeout 90 $RUN -n "$np" "$PROG" "$max" 2>&1); rc=$?
    if [[ $rc != 0 ]] || ! grep -q "prog_ag_exchange: passed" <<<"$log"; then
        echo "FAIL $label np=$np (rc $rc)"; tail -n 10 <<<"$log" | sed 's/^/    | /'; fail=1
    else
        echo "ok   $label np=$np"
    fi
}

for alg in recursive_doubling ring; do
    for np in $nps; do
        run "$alg shm" "$np" LOOM_ALLGATHER_ALGORITHM=$alg
    done
    for np in $tnps; do
        run "$alg tcp" "$np" LOOM_ALLGATHER_ALGORITHM=$alg LOOM_TRANSPORTS=self,tcp
    done
done
exit $fail
