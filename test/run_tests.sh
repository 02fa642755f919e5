#!/usr/bin/env bash
# Run every test suite in its own process under `timeout`, so a hang fails
# one suite, not the whole run. Suites: CUnit binaries $BUILD/test/*/test_*
# and shell tests test/*/test_*.sh (which find binaries through $BUILD).
#   BUILD=build/release bash test/run_tests.sh [pattern]
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build/release}
export LOOM_TOP=$PWD
export PATH="$PWD/$BUILD/bin:$PATH"
pattern=${1:-}
suite_timeout=${LOOM_TEST_TIMEOUT:-300}

pass=0; fail=0; failed=()
logdir=$BUILD/test-logs
mkdir -p "$logdir"

run_one() {
    local name=$1; shift
    local log="$logdir/${name//\//_}.log"
    local t0=$SECONDS
    timeout -k 10 "$suite_timeout" "$@" >"$log" 2>&1
    local rc=$?
    local dt=$((SECONDS - t0))
    if ((rc == 0)); then
        pass=$((pass + 1)); printf 'PASS  %-40s %4ds\n' "$name" "$dt"
    else
        fail=$((fail + 1)); failed+=("$name")
        [[ $rc == 124 || $rc == 137 ]] && rc="$rc (timeout ${suite_timeout}s)"
        printf 'FAIL  %-40s %4ds  exit %s\n' "$name" "$dt" "$rc"
        tail -n 40 "$log" | sed 's/^/      | /'
    fi
}

for bin in $(ls "$BUILD"/test/*/test_* 2>/dev/null | sort); do
    [[ -x $bin && $bin != *.sh ]] || continue
    name=${bin#"$BUILD"/test/}
    [[ -n $pattern && $name != *$pattern* ]] && continue
    run_one "$name" "$bin"
done
for sh in $(ls test/*/test_*.sh 2>/dev/null | sort); do
    name=${sh#test/}
    [[ -n $pattern && $name != *$pattern* ]] && continue
    run_one "$name" bash "$sh"
done

echo
if ((fail > 0)); then
    echo "failed suites: ${failed[*]} (logs in $logdir)"
fi
echo "suites: $pass passed, $fail failed"
((fail == 0))
