#!/usr/bin/env bash
# smoke.sh: inside the soft-RoCE guest, prove the device works with the
# stock tools before loom's own tests run: device query, RC ping-pong over
# the RoCE v2 GID, perftest send latency and RDMA read latency.
#   test/verbs/vm.sh test/verbs/smoke.sh
set -euo pipefail
addr=10.0.2.15
fail=0

check() {   # check NAME SERVER-CMD... -- CLIENT-CMD...
    local name=$1; shift
    local srv=() cli=()
    while [[ $1 != -- ]]; do srv+=("$1"); shift; done
    shift; cli=("$@")
    timeout 60 "${srv[@]}" >"/tmp/$name.srv" 2>&1 &
    local spid=$! try ok=1
    # the server may listen late on a loaded host: retry the client while
    # it cannot connect (as bench.sh does), up to 20 s
    for try in $(seq 20); do
        sleep 1
        timeout 60 "${cli[@]}" >"/tmp/$name.cli" 2>&1 && { ok=0; break; }
        grep -q "Couldn't connect" "/tmp/$name.cli" || break
    done
    if ((ok == 0)) && wait $spid; then
        echo "PASS $name: $(grep -E '^ *[0-9]' "/tmp/$name.cli" | tail -n 1 | tr -s " ")"
    else
        echo "FAIL $name"; sed 's/^/  srv| /' "/tmp/$name.srv"; sed 's/^/  cli| /' "/tmp/$name.cli"
        fail=1
    fi
    wait $spid 2>/dev/null || true
}

ibv_devinfo -d rxe0 | grep -q PORT_ACTIVE && echo "PASS rxe0 port active" || { echo "FAIL rxe0"; fail=1; }
gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1)
type=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1)
echo "gid[1] = $gid ($type)"
check rc_pingpong ibv_rc_pingpong -d rxe0 -g 1 -n 100 -- ibv_rc_pingpong -d rxe0 -g 1 -n 100 $addr
check ud_pingpong ibv_ud_pingpong -d rxe0 -g 1 -n 100 -- ibv_ud_pingpong -d rxe0 -g 1 -n 100 $addr
check send_lat ib_send_lat -d rxe0 -x 1 -n 200 -- ib_send_lat -d rxe0 -x 1 -n 200 $addr
check read_lat ib_read_lat -d rxe0 -x 1 -n 200 -- ib_read_lat -d rxe0 -x 1 -n 200 $addr
exit $fail
