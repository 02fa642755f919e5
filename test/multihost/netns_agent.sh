#!/bin/sh
# netns_agent.sh HOST COMMAND...: a launch agent (for loomrun --launch-agent
# and Open MPI's plm_rsh_agent) whose "hosts" are network namespaces of this
# machine, named "$LOOM_NETNS_PREFIX$HOST". Like ssh, it joins the command's
# words with spaces and has a shell run the result, so quoting works the
# same way as on a real cluster.
#
# Namespaces of one machine share more than separate hosts do; the command
# gets its own UTS namespace with HOST as its host name (launchers that name
# nodes by gethostname, like Open MPI's orted, then see distinct hosts) and,
# with LOOM_NETNS_SHM_DIR set, "$LOOM_NETNS_SHM_DIR/$HOST" mounted on
# /dev/shm (in the private mount namespace `ip netns exec` makes), so every
# host has its own shared memory and the test can look for leftovers there.
host=$1
shift
[ -n "$host" ] && [ $# -gt 0 ] || { echo "usage: $0 HOST COMMAND..." >&2; exit 2; }
shm=
if [ -n "${LOOM_NETNS_SHM_DIR:-}" ]; then
    shm=$LOOM_NETNS_SHM_DIR/$host
    mkdir -p "$shm" || exit 1
fi
exec ip netns exec "${LOOM_NETNS_PREFIX:-}$host" unshare --uts sh -c '
    hostname "$0" || exit 1
    if [ -n "$1" ]; then mount --bind "$1" /dev/shm || exit 1; fi
    exec sh -c "$2"' "$host" "$shm" "$*"
