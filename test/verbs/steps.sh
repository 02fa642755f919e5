# steps.sh: the step runner of the guest suites (run.sh, run2.sh), sourced.
#
#   steps_init NAME       start suite NAME: cd to the repository, export
#                         BUILD (default build/release), LOOM_TOP and PATH
#                         ($BUILD/bin first); logs go to
#                         $BUILD/test-logs/NAME/<step>.log
#   step NAME [TIMEOUT] CMD...
#                         run CMD (a function of the suite, which bounds
#                         itself, or a command, run under timeout TIMEOUT s,
#                         300 if not given), its output to the log; print
#                         PASS/FAIL with its time, and on FAIL the log's tail.
#                         Skipped unless NAME matches VERBS_STEPS (a regex).
#   steps_summary TITLE   print the summary line; its status is the number
#                         of failed steps (the suite's exit status)

steps_init() {
    cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
    export BUILD=${BUILD:-build/release}
    export LOOM_TOP=$PWD
    export PATH="$PWD/$BUILD/bin:$PATH"
    steps_logs=$BUILD/test-logs/$1
    mkdir -p "$steps_logs"
    steps_fail=0
    steps_failed=()
    steps_t0=$SECONDS
    steps_only=${VERBS_STEPS:-.}
}

step() {
    local name=$1 to=300 t0=$SECONDS rc
    shift
    if [[ $1 =~ ^[0-9]+$ ]]; then
        to=$1
        shift
    fi
    [[ $name =~ $steps_only ]] || return 0
    if [[ $(type -t "$1") == function ]]; then
        "$@" >"$steps_logs/$name.log" 2>&1
    else
        timeout -k 5 "$to" "$@" >"$steps_logs/$name.log" 2>&1
    fi
    rc=$?
    if ((rc == 0)); then
        printf 'PASS  %-34s %4ds\n' "$name" $((SECONDS - t0))
    else
        printf 'FAIL  %-34s %4ds  exit %d\n' "$name" $((SECONDS - t0)) "$rc"
        tail -n 30 "$steps_logs/$name.log" | sed 's/^/      | /'
        steps_fail=$((steps_fail + 1))
        steps_failed+=("$name")
    fi
    return 0
}

steps_summary() {
    echo
    echo "$1: $steps_fail failed step(s) in $((SECONDS - steps_t0)) s:" \
         "${steps_failed[*]:-none}"
    return $steps_fail
}
