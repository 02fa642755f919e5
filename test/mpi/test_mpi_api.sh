#!/usr/bin/env bash
# test_mpi_api.sh: the whole MPI-3.1 C interface is declared and links.
#   - mpi/mpi_api.txt names every function of Open MPI's MPI-3.1 mpi.h (when
#     installed) plus exactly the ones it lacks, and has the expected count;
#   - mpi/gen_mpi.py refuses a malformed table, a duplicate, an unknown
#     non-int function with no implementation, an implementation the table
#     does not list, and leaves unchanged outputs untouched;
#   - the generated mpi_all_symbols.c, built with loomcc as C11 -pedantic
#     and with loomcxx as C++11 -pedantic, links every MPI_X and PMPI_X;
#   - test/mpi/mpi_cxx_header.cc (handles, constants, callbacks and stubs
#     from C++) builds with -Wall -Wextra -Werror [-pedantic] and runs, alone
#     and under loomrun with 2 ranks.
#   BUILD=build/release bash test/mpi/test_mpi_api.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
top=$PWD
BUILD=${BUILD:-build/release}
loomcc=$top/$BUILD/bin/loomcc
loomcxx=$top/$BUILD/bin/loomcxx
loomrun=$top/$BUILD/bin/loomrun
gen=$top/$BUILD/gen
table=$top/mpi/mpi_api.txt
expected_functions=409
ompi_h=/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h
tmp=$(mktemp -d /tmp/mpi-api-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. test/mpi/mpi_driver_lib.sh     # mdl_pass, mdl_fail: the counts

for f in "$loomcc" "$loomcxx" "$loomrun" "$gen/mpi_all_symbols.c"; do
    if [[ ! -e $f ]]; then
        echo "FAIL: $f is missing (make BUILD=$BUILD)"
        exit 1
    fi
done

check() {  # check <description> <function>
    local what=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        mdl_pass "$what"
    else
        mdl_fail "$what" "" "$tmp/out"
    fi
}

table_names() { sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\(MPI_[A-Za-z0-9_]*\)(.*/\1/p' "$table" | sort; }

table_count() {
    local n; n=$(table_names | wc -l)
    echo "table: $n functions in $(grep -c '^## ' "$table") sections"
    [[ $n == "$expected_functions" ]] || { echo "expected $expected_functions"; return 1; }
    [[ -z $(table_names | uniq -d) ]] || { echo "duplicates: $(table_names | uniq -d)"; return 1; }
}
check "the table lists $expected_functions functions, each once" table_count

vs_openmpi() {
    if [[ ! -f $ompi_h ]]; then
        echo "no $ompi_h: skipped"
        return 0
    fi
    echo '#include <mpi.h>' >"$tmp/o.c"
    gcc -E -P -I"$(dirname "$ompi_h")" "$tmp/o.c" | grep -oE '\bMPI_[A-Za-z0-9_]+ *\(' |
        sed 's/ *(//' | sort -u >"$tmp/ompi"
    # macros in Open MPI's header, functions in the standard
    printf '%s\n' MPI_Aint_add MPI_Aint_diff >>"$tmp/ompi"
    sort -u -o "$tmp/ompi" "$tmp/ompi"
    table_names >"$tmp/ours"
    local missing extra
    missing=$(comm -13 "$tmp/ours" "$tmp/ompi")
    extra=$(comm -23 "$tmp/ours" "$tmp/ompi" | tr '\n' ' ')
    [[ -z $missing ]] || { echo "in Open MPI's mpi.h, not in the table: $missing"; return 1; }
    # MPI-3.1 section 17.2.5; Open MPI 4.1 lacks them
    [[ $extra == "MPI_Status_c2f08 MPI_Status_f082c " ]] ||
        { echo "in the table, not in Open MPI's mpi.h: $extra"; return 1; }
}
check "the table covers Open MPI's MPI-3.1 mpi.h (+ MPI_Status_c2f08/f082c)" vs_openmpi

gen_fails() {  # gen_fails <expected message part> <table text>
    local want=$1
    printf '%s\n' "$2" >"$tmp/t.txt"
    if python3 mpi/gen_mpi.py --table "$tmp/t.txt" --include-dir "$tmp/g" --gen-dir "$tmp/g" \
           "${@:3}" >"$tmp/gen.out" 2>&1; then
        echo "gen_mpi.py accepted: $2"
        return 1
    fi
    grep -qF -- "$want" "$tmp/gen.out" || { echo "no '$want' in:"; cat "$tmp/gen.out"; return 1; }
}
generator_refuses() {
    gen_fails "not a prototype" $'## a\nint MPI_Foo(int x' &&
    gen_fails "comes before any '## section'" $'int MPI_Foo(int x)' &&
    gen_fails "MPI_Foo is already listed at line 2" $'## a\nint MPI_Foo(int x)\nint MPI_Foo(int y)' &&
    gen_fails "no stub can return a float" $'## a\nfloat MPI_Foo(int x)' &&
    gen_fails "mpi/mpi_p2p.c: implements MPI_" $'## a\nint MPI_Foo(int x)' mpi/mpi_p2p.c
}
check "gen_mpi.py refuses bad tables with a message naming the problem" generator_refuses

generator_idempotent() {
    local srcs=(mpi/*.c)
    python3 mpi/gen_mpi.py --table "$table" --include-dir "$tmp/i" --gen-dir "$tmp/i" \
        --summary "${srcs[@]}" || return 1
    touch -d '2001-01-01' "$tmp"/i/*
    python3 mpi/gen_mpi.py --table "$table" --include-dir "$tmp/i" --gen-dir "$tmp/i" "${srcs[@]}" &&
        [[ -z $(find "$tmp/i" -type f -newermt '2002-01-01') ]] || { echo "unchanged outputs rewritten"; return 1; }
    cmp "$tmp/i/mpi_stubs.c" "$gen/mpi_stubs.c" || return 1
    # every stub is a function of the table that no source implements
    local impl stubs
    impl=$(grep -hoE '^#pragma weak MPI_\w+ = PMPI_\w+' mpi/*.c | wc -l)
    stubs=$(grep -c '^#pragma weak' "$tmp/i/mpi_stubs.c")
    echo "implemented $impl, stubbed $stubs"
    ((impl + stubs == expected_functions))
}
check "gen_mpi.py: implemented + stubbed = table; unchanged files kept" generator_idempotent

all_symbols_c() {
    cd "$tmp" && "$loomcc" -std=c11 -Wall -Wextra -Werror -pedantic -Wstrict-prototypes \
        -o syms_c "$gen/mpi_all_symbols.c" && ./syms_c | tee syms_c.out &&
        grep -qx "$expected_functions functions linked" syms_c.out
}
check "every MPI_X/PMPI_X links (C11 -pedantic, loomcc)" all_symbols_c

all_symbols_cxx() {
    cp "$gen/mpi_all_symbols.c" "$tmp/syms.cc" &&
        cd "$tmp" && "$loomcxx" -std=c++11 -Wall -Wextra -Werror -pedantic -o syms_cxx syms.cc &&
        ./syms_cxx | tee syms_cxx.out && grep -qx "$expected_functions functions linked" syms_cxx.out
}
check "every declaration compiles and links as C++11 -pedantic (loomcxx)" all_symbols_cxx

cxx_header() {
    cd "$tmp" &&
        "$loomcxx" -std=c++11 -Wall -Wextra -Werror -o cxxh "$top/test/mpi/mpi_cxx_header.cc" &&
        "$loomcxx" -std=c++11 -Wall -Wextra -Werror -pedantic -o cxxh_ped \
            "$top/test/mpi/mpi_cxx_header.cc" &&
        ./cxxh && timeout -k 5 60 "$loomrun" -n 2 ./cxxh_ped
}
check "mpi.h from C++ (-Wall -Wextra -Werror, and -pedantic): builds and runs" cxx_header

((fail == 0)) && echo "mpi api: all passed" || echo "mpi api: $fail failed"
((fail == 0))
