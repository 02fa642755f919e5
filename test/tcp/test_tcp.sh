#!/usr/bin/env bash
# test_tcp.sh: the TCP transport under loomrun, forced with
# LOOM_TRANSPORTS=self,tcp on this one node (every peer then goes over
# 127.0.0.1 sockets):
#   - the point-to-point integration programs (test/p2p/prog_p2p) at np 2, 3, 4;
#   - LOOM_TCP_IF naming a real interface (ranks listen on its address) and a
#     bogus one (refused with a message);
#   - a client from outside the job with a wrong secret, and one speaking
#     garbage, are refused and logged while the job keeps working;
#   - a rank killed mid-job: the others report a tcp error naming both ends,
#     and the job ends at once instead of hanging.
#   BUILD=build/release bash test/tcp/test_tcp.sh
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build/release}
LOOMRUN=${LOOMRUN:-$BUILD/bin/loomrun}
P2P=$BUILD/test/p2p/prog_p2p
PROG=$BUILD/test/tcp/prog_tcp
TCP=(-x LOOM_TRANSPORTS=self,tcp)
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in "$LOOMRUN" "$P2P" "$PROG"; do
    [[ -x $f ]] || { echo "missing $f (build it first)"; exit 1; }
done

bad() { echo "FAIL $1"; shift; printf '%s\n' "$@" | tail -n 25 | sed 's/^/    /'; fail=1; }

# run_p2p NAME TIMEOUT NP ARGS...: must print "OK <mode>", exit 0, and use tcp
run_p2p() {
    local name=$1 tmo=$2 np=$3; shift 3
    local t0=$SECONDS out rc
    out=$("$LOOMRUN" -q --timeout "$tmo" "${TCP[@]}" -x LOOM_ERRORS=return \
          -x LOOM_LOG=info:p2p -n "$np" "$P2P" "$@" 2>&1)
    rc=$?
    if [[ $rc -ne 0 || $out != *"OK $1"* ]]; then
        bad "$name (np $np, exit $rc)" "$(grep -v 'ERROR p2p: loom_' <<<"$out")"
    elif [[ $out != *"transport tcp serves $((np - 1)) peer(s)"* ]]; then
        bad "$name (np $np): tcp did not serve the peers" "$(grep 'serves' <<<"$out")"
    elif [[ $out != *"rendezvous by get, its first 65408 bytes sent behind the request"* ]]; then
        bad "$name (np $np): tcp did not push the first bytes of rendezvous" \
            "$(grep 'serves' <<<"$out")"
    else
        echo "ok   $name (np $np, $((SECONDS - t0))s)"
    fi
}

# sanitizer builds start each job several times slower: fewer sizes of job there
nps="2 3 4"
sanitizer=$(ldd "$LOOMRUN" 2>/dev/null | grep -o 'lib[atu][sb]*san' | head -n 1)
[[ -n $sanitizer ]] && nps="2 4"
if [[ $sanitizer == libtsan ]]; then
    # libpmix and its libevent are not instrumented: their progress thread's
    # own locking shows up as races and double locks. Ours must not.
    supp=$tmp/tsan.supp
    for lib in libpmix.so.2 libevent_core-2.1.so.7 libevent_pthreads-2.1.so.7; do
        printf 'called_from_lib:%s\nrace:%s\nmutex:%s\ndeadlock:%s\n' "$lib" "$lib" "$lib" "$lib"
    done >"$supp"
    export TSAN_OPTIONS="suppressions=$supp ${TSAN_OPTIONS:-}"
fi
for np in $nps; do
    # (64 MiB of checked bytes per rank is long under a sanitizer: once is enough)
    [[ -z $sanitizer || $np == 2 ]] && run_p2p "sizes 0..64MiB over tcp" 120 $np sizes
    run_p2p "wildcard storm over tcp"      60 $np wildcard
    run_p2p "10,000 outstanding over tcp"  60 $np many
    run_p2p "misc (ssend, trunc, probe, cancel)" 60 $np misc
    run_p2p "random traffic seed 7"        60 $np random 7
done
# bothsend pairs rank with rank^1: even sizes only
run_p2p "both sides send first" 60 2 bothsend
run_p2p "both sides send first" 60 4 bothsend

# ---- LOOM_TCP_IF: a real interface instead of loopback ---------------------------
ifname=$(ip -4 -o addr show 2>/dev/null | awk '$2 != "lo" { print $2; exit }')
if [[ -n $ifname ]]; then
    ifaddr=$(ip -4 -o addr show dev "$ifname" | awk '{ sub("/.*", "", $4); print $4; exit }')
    out=$("$LOOMRUN" -q --timeout 60 "${TCP[@]}" -x LOOM_TCP_IF="$ifname" -x LOOM_LOG=debug:tcp \
          -n 2 "$P2P" sizes 2>&1)
    rc=$?
    if ((rc != 0)) || [[ $out != *"OK sizes"* ]]; then
        bad "LOOM_TCP_IF=$ifname (exit $rc)" "$out"
    elif [[ $(grep -c "listening on $ifaddr:[0-9]* (LOOM_TCP_IF)" <<<"$out") != 2 ]]; then
        bad "LOOM_TCP_IF=$ifname: ranks did not listen on $ifaddr" "$(grep listening <<<"$out")"
    else
        echo "ok   LOOM_TCP_IF=$ifname: both ranks on $ifaddr"
    fi
    out=$("$LOOMRUN" -q --timeout 60 "${TCP[@]}" -x LOOM_TCP_IF=no-such-if0 -n 2 "$P2P" sizes 2>&1)
    if (($? == 0)) || [[ $out != *"LOOM_TCP_IF=no-such-if0 is neither an address nor an interface"* ]]; then
        bad "LOOM_TCP_IF=no-such-if0 not refused with a message" "$out"
    else
        echo "ok   LOOM_TCP_IF=no-such-if0 refused with a message"
    fi
fi

# ---- outsiders -------------------------------------------------------------
# A HELLO frame as loom sends it (little-endian host): length 32, type 1,
# magic "LOOM", version 1, from rank 0 to rank 1, but a made-up secret.
hello_wrong_secret() {
    printf '\x20\x00\x00\x00\x01\x00\x00\x00MOOL\x01\x00\x00\x00'
    printf '\x00\x00\x00\x00\x01\x00\x00\x00AAAAAAAAAAAAAAAA'
}

# connect to 127.0.0.1:$1, send stdin, and wait (at most 10 s) for the close
attack() {
    local port=$1
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    cat >&3
    timeout 10 cat <&3 >/dev/null
    local rc=$?
    exec 3<&- 3>&-
    return $rc   # 0: the rank closed the connection; 124: it kept it open
}

log=$tmp/until.log
stop=$tmp/stop
"$LOOMRUN" -q --timeout 90 "${TCP[@]}" -x LOOM_LOG=debug:tcp -n 2 "$PROG" until "$stop" \
    >"$log" 2>&1 &
job=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.*rank 1 listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n 1)
    [[ -n $port ]] && grep -q "connected to rank\|accepted rank" "$log" && break
    sleep 0.1
done
if [[ -z $port ]]; then
    bad "outsiders: rank 1 never said where it listens" "$(cat "$log")"
else
    hello_wrong_secret | attack "$port"; r1=$?
    printf 'GET / HTTP/1.0\r\n\r\n' | attack "$port"; r2=$?
    touch "$stop"
    wait $job; rc=$?
    out=$(cat "$log")
    if ((r1 != 0 || r2 != 0)); then
        bad "outsiders: a connection stayed open (wrong secret: $r1, garbage: $r2)" "$out"
    elif ((rc != 0)) || [[ $out != *"OK until"* ]]; then
        bad "outsiders: the job did not go on (exit $rc)" "$out"
    elif ! grep -q "rank 1@[^ ]*: dropped connection from 127.0.0.1:[0-9]*: wrong job secret" <<<"$out" ||
         ! grep -q "rank 1@[^ ]*: dropped connection from 127.0.0.1:[0-9]*: unknown frame type" <<<"$out"; then
        bad "outsiders: refusals not logged with the remote address" "$out"
    else
        echo "ok   outsiders refused and logged; the job went on ($(grep -o 'OK until [0-9]*' <<<"$out") iterations)"
    fi
fi
[[ -n $port ]] || { touch "$stop"; wait $job; }

# ---- a rank dies ----------------------------------------------------------------
for np in 2 3; do
    t0=$SECONDS
    out=$("$LOOMRUN" --timeout 60 "${TCP[@]}" -n $np "$PROG" die 2>&1)
    rc=$?
    dt=$((SECONDS - t0))
    last=$((np - 1))
    if ((rc == 0 || rc == 124 || dt > 10)); then
        bad "peer killed (np $np): exit $rc after ${dt}s" "$out"
    elif ! grep -q "ERROR tcp: receive over tcp failed between rank [0-9]*@[^ ]* (127.0.0.1:[0-9]*) and rank $last@[^ ]* (127.0.0.1:[0-9]*): connection closed by the peer" <<<"$out"; then
        bad "peer killed (np $np): no tcp error naming both ends" "$out"
    else
        echo "ok   peer killed (np $np): named tcp error, job ended in ${dt}s"
    fi
done

exit $fail
