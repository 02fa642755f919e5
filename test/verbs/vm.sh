#!/usr/bin/env bash
# vm.sh: run a command inside a QEMU guest that has a soft-RoCE device.
#
# The host has no RDMA device and no InfiniBand in its kernel, so the verbs
# tests run in a small guest: Debian's stock kernel (extracted from its
# package, never installed on the host) booted under TCG with an initramfs of
# busybox plus the rdma_rxe modules. The host's /usr and /etc are shared
# read-only over 9p, and the work folder (the repository) read-write at the
# same absolute path, so host binaries and the project's build run unchanged
# inside. The guest brings up eth0 (10.0.2.15) and rxe0 on it, runs the
# command with the host's bash, stores its exit status in the shared folder
# and powers off. See ../shared/notes/softroce-vm.md for the measured recipe.
#
# With --pair, two guests boot at once, vm1 (10.0.2.15) and vm2 (10.0.2.16),
# each with rxe0 on its eth0, joined into one Ethernet segment by QEMU's
# socket network (on 127.0.0.1, free ports picked per run). vm2
# runs the launch agent server ($BUILD/test/verbs/prog_vm_agent: a token-
# checked rsh, the guests have no ssh) and the command runs on vm1, once
# vm2's agent answers (or after 2 min), with
#   VM_AGENT  the launch agent command line, for loomrun --launch-agent
#             (and usable by hand: $VM_AGENT vm2 COMMAND...)
#   VM_HOSTS  "vm1 vm2", the guests' host names
# The token is drawn for each run and lives in the run folder (mode 600);
# vm2 is powered off when vm1's command ends.
#
#   test/verbs/vm.sh [options] [--] command [args...]
#     --pair          two guests, the command on vm1 (see above)
#     --link tcp|udp  how their segment is carried between the QEMUs: a TCP
#                     stream (default, lossless) or UDP datagrams (lossy
#                     under load: see "two guests" below)
#     --timeout SEC   kill the guest(s) after SEC seconds (default 900)
#     --smp N         guest CPUs (default 2)
#     --mem SIZE      guest memory (default 2G)
#     --workdir DIR   folder shared read-write (default: the repository)
#     --env NAME      pass host variable NAME into the guest (LOOM_*, BUILD and
#                     LOOM_TOP are always passed); repeatable
#     --console       show the guest console (kernel and init messages) live
#     --prepare       only install packages and build kernel + initramfs
#     --refresh       resolve the newest Debian kernel again
#
# The command runs in the current directory (which must be inside the work
# folder). Exit status: the command's own, or 124 if the guest timed out,
# 125 if the guest died (panic, crash) before reporting a status (with
# --pair: or vm2 died while vm1 ran), 126 if the guest could not be
# prepared, 128+N if this script got signal N (INT, TERM, HUP). QEMU runs
# under nice -n 19; on every way out the guests are killed.
#
# Cache: build/verbs-vm/<kernel version>/ holds vmlinux and the initramfs;
# it is rebuilt when this script changes. Runs live in build/verbs-vm/run/.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${LOOM_VM_CACHE:-$top/build/verbs-vm}
timeout_s=900
smp=2
mem=2G
workdir=$top
show_console=0
prepare_only=0
refresh=0
pair=0
link=tcp
pass_env=(BUILD LOOM_TOP)

readonly RC_TIMEOUT=124 RC_DIED=125 RC_PREPARE=126
readonly AGENT_PORT=7070
readonly PKGS=(qemu-system-x86 busybox-static xz-utils ibverbs-providers ibverbs-utils
               rdmacm-utils perftest iproute2)
# Kernel modules for soft-RoCE, virtio networking and 9p; their dependencies
# are added from modules.dep. crc32_generic is not autoloaded, and without it
# `rdma link add` fails ("failed to init crc32 algorithm err:-2").
readonly MODULES=(crc32_generic rdma_rxe ib_uverbs rdma_ucm ib_umad virtio_pci
                  virtio_net 9pnet_virtio 9p)

die() { echo "vm.sh: $*" >&2; [[ -n ${rundir:-} ]] && rm -rf "$rundir"; exit $RC_PREPARE; }
say() { echo "vm.sh: $*" >&2; }

while (($#)); do
    case $1 in
        --pair) pair=1; shift ;;
        --link) link=$2; shift 2
                [[ $link == tcp || $link == udp ]] || die "--link takes tcp or udp, not $link" ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --smp) smp=$2; shift 2 ;;
        --mem) mem=$2; shift 2 ;;
        --workdir) workdir=$(cd "$2" && pwd) || die "no folder $2"; shift 2 ;;
        --env) pass_env+=("$2"); shift 2 ;;
        --console) show_console=1; shift ;;
        --prepare) prepare_only=1; shift ;;
        --refresh) refresh=1; shift ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) break ;;
    esac
done
((prepare_only || $# > 0)) || die "no command given (see --help)"

# ---- host packages -------------------------------------------------------------
install_packages() {
    local missing=() p
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    if [[ $(id -u) -ne 0 ]]; then
        die "missing packages ${missing[*]}; as root run: apt-get install -y ${missing[*]}"
    fi
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 ||
        { apt-get update -qq >&2 &&
          apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; } ||
        die "apt-get install ${missing[*]} failed"
}

# ---- kernel: Debian's package, extracted, never installed ------------------------
apt_download() {   # apt_download PKG (into the current folder)
    apt-get download "$1" >/dev/null 2>&1 && return 0
    apt-get update -qq >&2 && apt-get download "$1" >&2
}

# Sets kver and kdir; downloads and extracts the kernel package if needed.
fetch_kernel() {
    local meta deb pkg
    mkdir -p "$cache/deb" || die "cannot create $cache"
    if ((refresh == 0)) && [[ -s $cache/kernel-version ]]; then
        kver=$(<"$cache/kernel-version")
        kdir=$cache/$kver
        [[ -f $kdir/vmlinux && -d $kdir/root/lib/modules/$kver ]] && return 0
    fi
    (cd "$cache/deb" && rm -f linux-image-amd64_*.deb && apt_download linux-image-amd64) ||
        die "apt-get download linux-image-amd64 failed"
    meta=$(ls "$cache"/deb/linux-image-amd64_*.deb | head -n1)
    pkg=$(dpkg-deb -f "$meta" Depends | tr ',' '\n' | grep -o 'linux-image-[0-9][^ ]*' | head -n1)
    [[ -n $pkg ]] || die "cannot find the kernel package in the Depends of $meta"
    kver=${pkg#linux-image-}
    kdir=$cache/$kver
    if [[ ! -d $kdir/root/lib/modules/$kver ]]; then
        say "fetching $pkg"
        (cd "$cache/deb" && apt_download "$pkg") || die "apt-get download $pkg failed"
        deb=$(ls "$cache/deb/${pkg}"_*.deb | head -n1)
        rm -rf "$kdir" && mkdir -p "$kdir/root"
        dpkg-deb -x "$deb" "$kdir/root" || die "dpkg-deb -x $deb failed"
        rm -f "$deb"
    fi
    extract_vmlinux
    echo "$kver" >"$cache/kernel-version"
}

# Booting the ELF vmlinux (PVH entry) instead of the compressed bzImage saves
# about 10 s of decompression under TCG.
extract_vmlinux() {
    local vmlinuz=$kdir/root/boot/vmlinuz-$kver off
    [[ -f $kdir/vmlinux ]] && return 0
    [[ -f $vmlinuz ]] || die "no $vmlinuz in the kernel package"
    off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$vmlinuz" | head -n1 | cut -d: -f1)
    [[ -n $off ]] || die "no xz stream in $vmlinuz"
    tail -c +$((off + 1)) "$vmlinuz" | xz -dc >"$kdir/vmlinux.tmp" 2>/dev/null
    [[ $(head -c 4 "$kdir/vmlinux.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]] ||
        die "extracted vmlinux is not an ELF file"
    mv "$kdir/vmlinux.tmp" "$kdir/vmlinux"
}

# ---- initramfs ---------------------------------------------------------------------
# Prints the module files (relative to lib/modules/KVER) to load, in order.
module_closure() {
    local mdir=$1 m want=() seen=" " order=()
    local -A dep=()
    local line key val
    while IFS= read -r line; do
        key=${line%%:*}; val=${line#*:}
        dep[$(basename "$key" | sed 's/\.ko.*//; s/-/_/g')]="$key:$val"
    done <"$mdir/modules.dep"
    visit() {
        local name=$1 entry file d
        [[ $seen == *" $name "* ]] && return 0
        seen+="$name "
        entry=${dep[$name]:-}
        [[ -n $entry ]] || { say "module $name not in modules.dep (built in?)"; return 0; }
        file=${entry%%:*}
        for d in ${entry#*:}; do
            visit "$(basename "$d" | sed 's/\.ko.*//; s/-/_/g')"
        done
        order+=("$file")
    }
    for m in "${MODULES[@]}"; do visit "$m"; done
    printf '%s\n' "${order[@]}"
}

write_init() {
    cat >"$1" <<'INIT'
#!/bb/sh
# Guest init: mounts, modules, 9p shares, network and rxe0, then the command.
export PATH=/bb
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
ln -s /proc/self/fd /dev/fd
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=755 tmpfs /var
mkdir -p /var/tmp /var/run /run/lock && chmod 1777 /var/tmp
# Load every module before /usr is mounted: the mount hides usr/lib/modules.
while read -r m; do
    insmod "/modules/$m" || echo "init: insmod $m failed"
done </modules/order
arg() { sed -n "s/.*$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
run=$(arg loom.run)
work=$(arg loom.work)
name=$(arg loom.host)
addr=$(arg loom.addr)
opts=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $opts,ro,cache=loose hostusr /usr || echo "init: mounting /usr failed"
mount -t 9p -o $opts,ro,cache=loose hostetc /etc || echo "init: mounting /etc failed"
mkdir -p "$work"
mount -t 9p -o $opts work "$work" || echo "init: mounting $work failed"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/bb
hostname "${name:-loomvm}"
ip link set lo up
ip addr add "${addr:-10.0.2.15}/24" dev eth0
ip link set eth0 mtu 9000 up
rdma link add rxe0 type rxe netdev eth0 || echo "init: rdma link add failed"
rundir=${run%/*}
if [ -n "$run" ] && [ -f "$run" ]; then
    HOME=/root TMPDIR=/tmp /usr/bin/bash "$run" >"$rundir/output" 2>&1 </dev/null
    echo $? >"$rundir/status.tmp" && mv "$rundir/status.tmp" "$rundir/status"
else
    echo "init: no command file ($run)"
fi
sync
poweroff -f
INIT
    chmod 755 "$1"
}

# (runs of this script in parallel each stage their own and rename the result
# into place, so a rebuild never hands a guest a half-written initramfs)
build_initramfs() {
    local mdir=$kdir/root/lib/modules/$kver out=$kdir/initrd.cpio.gz
    local stage=$kdir/stage.$$ f a
    [[ -f $out && $out -nt $0 ]] && return 0
    say "building the initramfs for $kver"
    [[ -f $mdir/modules.dep ]] || busybox depmod -b "$kdir/root" "$kver" ||
        die "depmod failed"
    rm -rf "$stage" && mkdir -p "$stage"/{bb,modules,proc,sys,dev,tmp,run,var,usr,etc,root}
    # merged-/usr layout: host /usr has absolute symlinks into /usr/lib etc.
    ln -s usr/bin "$stage/bin"; ln -s usr/sbin "$stage/sbin"
    ln -s usr/lib "$stage/lib"; ln -s usr/lib64 "$stage/lib64"
    cp /bin/busybox "$stage/bb/busybox" || die "busybox-static is missing"
    for a in $(busybox --list); do
        # a link named busybox pointing to itself makes /init fail with ELOOP
        [[ $a == busybox ]] || ln -s busybox "$stage/bb/$a"
    done
    : >"$stage/modules/order"
    for f in $(module_closure "$mdir"); do
        case $f in
            *.xz) xz -dc "$mdir/$f" >"$stage/modules/$(basename "${f%.xz}")" ;;
            *) cp "$mdir/$f" "$stage/modules/" ;;
        esac
        basename "${f%.xz}" >>"$stage/modules/order"
    done
    write_init "$stage/init"
    (cd "$stage" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null | gzip -1) \
        >"$out.tmp.$$" || die "packing the initramfs failed"
    mv "$out.tmp.$$" "$out"
    rm -rf "$stage"
}

prepare() {
    install_packages
    fetch_kernel
    build_initramfs
}

# ---- one run -----------------------------------------------------------------------
t_start=0      # when the first guest started
cmd_env=()     # NAME=value pairs exported to the command besides pass_env
cmd_prologue=  # shell lines run before the command
guests=()      # pids of the running guests (their `timeout`), for stop_guests

write_command() {   # write_command FILE ARGS...
    local file=$1 v; shift
    {
        echo "# generated by vm.sh"
        echo "export PATH=$(printf '%q' "$PATH")"
        for v in "${pass_env[@]}" $(compgen -e | grep '^LOOM_' || true); do
            [[ -n ${!v+x} ]] && echo "export $v=$(printf '%q' "${!v}")"
        done
        for v in "${cmd_env[@]}"; do
            echo "export ${v%%=*}=$(printf '%q' "${v#*=}")"
        done
        echo "cd $(printf '%q' "$PWD") || exit 127"
        [[ -n $cmd_prologue ]] && echo "$cmd_prologue"
        printf '%q ' "$@"
        echo
    } >"$file"
}

# start_guest DIR NAME ADDR MAC NETDEV: boot a guest in the background that
# runs DIR/cmd.sh as host NAME at ADDR; its pid (timeout's) in $started.
# no_timer_check: a vCPU starved on a loaded host (TCG, nice 19) can miss
# the kernel's boot-time IO-APIC timer test, which then panics ("IO-APIC +
# timer doesn't work!", seen on a loaded 2-core machine); virtual machines
# commonly skip that test.
start_guest() {
    local dir=$1 name=$2 addr=$3 mac=$4 netdev=$5
    local share=security_model=none,readonly=on,multidevs=remap
    : >"$dir/output"
    ((${#guests[@]})) || t_start=$SECONDS
    nice -n 19 timeout -k 10 "$timeout_s" qemu-system-x86_64 \
        -accel tcg,thread=multi -cpu max -smp "$smp" -m "$mem" \
        -nographic -no-reboot -serial "file:$dir/console" -monitor none \
        -kernel "$kdir/vmlinux" -initrd "$kdir/initrd.cpio.gz" \
        -append "console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check loom.run=$dir/cmd.sh loom.work=$workdir loom.host=$name loom.addr=$addr" \
        -netdev "$netdev" -device "virtio-net-pci,netdev=n0,mac=$mac,romfile=" \
        -virtfs "local,path=/usr,mount_tag=hostusr,$share" \
        -virtfs "local,path=/etc,mount_tag=hostetc,$share" \
        -virtfs "local,path=$workdir,mount_tag=work,security_model=none,multidevs=remap" \
        </dev/null >"$dir/qemu.log" 2>&1 9>&- &
    started=$!
    guests+=("$started")
    if ((show_console)); then
        tail -n +1 -F --pid="$started" "$dir/console" 2>/dev/null 9>&- |
            sed "s/\r\$//; s/^/$name| /" >&2 9>&- &
    fi
}

# Kill every guest still running (all ways out of the script come here).
stop_guests() {
    local p
    for p in "${guests[@]}"; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in "${guests[@]}"; do
        wait "$p" 2>/dev/null
    done
    guests=()
}

# guest_status DIR NAME QEMU_RC: the command's exit status if the guest
# reported one, else 124 (timed out) or 125 (died) with its last console lines.
guest_status() {
    local dir=$1 name=$2 rc=$3
    if [[ -s $dir/status ]]; then
        return "$(<"$dir/status")"
    fi
    # (timeout's own status, or 137 from its -k; a guest killed from
    # outside also ends with 137, but before the time is up)
    if ((rc == 124 || (rc == 137 && SECONDS - t_start >= timeout_s))); then
        say "$name timed out after ${timeout_s}s; last console lines:"
        rc=$RC_TIMEOUT
    else
        say "$name died (qemu exit $rc) before reporting a status; last console lines:"
        rc=$RC_DIED
    fi
    tail -n 30 "$dir/console" 2>/dev/null | sed 's/\r$//; s/^/  | /' >&2
    tail -n 5 "$dir/qemu.log" 2>/dev/null | sed 's/^/  qemu| /' >&2
    return $rc
}

new_rundir() {
    case $PWD/ in
        "$workdir"/*) ;;
        *) die "the current folder $PWD is not inside the work folder $workdir" ;;
    esac
    case $cache/ in
        "$workdir"/*) ;;
        *) die "the cache $cache is not inside the work folder $workdir (the guests read it)" ;;
    esac
    mkdir -p "$cache/run" || die "cannot create $cache/run"
    rundir=$(mktemp -d "$cache/run/XXXXXX") || die "mktemp failed"
}

run_guest() {
    local qpid rc tpid
    new_rundir
    write_command "$rundir/cmd.sh" "$@"
    start_guest "$rundir" loomvm 10.0.2.15 52:54:00:4c:00:01 user,id=n0,restrict=on
    qpid=$started
    tail -n +1 -F --pid="$qpid" "$rundir/output" 2>/dev/null &
    tpid=$!
    wait "$qpid"
    rc=$?
    guests=()
    wait $tpid 2>/dev/null
    guest_status "$rundir" guest "$rc"
    rc=$?
    if [[ -s $rundir/status ]]; then
        rm -rf "$rundir"
    else
        say "run folder kept: $rundir"
    fi
    return $rc
}

# ---- two guests ------------------------------------------------------------------------
# The pair's Ethernet segment between the two QEMUs (--link):
#   tcp  (default) a stream from vm2's QEMU to vm1's: no frame is lost, as on
#        a RoCE fabric with flow control (PFC), however slow a guest runs
#   udp  datagrams, as in ../shared/notes/softroce-vm.md: when a QEMU falls
#        behind (TCG, nice 19, a loaded host) the host drops them at its
#        socket buffer (UDP RcvbufErrors: a third of them, measured on a
#        loaded 2-core machine), so RC lives on retransmissions; a test of
#        loss recovery, and of the ib transport's stall watchdog
# Either way the segment carries only the two guests' frames.
#
# Ports: a random free pair (port, port+1) on 127.0.0.1. The lock (on
# descriptor 9, which the guests do not inherit) keeps two runs of this
# script from picking the same ports before their QEMUs have taken them
# (QEMU binds with SO_REUSEADDR: a second UDP bind would not fail);
# wait_ports releases it.
pick_ports() {
    local try p
    exec 9>"$cache/run/ports.lock" || die "cannot open $cache/run/ports.lock"
    flock -w 60 9 || die "cannot lock $cache/run/ports.lock"
    for try in $(seq 100); do
        p=$((20000 + (RANDOM % 20000) * 2))
        if [[ -z $(ss -Htuan "( sport = :$p or sport = :$((p + 1)) )" 2>/dev/null) ]]; then
            port1=$p port2=$((p + 1))
            return 0
        fi
    done
    die "no free port pair found for the guests' network"
}

# wait_ports PID STATE N: until ss shows N sockets on our ports in STATE
# (all: any) (or PID ended, or 60 s: a QEMU starts slowly on a loaded host);
# 0 if it did
wait_ports() {
    local pid=$1 state=$2 n=$3 i
    for i in $(seq 600); do
        [[ $(ss -Htuan state "$state" "( sport = :$port1 or sport = :$port2 )" 2>/dev/null |
             wc -l) -ge $n ]] && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Boot vm1 and vm2 on one segment; their pids in pid1, pid2.
start_pair() {
    local vm=$rundir/vm1
    if [[ $link == udp ]]; then
        start_guest "$vm" vm1 10.0.2.15 52:54:00:4c:00:01 \
            "socket,id=n0,udp=127.0.0.1:$port2,localaddr=127.0.0.1:$port1"
        pid1=$started
        start_guest "$rundir/vm2" vm2 10.0.2.16 52:54:00:4c:00:02 \
            "socket,id=n0,udp=127.0.0.1:$port1,localaddr=127.0.0.1:$port2"
        pid2=$started
        wait_ports "$pid2" all 2
    else
        # vm1's QEMU listens, vm2's connects (it gives up if nobody listens yet)
        start_guest "$vm" vm1 10.0.2.15 52:54:00:4c:00:01 "socket,id=n0,listen=127.0.0.1:$port1"
        pid1=$started
        wait_ports "$pid1" listening 1 ||
            say "vm1's QEMU is not listening on port $port1 (vm2 will not connect)"
        start_guest "$rundir/vm2" vm2 10.0.2.16 52:54:00:4c:00:02 \
            "socket,id=n0,connect=127.0.0.1:$port1"
        pid2=$started
        wait_ports "$pid2" established 1
    fi
    exec 9>&-
}

run_pair() {
    local agent=$BUILD/test/verbs/prog_vm_agent pid1 pid2 tpid which rc rc2
    [[ $agent == /* ]] || agent=$top/$agent
    [[ -x $agent ]] || die "no launch agent $agent (build it: make BUILD=$BUILD tests)"
    new_rundir
    mkdir -p "$rundir/vm1" "$rundir/vm2"
    (umask 077 && head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$rundir/token") ||
        die "cannot write the agent token"
    printf 'vm1 10.0.2.15\nvm2 10.0.2.16\n' >"$rundir/hosts"
    cmd_env=("VM_AGENT=$agent --port $AGENT_PORT --token-file $rundir/token --hosts $rundir/hosts"
             "VM_HOSTS=vm1 vm2")
    # vm2 boots alongside: the command starts once its agent answers (2 min at most)
    cmd_prologue='for _ in $(seq 120); do $VM_AGENT vm2 true 2>/dev/null && break; sleep 1; done'
    write_command "$rundir/vm1/cmd.sh" "$@"
    cmd_env=() cmd_prologue=
    write_command "$rundir/vm2/cmd.sh" "$agent" --serve 10.0.2.16 --port "$AGENT_PORT" \
        --token-file "$rundir/token"
    pick_ports
    start_pair
    tail -n +1 -F --pid="$pid1" "$rundir/vm1/output" 2>/dev/null &
    tpid=$!
    wait -n -p which "$pid1" "$pid2"
    rc=$?
    if [[ $which == "$pid2" ]]; then
        # vm2 (its agent) must outlive vm1's command
        guest_status "$rundir/vm2" vm2 "$rc"
        say "vm2 ended (status $?) while vm1 was still running; stopping vm1"
        stop_guests
        rc=$RC_DIED
    else
        guest_status "$rundir/vm1" vm1 "$rc"
        rc=$?
        stop_guests
    fi
    wait $tpid 2>/dev/null
    if ((rc != 0)); then
        say "vm2's launch agent log (last lines):"
        tail -n 20 "$rundir/vm2/output" 2>/dev/null | sed 's/^/  vm2| /' >&2
    fi
    if [[ -s $rundir/vm1/status ]]; then
        rm -rf "$rundir"
    else
        say "run folder kept: $rundir"
    fi
    return $rc
}

# Stopped from outside: the guests go, and the run folder with them.
on_signal() {
    stop_guests
    [[ -n ${rundir:-} ]] && rm -rf "$rundir"
    exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP
trap stop_guests EXIT
prepare
((prepare_only)) && exit 0
if ((pair)); then
    run_pair "$@"
else
    run_guest "$@"
fi
exit $?
