#!/bin/sh
# netns_agent.sh HOST COMMAND...: a launch agent (for loomrun --launch-agent
# and Open MPI's plm_rsh_agent) whose "hosts" are network namespaces of this
# machine, named "$LOOM_NETNS_PREFIX$HOST". Like ssh, it joins the command's
# words with spaces and has a shell run the result, so quoting works the
# same way as on a real cluster.
#
# Separate hosts do not share /dev/shm; namespaces of one machine do. With
# LOOM_NETNS_SHM_DIR set, the command runs with "$LOOM_NETNS_SHM_DIR/$HOST"
# mounted on /dev/shm (in the private mount namespace `ip netns exec` makes),
# so every "host" has its own, and the test can look for leftovers in it.
host=$1
shift
[ -n "$host" ] && [ $# -gt 0 ] || { echo "usage: $0 HOST COMMAND..." >&2; exit 2; }
ns=${LOOM_NETNS_PREFIX:-}$host
if [ -n "${LOOM_NETNS_SHM_DIR:-}" ]; then
    mkdir -p "$LOOM_NETNS_SHM_DIR/$host" &&
    exec ip netns exec "$ns" sh -c 'mount --bind "$0" /dev/shm && exec sh -c "$1"' \
        "$LOOM_NETNS_SHM_DIR/$host" "$*"
fi
exec ip netns exec "$ns" sh -c "$*"
