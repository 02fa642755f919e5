#!/usr/bin/env bash
# test_neighbor.sh: the native neighbourhood collective (prog_neighbor.c)
# under loomrun at 1..5 ranks and over self,tcp; the MPI neighbourhood
# collectives are test/mpi/test_mpi_topo.sh.
#   BUILD=build/release bash test/coll/test_neighbor.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
PROG=$BUILD/test/coll/prog_neighbor
RUN="$BUILD/bin/loomrun -q --timeout 60"
fail=0

if [[ ! -x $PROG ]]; then
    echo "FAIL: $PROG is missing (make BUILD=$BUILD tests)"
    exit 1
fi
for env in "" "LOOM_TRANSPORTS=self,tcp"; do
    for np in 1 2 3 5; do
        [[ -n $env && $np != 3 ]] && continue
        log=$(env $env timeout -k 5 90 $RUN -n "$np" "$PROG" 2>&1)
        if [[ $? == 0 ]] && grep -q "prog_neighbor: passed" <<<"$log"; then
            echo "ok   np=$np ${env:-default transports}"
        else
            echo "FAIL np=$np ${env:-default transports}"
            tail -n 15 <<<"$log" | sed 's/^/    | /'
            fail=1
        fi
    done
done
exit $fail
