#!/usr/bin/env bash
# test_vm_agent.sh: the two-guest launch agent (test/verbs/prog_vm_agent.c)
# on this host's loopback, no guest needed (make check runs it in every
# build: release, ASan+UBSan, TSan). The server listens on 127.0.0.1; the
# "remote host" vmx is this machine under another name.
#   - like ssh: words joined and run by sh, stdin through, stdout and stderr
#     apart, the exit status (and 128+N for a signal), a large stdin
#   - refusals: a wrong token (logged by the server, command not run), an
#     unknown host, nobody listening (255)
#   - the client killed: the server hangs up the command (SIGHUP)
#   - loomrun --launch-agent through it: a daemon for host vmx, the ranks
#     see their hosts, and nothing of the job stays behind
#   BUILD=build/release bash test/verbs/test_vm_agent.sh
set -u
# shellcheck source=test/common/script_preamble.sh
. "$(dirname "$0")/../common/script_preamble.sh"
AGENT=$B/test/verbs/prog_vm_agent
LOOMRUN=$B/bin/loomrun
PROG=$B/test/multihost/prog_multihost
P2P=$B/test/p2p/prog_p2p

loom_need_progs "$AGENT" "$LOOMRUN" "$PROG" "$P2P"
W=$(mktemp -d /tmp/loom-vm-agent.XXXXXX)
spid=
cleanup() {
    [[ -n $spid ]] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/token"
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$W/wrong"
echo "vmx 127.0.0.1" >"$W/hosts"

# the server, on a free port of the loopback (it exits 255 if the port is taken)
for try in $(seq 20); do
    port=$((30000 + RANDOM % 30000))
    "$AGENT" --serve 127.0.0.1 --port $port --token-file "$W/token" 2>"$W/server.log" &
    spid=$!
    for _ in $(seq 50); do
        grep -q "serving on" "$W/server.log" && break 2
        kill -0 $spid 2>/dev/null || break
        sleep 0.1
    done
    kill $spid 2>/dev/null; wait $spid 2>/dev/null; spid=
done
[[ -n $spid ]] || { echo "FAIL: the agent server did not start"; cat "$W/server.log"; exit 1; }
A="$AGENT --port $port --token-file $W/token --hosts $W/hosts"

# ---- like ssh ----------------------------------------------------------------------

out=$($A vmx echo one 'two;' echo '$((6 * 7))' 2>&1); rc=$?
[[ $rc == 0 && $out == $'one two\n42' ]] && ok "words joined and run by a shell" ||
    bad "words joined and run by a shell (exit $rc)" "$out"
$A vmx 'exit 7'; rc=$?
[[ $rc == 7 ]] && ok "exit status" || bad "exit status: $rc, want 7"
$A vmx 'kill -TERM $$'; rc=$?
[[ $rc == 143 ]] && ok "killed by a signal: 128+N" || bad "killed by SIGTERM: $rc, want 143"
out=$($A vmx 'echo to-out; echo to-err >&2' 2>"$W/err")
[[ $out == to-out && $(<"$W/err") == to-err ]] && ok "stdout and stderr apart" ||
    bad "stdout and stderr apart" "$out / $(<"$W/err")"
seq 1 300000 >"$W/big"
$A vmx cat <"$W/big" | cmp -s - "$W/big" && ok "stdin through (2 MB, echoed)" ||
    bad "stdin through (2 MB, echoed)"
out=$(printf 'abc\n' | $A vmx 'head -c 2; exec 0<&-; echo .' 2>&1); rc=$?
[[ $rc == 0 && $out == ab. ]] && ok "a command that closes its stdin early" ||
    bad "a command that closes its stdin early (exit $rc)" "$out"

# ---- refusals ---------------------------------------------------------------------

out=$($AGENT --port $port --token-file "$W/wrong" --hosts "$W/hosts" vmx touch "$W/pwned" 2>&1)
rc=$?
sleep 0.2
if [[ $rc == 255 && $out == *"refused the connection: wrong token"* && ! -e $W/pwned ]] &&
   grep -q "refused a connection from 127.0.0.1:[0-9]*: wrong token" "$W/server.log"; then
    ok "a wrong token is refused and logged; the command does not run"
else
    bad "wrong token (exit $rc)" "$out"
fi
n0=$(grep -c "refused a connection" "$W/server.log")
out=$(printf 'GET / HTTP/1.0\r\n\r\n' |
      timeout 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; cat >&3; tr -d '\\0' <&3" 2>&1)
sleep 0.2
[[ $(grep -c "refused a connection" "$W/server.log") == $((n0 + 1)) && $out == *"wrong token"* ]] &&
    ok "garbage is refused" || bad "garbage" "$out"
out=$($A vmy true 2>&1); rc=$?
[[ $rc == 255 && $out == *"unknown host vmy"* ]] && ok "unknown host: 255" ||
    bad "unknown host (exit $rc)" "$out"
out=$($AGENT --port $((port ^ 1)) --token-file "$W/token" --hosts "$W/hosts" vmx true 2>&1); rc=$?
[[ $rc == 255 && $out == *"cannot reach the agent of vmx"* ]] && ok "nobody listening: 255" ||
    bad "nobody listening (exit $rc)" "$out"

# ---- the client goes away: the command is hung up ------------------------------------

$A vmx "trap 'echo hup >$W/hup; exit 1' HUP; sleep 30 & wait" &
cpid=$!
sleep 1
kill -TERM $cpid; wait $cpid
for _ in $(seq 50); do [[ -s $W/hup ]] && break; sleep 0.1; done
[[ -s $W/hup ]] && grep -q "the client is gone; hanging up" "$W/server.log" &&
    ok "client killed: the command gets SIGHUP" || bad "client killed: no SIGHUP" "$(<"$W/server.log")"

# ---- loomrun through the agent -------------------------------------------------------

me=$(hostname)
out=$(timeout 120 "$LOOMRUN" --launch-agent "$A" --host "$me:1,vmx:2" --timeout 100 \
      "$PROG" info "$me,vmx,vmx" 2>&1); rc=$?
if [[ $rc == 0 && $(grep -c '^OK info' <<<"$out") == 3 ]] &&
   grep -q "loomrun --daemon .* --hostname vmx" "$W/server.log"; then
    ok "loomrun --launch-agent: a daemon for vmx, every rank on its host"
else
    bad "loomrun --launch-agent (exit $rc)" "$out"
fi
out=$(timeout 120 "$LOOMRUN" --launch-agent "$A" --host "$me:2,vmx:2" --timeout 100 \
      -x LOOM_LOG=info "$P2P" random 3 2>&1); rc=$?
if [[ $rc == 0 && $out == *"OK random"* ]] &&
   grep -q "^loom\[2@vmx\] INFO p2p: transport tcp serves 2 peer(s) \[0,1\]" <<<"$out"; then
    ok "p2p across the agent's hosts (tcp between them)"
else
    bad "p2p across the agent's hosts (exit $rc)" "$out"
fi
sleep 1
left=$(pgrep -f -- "^$LOOMRUN --daemon .* --hostname vmx" | xargs -r ps -o pid=,args= -p)
[[ -z $left ]] && ok "no daemon left" || bad "daemons left" "$left"

exit $fail
