# shellcheck shell=bash disable=SC2034  # (sets variables for the script that sources it)
# script_preamble.sh: the opening shared by the shell-driven suites that
# need a built tree and, some of them, root (test/multihost/test_srun.sh,
# test/multihost/test_multihost.sh, test/verbs/test_vm_agent.sh). Sourced
# (not run: its name is not test_*.sh, so test/run_tests.sh passes it by)
# right after `set -u`:
#
#   . "$(dirname "$0")/../common/script_preamble.sh"
#
# It sets TOP (the tree: $LOOM_TOP, or two folders above this file) and
# moves there; BUILD (default build/release, as run_tests.sh exports it) and
# B, the build folder's absolute path; fail=0; and ok NAME / bad NAME
# [OUTPUT], which print one result line (bad also the last 15 lines of
# OUTPUT, indented) and set fail=1.
#
# The guards below end the script with status 1 and a FAIL line saying what
# is missing. A suite that cannot run fails; it never reports a pass it did
# not earn (CI runs as root, with every tool these suites need).

TOP=${LOOM_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
cd "$TOP" || exit 1
BUILD=${BUILD:-build/release}
B=$TOP/$BUILD
[[ $BUILD = /* ]] && B=$BUILD
fail=0

ok()  { echo "ok   $1"; }
bad() { echo "FAIL $1"; [[ -n ${2:-} ]] && echo "$2" | tail -n 15 | sed 's/^/    /'; fail=1; }

# loom_need_progs FILE...: each FILE must be an executable that
# `make BUILD=$BUILD tests` builds
loom_need_progs() {
    local f
    for f in "$@"; do
        [[ -x $f ]] || { echo "FAIL: missing $f (build it first: make BUILD=$BUILD tests)"; exit 1; }
    done
}

# loom_need_root WHAT [CMD...]: the script must run as root and find each
# CMD on PATH; if not, "FAIL: this test needs WHAT" (WHAT names root, the
# tools and why, e.g. "root and iproute2 (it makes network namespaces)")
loom_need_root() {
    local what=$1 c
    shift
    [[ $(id -u) == 0 ]] || { echo "FAIL: this test needs $what"; exit 1; }
    for c in "$@"; do
        command -v "$c" >/dev/null || { echo "FAIL: this test needs $what"; exit 1; }
    done
}
