#!/usr/bin/env bash
# install.sh: the toolchain test/fuzz needs (clang and its libFuzzer
# runtime), on Debian/Ubuntu. Nothing to do when already present.
#   sudo bash test/fuzz/install.sh
set -eu
have_fuzzer() {
    echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
        clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
if command -v clang >/dev/null && have_fuzzer; then
    echo "clang with libFuzzer: present"; exit 0
fi
apt-get update -q
apt-get install -y -q clang
ver=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n 1)
apt-get install -y -q "libclang-rt-$ver-dev" 2>/dev/null ||
    apt-get install -y -q "libclang-common-$ver-dev"
have_fuzzer || { echo "clang still cannot link -fsanitize=fuzzer" >&2; exit 1; }
echo "clang $ver with libFuzzer: installed"
