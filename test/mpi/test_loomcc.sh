#!/usr/bin/env bash
# test_loomcc.sh: loomcc, loomcxx, the pkg-config files and `make install`,
# the way a user meets them: build an MPI program with the build tree's
# loomcc (shared and --static-loom) and run it without LD_LIBRARY_PATH;
# install into a temporary prefix and build and run again with the installed
# loomcc, loomcxx, mpicc/mpicxx links, loomrun and pkg-config files only;
# configure and build a CMake project (test/mpi/cmake) through FindMPI.
#   BUILD=build/release bash test/mpi/test_loomcc.sh
set -u
cd "${LOOM_TOP:-$(dirname "$0")/../..}"
top=$PWD
BUILD=${BUILD:-build/release}
loomcc=$top/$BUILD/bin/loomcc
loomcxx=$top/$BUILD/bin/loomcxx
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
# (the Makefile names SANITIZE=address,undefined's folder *-address-undefined;
# matching only *-undefined there rebuilt the library without ASan in place
# for every later suite of that configuration)
case $BUILD in
    *-address-undefined) make_flags+=(SANITIZE=address,undefined) ;;
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
    contains "$("$loomcc" --showme:incdirs)" "$top/$BUILD/include" || return 1
    # one dash, as CMake's FindMPI asks
    [[ $("$loomcc" -showme:compile) == "$("$loomcc" --showme:compile)" ]] || return 1
    [[ $("$loomcc" -showme:link) == "$("$loomcc" --showme:link)" ]] || return 1
    ! "$loomcc" --showme:nonsense 2>/dev/null || return 1
    local cxx; cxx=$("$loomcxx" --showme -o x x.cc)
    contains "$cxx" "-I$top/include" && contains "$cxx" "-lloom_mpi" && contains "$cxx" " -o x x.cc" &&
        contains "$("$loomcxx" --showme:version)" "loomcxx" || return 1
    [[ ${cxx%% *} == "${CXX:-g++}" ]] || { echo "loomcxx runs ${cxx%% *}"; return 1; }
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

cat >"$tmp/hello.cc" <<'PROG'
#include <mpi.h>
#include <iostream>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0, sum = 0, one = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::cout << "hello from C++, " << sum << " ranks" << std::endl;
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
PROG

build_run_cxx() {
    cd "$tmp" && "$loomcxx" -std=c++11 -O2 -Wall -Wextra -Werror -o hello_cxx hello.cc &&
        env -u LD_LIBRARY_PATH "$top/$BUILD/bin/loomrun" -n 2 ./hello_cxx
}
check "loomcxx builds a C++ program that runs" build_run_cxx

build_pkgconfig() {
    local flags
    flags=$(PKG_CONFIG_PATH=$top/$BUILD/lib/pkgconfig pkg-config --cflags --libs loom-mpi) || return 1
    contains "$flags" "-I$top/$BUILD/include" || return 1  # the generated mpi_proto.h
    # shellcheck disable=SC2086
    cd "$tmp" && cc -o hello_bpc hello.c $flags -Wl,-rpath,"$top/$BUILD/lib" && ./hello_bpc
}
check "build-tree pkg-config file (loom-mpi)" build_pkgconfig

prefix=$tmp/prefix
do_install() {
    local f before after
    before=$(cd "$top/$BUILD/lib" && stat -c '%n %Y.%y' libloom.so libloom_mpi.so) || return 1
    make -s -C "$top" "${make_flags[@]}" install PREFIX="$prefix" || return 1
    # installing must not rebuild the build it installs (other flags than
    # the build's would replace the library every later suite runs on)
    after=$(cd "$top/$BUILD/lib" && stat -c '%n %Y.%y' libloom.so libloom_mpi.so) || return 1
    [[ $before == "$after" ]] || { echo "make install rebuilt $BUILD/lib: ${make_flags[*]}"; return 1; }
    for f in bin/loomcc bin/loomcxx bin/mpicc bin/mpicxx bin/loomrun bin/loom_info \
             include/mpi.h include/mpi_proto.h include/loom.h \
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

installed_cxx_links() {
    [[ $(readlink "$prefix/bin/mpicc") == loomcc && $(readlink "$prefix/bin/mpicxx") == loomcxx ]] ||
        { echo "mpicc/mpicxx are not links to loomcc/loomcxx"; return 1; }
    local all; all=$("$prefix/bin/mpicxx" --showme -c x.cc)
    lacks "$all" "$top" || return 1
    cd "$tmp" && "$prefix/bin/mpicxx" -o hello_inst_cxx hello.cc && "$prefix/bin/mpicc" -o hello_mpicc hello.c &&
        env -u LD_LIBRARY_PATH "$prefix/bin/loomrun" -n 2 ./hello_inst_cxx &&
        env -u LD_LIBRARY_PATH "$prefix/bin/loomrun" -n 2 ./hello_mpicc
}
check "installed mpicc/mpicxx (links to loomcc/loomcxx)" installed_cxx_links

cmake_findmpi() {
    if ! command -v cmake >/dev/null; then
        echo "cmake is not installed (scripts/install-deps.sh installs it)"
        return 1
    fi
    local b=$tmp/cmake-build san
    # FindMPI keeps the wrapper's -L/-l but drops its -fsanitize link flag,
    # so a program linked against a sanitizer build of loom names the
    # runtime itself, as a user of such a build would
    san=$(grep -o -- '-fsanitize=[^ ]*' <<<"$("$prefix/bin/loomcc" --showme:link)")
    # Named explicitly: FindMPI looks beside the first mpiexec on PATH
    # first, which is Open MPI's here.
    cmake -S "$top/test/mpi/cmake" -B "$b" -DCMAKE_BUILD_TYPE=Release \
        -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPI_CXX_COMPILER="$prefix/bin/mpicxx" \
        ${san:+-DCMAKE_EXE_LINKER_FLAGS="$san"} \
        -DMPIEXEC_EXECUTABLE="$prefix/bin/loomrun" >"$tmp/cmake.log" 2>&1 ||
        { tail -n 30 "$tmp/cmake.log"; return 1; }
    grep -q "MPI_C_VERSION=3.1 MPI_CXX_VERSION=3.1" "$tmp/cmake.log" &&
        grep -q "MPI_C_INCLUDE_DIRS=$prefix/include" "$tmp/cmake.log" &&
        grep -q "MPI_C_LIBRARIES=.*$prefix/lib/libloom_mpi.so" "$tmp/cmake.log" ||
        { grep "loom check\|MPI" "$tmp/cmake.log"; return 1; }
    cmake --build "$b" >"$tmp/cmake-build.log" 2>&1 || { tail -n 30 "$tmp/cmake-build.log"; return 1; }
    env -u LD_LIBRARY_PATH "$prefix/bin/loomrun" -n 3 "$b/ring_c" &&
        env -u LD_LIBRARY_PATH "$prefix/bin/loomrun" -n 3 "$b/ring_cxx"
}
check "CMake find_package(MPI) finds loom's C and C++ (test/mpi/cmake)" cmake_findmpi

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

# a build directory named by an absolute path (make BUILD=/abs/dir): the
# wrappers and pkg-config files must name that directory, not $top/abs/dir
abs_build_dir() {
    local b=$tmp/absbuild flags
    make -s -C "$top" BUILD="$b" "$b/bin/loomcc" "$b/lib/pkgconfig/loom-mpi.pc" >"$tmp/absbuild.log" 2>&1 ||
        { tail -n 20 "$tmp/absbuild.log"; return 1; }
    flags=$("$b/bin/loomcc" --showme) || return 1
    contains "$flags" "-I$b/include" && contains "$flags" "-L$b/lib" && lacks "$flags" "$top/$b" &&
        [[ -f $b/include/mpi_proto.h ]] || return 1
    grep -q "^libdir=$b/lib" "$b/lib/pkgconfig/loom-mpi.pc" || { cat "$b/lib/pkgconfig/loom-mpi.pc"; return 1; }
}
check "make BUILD=/absolute/dir: wrappers and pkg-config name that directory" abs_build_dir

((fail == 0)) && echo "loomcc/install: all passed" || echo "loomcc/install: $fail failed"
((fail == 0))
