#!/usr/bin/env bash
# test_mpi_fixes1.sh: regression programs for defects found by MPICH's
# conformance suite (test/mpi/mpi_fixes1_*.c, built with loomcc by
# `make mpi-progs`), under loomrun at a few rank counts (fewer under a
# sanitizer build). Each program checks data and error classes itself and
# exits non-zero on the first wrong value.
#   BUILD=build/release bash test/mpi/test_mpi_fixes1.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
progs=$BUILD/test/mpi
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi-fixes1
mkdir -p "$logdir"
pass=0
fail=0
names=(attr group nbc gather)

for f in "$loomrun" "${names[@]/#/$progs/mpi_fixes1_}"; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

# run <log name> <command...>: must exit 0
run() {
    local name=$1 log t0=$SECONDS rc
    shift
    log=$logdir/$name.log
    timeout -k 5 120 "$@" >"$log" 2>&1
    rc=$?
    if [[ $rc == 0 ]]; then
        pass=$((pass + 1))
        printf '  ok    %-36s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-36s exit %s\n' "$name" "$rc"
    tail -n 15 "$log" | sed 's/^/        | /'
    return 1
}

case $BUILD in
    *address*|*thread*) sanitized=1 ;;
    *)                  sanitized=0 ;;
esac

# attribute delete callbacks that delete other attributes (attr/attrdelete)
run mpi_fixes1_attr.singleton "$progs/mpi_fixes1_attr"
run mpi_fixes1_attr.n2 "$loomrun" -n 2 "$progs/mpi_fixes1_attr"

# empty MPI_Group_incl; failed group constructors leave MPI_GROUP_NULL (group/groupnullincl)
run mpi_fixes1_group.singleton "$progs/mpi_fixes1_group"
run mpi_fixes1_group.n4 "$loomrun" -n 4 "$progs/mpi_fixes1_group"

# user ops freed while nonblocking reductions use them (coll/nonblocking3)
run mpi_fixes1_nbc.n2 "$loomrun" -n 2 "$progs/mpi_fixes1_nbc"
run mpi_fixes1_nbc.n4 "$loomrun" -n 4 "$progs/mpi_fixes1_nbc"
if [[ $sanitized == 0 ]]; then
    run mpi_fixes1_nbc.n5 "$loomrun" -n 5 "$progs/mpi_fixes1_nbc"
    run mpi_fixes1_nbc.tcp.n3 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_fixes1_nbc"
fi

# large gather/scatter blocks go straight into place (coll/gather_big)
run mpi_fixes1_gather.n4 "$loomrun" -n 4 "$progs/mpi_fixes1_gather"
if [[ $sanitized == 0 ]]; then
    run mpi_fixes1_gather.n8 "$loomrun" -n 8 "$progs/mpi_fixes1_gather"
    run mpi_fixes1_gather.tcp.n3 env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_fixes1_gather"
fi

echo "test_mpi_fixes1: $pass passed, $fail failed"
[[ $fail == 0 ]]
