#!/usr/bin/env bash
# test_loomcc.sh: loomcc, the pkg-config files and `make install`, the way a
# user meets them: build an MPI program with the build tree's loomcc (shared
# and --static-loom) and run it without LD_LIBRARY_PATH; install into a
# temporary prefix and build and run again with the installed loomcc,
# loomrun and pkg-config files only.
#   BUILD=build/release bash test/mpi/test_loomcc.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
top=$PWD
BUILD=${BUILD:-build/release}
loomcc=$top/$BUILD/bin/loomcc
tmp=$(mktemp -d /tmp/loomcc-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() {  # check <description> <function>
    local what=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        echo "  ok    $what"
    else
        fail=$((fail + 1))
        echo "  FAIL  $what"
        sed 's/^/        | /' "$tmp/out" | tail -n 15
    fi
}
contains() { grep -qF -- "$2" <<<"$1" || { echo "'$2' not in: $1"; return 1; }; }
lacks() { ! grep -qF -- "$2" <<<"$1" || { echo "'$2' unexpectedly in: $1"; return 1; }; }

cat >"$tmp/hello.c" <<'PROG'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0, len, v, sv;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_library_version(lib, &len);
    MPI_Get_version(&v, &sv);
    if (rank == 0)
        printf("hello from %d ranks, sum %d, MPI %d.%d, %s\n", size, sum, v, sv, lib);
    MPI_Finalize();
    return sum == size && strncmp(lib, "loom ", 5) == 0 ? 0 : 1;
}
PROG

# The sanitizer/debug flavour of $BUILD, so `make install` rebuilds nothing.
make_flags=(BUILD="$BUILD")
case $BUILD in
    *debug*) make_flags+=(DEBUG=1) ;;
esac
case $BUILD in
    *-address) make_flags+=(SANITIZE=address) ;;
    *-undefined) make_flags+=(SANITIZE=undefined) ;;
    *-thread) make_flags+=(SANITIZE=thread) ;;
esac

showme_build() {
    local all; all=$("$loomcc" --showme -o x x.c)
    contains "$all" "-I$top/include" && contains "$all" "-lloom_mpi" &&
        contains "$all" "-Wl,-rpath,$top/$BUILD/lib" && contains "$all" " -o x x.c" || return 1
    local c; c=$("$loomcc" --showme -c x.c)
    lacks "$c" "-lloom_mpi" && contains "$c" "-c x.c" || return 1
    contains "$("$loomcc" --showme:compile)" "-I$top/include" || return 1
    contains "$("$loomcc" --showme:link)" "-lloom_mpi -lloom" || return 1
    contains "$("$loomcc" --showme:version)" "loom" || return 1
    contains "$("$loomcc" --showme:incdirs)" "$top/include" || return 1
    ! "$loomcc" --showme:nonsense 2>/dev/null || return 1
}
check "loomcc --showme forms (build tree)" showme_build

build_run_shared() {
    cd "$tmp" && "$loomcc" -O2 -Wall -Werror -DEXTRA=1 -o hello hello.c &&
        env -u LD_LIBRARY_PATH ./hello && ldd ./hello | grep -q "libloom_mpi.so => $top/$BUILD/lib" &&
        env -u LD_LIBRARY_PATH "$top/$BUILD/bin/loomrun" -n 2 ./hello
}
check "loomcc builds a shared-linked program that runs from anywhere" build_run_shared

build_run_static() {
    cd "$tmp" && "$loomcc" --static-loom -O2 -o hello_static hello.c &&
        ! ldd ./hello_static | grep -q libloom && ./hello_static
}
check "loomcc --static-loom" build_run_static

build_separately() {
    cd "$tmp" && "$loomcc" -c -o hello.o hello.c && "$loomcc" -o hello2 hello.o && ./hello2
}
check "loomcc compiles and links in separate steps" build_separately

prefix=$tmp/prefix
do_install() {
    make -s -C "$top" "${make_flags[@]}" install PREFIX="$prefix" || return 1
    for f in bin/loomcc bin/loomrun bin/loom_info include/mpi.h include/loom.h \
             lib/libloom.a lib/libloom.so lib/libloom_mpi.a lib/libloom_mpi.so \
             lib/pkgconfig/loom.pc lib/pkgconfig/loom-mpi.pc; do
        [[ -e $prefix/$f ]] || { echo "missing $prefix/$f"; return 1; }
    done
}
check "make install PREFIX=..." do_install

installed_use() {
    local icc=$prefix/bin/loomcc all
    all=$("$icc" --showme -o x x.c)
    contains "$all" "-I$prefix/include" && contains "$all" "-Wl,-rpath,$prefix/lib" &&
        lacks "$all" "$top" || return 1
    cd "$tmp" && "$icc" -o hello_inst hello.c && ldd ./hello_inst | grep -q "$prefix/lib/libloom_mpi.so" &&
        env -u LD_LIBRARY_PATH "$prefix/bin/loomrun" -n 3 ./hello_inst
}
check "installed loomcc and loomrun" installed_use

installed_pkgconfig() {
    local flags
    flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs loom-mpi) || return 1
    contains "$flags" "-I$prefix/include" && contains "$flags" "-L$prefix/lib" &&
        contains "$flags" "-lloom_mpi" && contains "$flags" "-lloom" || return 1
    # shellcheck disable=SC2086
    cd "$tmp" && cc -o hello_pc hello.c $flags -Wl,-rpath,"$prefix/lib" && ./hello_pc || return 1
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion loom | grep -q '^[0-9]' || return 1
}
check "installed pkg-config files (loom, loom-mpi)" installed_pkgconfig

relocated_runpath() {
    readelf -d "$prefix/lib/libloom_mpi.so" | grep -E 'RUNPATH|RPATH' | grep -qF '$ORIGIN'
}
check "libloom_mpi.so finds libloom.so through \$ORIGIN" relocated_runpath

((fail == 0)) && echo "loomcc/install: all passed" || echo "loomcc/install: $fail failed"
((fail == 0))
