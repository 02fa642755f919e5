# shellcheck shell=bash disable=SC2034  # (sets variables for the driver that sources it)
# mpi_driver_lib.sh: the helpers the MPI test drivers (test/mpi/test_mpi_*.sh)
# share. Sourced, not run (test/run_tests.sh runs test_*.sh only), by a
# driver that has already cd'ed to the repository top:
#   . test/mpi/mpi_driver_lib.sh
#   mdl_init mpi                     # logs in $BUILD/test-logs/mpi
#   mdl_require "$loomrun" "$progs"/mpi_foo
#   run 0 mpi_foo.n3 "$loomrun" -n 3 "$progs/mpi_foo"
#   mdl_summary "mpi foo" "(logs in $logdir)"     # last line: exit status
#
#   mdl_init LOGNAME    BUILD (default build/release), progs=$BUILD/test/mpi,
#                       loomrun=$BUILD/bin/loomrun, logdir=$BUILD/test-logs/
#                       LOGNAME (created)
#   mdl_require FILE... exit 1 with a FAIL line naming the first FILE that
#                       is not executable (the binaries the driver runs)
#   run [-t SECS] [-m TEXT]... [-x TEXT]... EXPECT NAME CMD...
#                       run CMD under timeout (SECS, default $mdl_timeout),
#                       its output to $logdir/NAME.log. One case: it passes
#                       when the exit status matches EXPECT (0; "nonzero":
#                       any failure but a timeout, 124/137; or a number),
#                       the log mentions every -m TEXT and $mdl_must_mention
#                       (if set), and no -x TEXT. Counted in pass or fail,
#                       printed as an ok line with its time or a FAIL line
#                       with the log's tail. Status 0 iff it passed (so
#                       `run ... && expect_log ...` checks a passed run's log)
#   expect_log NAME TEXT...
#                       the log of case NAME must mention every TEXT; each
#                       missing one counts one more failure
#   mdl_pass NAME [NOTE], mdl_fail NAME WHY [LOG]
#                       count and print a case the driver checked itself
#                       (mdl_fail prints LOG's tail)
#   mdl_summary TITLE [TAIL]
#                       print the closing line "TITLE: N passed, M failed"
#                       (then TAIL); status 0 iff nothing failed. A driver
#                       ends with it: run_tests.sh reads the exit status.
#
# Sourcing sets pass=0, fail=0 and the settings a driver may change:
# mdl_width (the name column, 36), mdl_timeout (seconds per case, 120),
# mdl_must_mention (a text every passing log of `run` has, e.g. the
# program's "passed on" line), mdl_log_filter (a grep -v regex for the tail
# of a failed log).

pass=0
fail=0
mdl_width=36
mdl_timeout=120
mdl_must_mention=""
mdl_log_filter=""

mdl_init() {
    BUILD=${BUILD:-build/release}
    progs=$BUILD/test/mpi
    loomrun=$BUILD/bin/loomrun
    logdir=$BUILD/test-logs/$1
    mkdir -p "$logdir"
}

mdl_require() {
    local f
    for f in "$@"; do
        if [[ ! -x $f ]]; then
            echo "FAIL: $f is missing (make BUILD=$BUILD mpi-progs loomrun)"
            exit 1
        fi
    done
}

mdl_pass() {
    pass=$((pass + 1))
    if (($# > 1)); then
        printf '  ok    %-*s %s\n' "$mdl_width" "$1" "$2"
    else
        printf '  ok    %s\n' "$1"
    fi
}

mdl_fail() {
    fail=$((fail + 1))
    printf '  FAIL  %-*s %s\n' "$mdl_width" "$1" "$2"
    [[ -n ${3:-} ]] || return 0
    if [[ -n $mdl_log_filter ]]; then
        grep -v -- "$mdl_log_filter" "$3" | tail -n 15 | sed 's/^/        | /'
    else
        tail -n 15 "$3" | sed 's/^/        | /'
    fi
}

# mdl_rc_ok EXPECT RC: the exit status is the expected one
mdl_rc_ok() {
    case $1 in
    0) [[ $2 == 0 ]] ;;
    nonzero) [[ $2 != 0 && $2 != 124 && $2 != 137 ]] ;;
    *) [[ $2 == "$1" ]] ;;
    esac
}

run() {
    local to=$mdl_timeout want=() shun=() OPTIND=1 opt
    while getopts t:m:x: opt; do
        case $opt in
        t) to=$OPTARG ;;
        m) want+=("$OPTARG") ;;
        x) shun+=("$OPTARG") ;;
        *) echo "run: bad option" >&2; return 2 ;;
        esac
    done
    shift $((OPTIND - 1))
    [[ -n $mdl_must_mention ]] && want+=("$mdl_must_mention")
    local expect=$1 name=$2
    shift 2
    local log=$logdir/$name.log t0=$SECONDS rc why="" s
    timeout -k 5 "$to" "$@" >"$log" 2>&1
    rc=$?
    mdl_rc_ok "$expect" "$rc" || why=" (expected $expect)"
    for s in "${want[@]}"; do
        grep -qF -- "$s" "$log" || why+=", no '$s' in the log"
    done
    for s in "${shun[@]}"; do
        ! grep -qF -- "$s" "$log" || why+=", '$s' in the log"
    done
    if [[ -z $why ]]; then
        mdl_pass "$name" "$(printf '%3ds' $((SECONDS - t0)))"
        return 0
    fi
    mdl_fail "$name" "exit $rc$why" "$log"
    return 1
}

expect_log() {
    local name=$1 s
    shift
    for s in "$@"; do
        if ! grep -qF -- "$s" "$logdir/$name.log"; then
            fail=$((fail + 1))
            echo "  FAIL  $name: output does not mention '$s'"
            sed 's/^/        | /' "$logdir/$name.log" | tail -n 10
        fi
    done
}

mdl_summary() {
    echo "$1: $pass passed, $fail failed${2:+ $2}"
    ((fail == 0))
}
