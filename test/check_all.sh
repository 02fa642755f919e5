#!/usr/bin/env bash
# `make check`: every suite in the release build (warnings are errors), then
# under AddressSanitizer with UndefinedBehaviorSanitizer (one build, as is
# usual: they do not conflict), then under ThreadSanitizer,
# then the extra checks modules register (make print-check-extra).
#   LOOM_CHECK_PASSES="release address"   run only these passes
#   LOOM_CHECK_EXTRA=0                     skip the extra checks
set -u
cd "$(dirname "$0")/.."
passes=${LOOM_CHECK_PASSES:-release address,undefined thread}
jobs=${LOOM_CHECK_JOBS:-2}
total_pass=0; total_fail=0; failed=()
t_start=$SECONDS

bash scripts/install-deps.sh || exit 1

# ThreadSanitizer sleeps 1 s at every process exit by default: with hundreds
# of rank processes that is minutes of nothing.
# libpmix/libevent are not instrumented: test/tsan.supp suppresses their frames.
export TSAN_OPTIONS="atexit_sleep_ms=0 suppressions=$PWD/test/tsan.supp ${TSAN_OPTIONS:-}"

count() {  # parse "suites: N passed, M failed" from a pass's output
    local line
    line=$(grep -E '^suites: [0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    [[ -n $line ]] || { echo "0 1"; return; }
    echo "$line" | sed -E 's/^suites: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/'
}

for p in $passes; do
    # each pass has its own build folder, whatever BUILD the caller set
    args=(WERROR=1 BUILD=build/release)
    [[ $p != release ]] && args=(WERROR=1 SANITIZE="$p" BUILD="build/release-${p//,/-}")
    echo "=== check pass: $p (${args[*]})"
    out=$(mktemp)
    t0=$SECONDS
    if ! make -s -j"$jobs" "${args[@]}" all tests >"$out" 2>&1; then
        cat "$out"
        echo "FAIL  build ($p)"
        total_fail=$((total_fail + 1)); failed+=("build-$p")
        rm -f "$out"; continue
    fi
    make -s "${args[@]}" check-suites 2>&1 | tee "$out"
    read -r np nf < <(count "$out")
    total_pass=$((total_pass + np)); total_fail=$((total_fail + nf))
    ((nf > 0)) && failed+=("$p")
    echo "=== pass $p: $np passed, $nf failed in $((SECONDS - t0)) s"
    rm -f "$out"
done

if [[ ${LOOM_CHECK_EXTRA:-1} != 0 ]]; then
    for t in $(make -s print-check-extra); do
        echo "=== extra check: make $t"
        t0=$SECONDS
        if make -s "$t"; then
            total_pass=$((total_pass + 1)); echo "PASS  $t $((SECONDS - t0))s"
        else
            total_fail=$((total_fail + 1)); failed+=("$t"); echo "FAIL  $t $((SECONDS - t0))s"
        fi
    done
fi

echo
echo "make check took $((SECONDS - t_start)) s"
((total_fail > 0)) && echo "failed: ${failed[*]}"
echo "check: $total_pass passed, $total_fail failed"
((total_fail == 0))
