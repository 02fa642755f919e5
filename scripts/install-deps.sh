#!/usr/bin/env bash
# Install the Debian 12 packages loom needs (build, tests, comparisons).
#   scripts/install-deps.sh          install them (as root)
#   scripts/install-deps.sh --print  print the apt command instead
set -euo pipefail

PKGS=(build-essential pkg-config libpmix-dev libibverbs-dev librdmacm-dev
      libcunit1-dev openmpi-bin libopenmpi-dev gnuplot-nox procps iproute2
      clang libclang-rt-14-dev python3 g++ cmake)

if [[ "${1:-}" == "--print" ]]; then
    echo "apt-get update && apt-get install -y ${PKGS[*]}"
    exit 0
fi

missing=()
for p in "${PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
    echo "loom: missing packages: ${missing[*]}" >&2
    echo "loom: as root run: apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "loom: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
