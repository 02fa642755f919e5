#!/usr/bin/env bash
# test_mpi_attrinfo.sh: the attribute, info, error-class, handle-conversion
# and basic-type programs (test/mpi/mpi_attr*.c, test/mpi/mpi_info*.c,
# built with loomcc by `make mpi-progs`) under loomrun at 1..5 and 7 ranks (and
# as singletons), once over LOOM_TRANSPORTS=self,tcp, plus a fatal file
# error handler that must end the job naming the call.
#   BUILD=build/release bash test/mpi/test_mpi_attrinfo.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
. test/mpi/mpi_driver_lib.sh
mdl_init mpi-attrinfo
names=(attr info attr_errclass attr_f2c attr_types)
mdl_require "$loomrun" "${names[@]/#/$progs/mpi_}"

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

mdl_summary test_mpi_attrinfo
