#!/usr/bin/env bash
# test_mpi_attrinfo.sh: the attribute, info, error-class, handle-conversion
# and basic-type programs (test/mpi/mpi_attr*.c, test/mpi/mpi_info*.c,
# built with loomcc by `make mpi-progs`) under loomrun at 1..5 and 7 ranks (and
# as singletons), once over LOOM_TRANSPORTS=self,tcp, plus a fatal file
# error handler that must end the job naming the call.
#   BUILD=build/release bash test/mpi/test_mpi_attrinfo.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
BUILD=${BUILD:-build/release}
progs=$BUILD/test/mpi
loomrun=$BUILD/bin/loomrun
logdir=$BUILD/test-logs/mpi-attrinfo
mkdir -p "$logdir"
pass=0
fail=0
names=(attr info attr_errclass attr_f2c attr_types)

for f in "$loomrun" "${names[@]/#/$progs/mpi_}"; do
    if [[ ! -x $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
        exit 1
    fi
done

# run <expected rc: 0 | nonzero> <log name> <command...>
run() {
    local expect=$1 name=$2
    shift 2
    local log=$logdir/$name.log t0=$SECONDS rc
    timeout -k 5 120 "$@" >"$log" 2>&1
    rc=$?
    if [[ $expect == 0 && $rc == 0 ]] ||
       [[ $expect == nonzero && $rc != 0 && $rc != 124 && $rc != 137 ]]; then
        pass=$((pass + 1))
        printf '  ok    %-36s %3ds\n' "$name" $((SECONDS - t0))
        return 0
    fi
    fail=$((fail + 1))
    printf '  FAIL  %-36s exit %s (expected %s)\n' "$name" "$rc" "$expect"
    tail -n 15 "$log" | sed 's/^/        | /'
    return 1
}

# the log of the last run must mention every given string
expect_log() {
    local name=$1
    shift
    for s in "$@"; do
        if ! grep -qF -- "$s" "$logdir/$name.log"; then
            fail=$((fail + 1))
            echo "  FAIL  $name: output does not mention '$s'"
            sed 's/^/        | /' "$logdir/$name.log" | tail -n 10
        fi
    done
}

# sanitizer builds are several times slower: fewer rank counts there
case $BUILD in
    *address*|*thread*) counts="1 3" ;;
    *)                  counts="1 2 3 4 5 7" ;;
esac

for p in "${names[@]}"; do
    run 0 "mpi_$p.singleton" "$progs/mpi_$p"
    for n in $counts; do
        run 0 "mpi_$p.n$n" "$loomrun" -n "$n" "$progs/mpi_$p"
    done
    run 0 "mpi_$p.tcp.n3" env LOOM_TRANSPORTS=self,tcp "$loomrun" -n 3 "$progs/mpi_$p"
done
run 0 mpi_attr.finalize.n2 "$loomrun" -n 2 "$progs/mpi_attr" &&
    expect_log mpi_attr.finalize.n2 "deleted in reverse order at finalize"
run nonzero mpi_attr_errclass.fatalfile "$loomrun" -n 2 "$progs/mpi_attr_errclass" fatalfile &&
    expect_log mpi_attr_errclass.fatalfile MPI_File_call_errhandler MPI_ERRORS_ARE_FATAL

echo "test_mpi_attrinfo: $pass passed, $fail failed"
[[ $fail == 0 ]]
