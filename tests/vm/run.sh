#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/vm/run.sh - run a command inside a QEMU VM that boots another kernel
# (the kernel oracle: by default Debian's linux-image-6.12-amd64, which has
# SEG6, SEG6 HMAC, VRF and dummy), on this machine's own root filesystem:
#
#   tests/vm/run.sh [CMD [ARG...]]      (default CMD: "uname -a")
#   tests/vm/run.sh --probe             exit 0 when a VM could start (QEMU,
#                                        busybox-static, a kernel), else 255
#                                        and the reason on stderr
#
# The guest sees the host's / read-only over virtio-9p, tmpfs on /tmp, /run,
# /var/tmp, /root, /var/log and /dev/shm, and this work tree (the git top of
# the current directory, or the directory itself) on its own path, read-only
# unless VM_RW=1.  CMD runs as root in the current directory, its stdout and
# stderr are this script's, and its exit status is this script's (255 when
# the VM died before the command ended, 124 on VM_TIMEOUT).
#
# Environment:
#   KERNEL      the kernel image (bzImage/vmlinuz); default: the Debian
#               package that tests/vm/kernel.sh unpacked
#   MODULES     its module tree: a directory D with D/lib/modules/VERSION
#               (make modules_install INSTALL_MOD_PATH=D); default: the
#               package's; "none" for a kernel with everything built in
#   VM_MEM      guest memory in MiB (4096)     VM_CPUS  vCPUs (nproc)
#   VM_ACCEL    QEMU accelerator (kvm when qemu can reset a -cpu host VM
#               under KVM, else tcg)
#   VM_TCG_THREAD  TCG's threading (single): multi runs each vCPU on a host
#               thread of its own, but there the stock 6.12 has oopsed on a
#               stale int3 of its own text patching (below)
#   VM_TIMEOUT  seconds before the VM is killed (3600)
#   VM_CONSOLE  file for the kernel's console (dmesg as it happens);
#               default: discarded unless the guest dies early, then shown
#   VM_ENV      names of further environment variables to pass in (the
#               suite's own: CI STRICT BUILD SAN CHECK_* SRV6D_* KEEP_TMP
#               FUZZ_SECONDS NET_TIMEOUT UNIT_TIMEOUT go always)
#   VM_APPEND   more kernel command line
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -gt 0 ] || set -- uname -a
PROBE=
[ "$1" = --probe ] && PROBE=1

die() { echo "tests/vm/run.sh: $*" >&2; exit 255; }
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
BUSYBOX=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
file -L "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' ||
	ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic' || die "$BUSYBOX is not static (busybox-static)"

if [ -z "${KERNEL:-}" ]; then
	kenv=$("$HERE/kernel.sh" env 2>/dev/null) || die "no kernel: set KERNEL= or run tests/vm/kernel.sh ensure"
	eval "$kenv"
fi
[ -r "$KERNEL" ] || die "KERNEL=$KERNEL: not readable"
MODULES=${MODULES:-}
[ "$MODULES" = none ] && MODULES=
if [ -n "$MODULES" ]; then
	MODULES=$(cd "$MODULES" && pwd) || die "MODULES=$MODULES: no such directory"
	kver=$(ls "$MODULES/lib/modules" 2>/dev/null | head -1)
	[ -n "$kver" ] || die "MODULES=$MODULES has no lib/modules/VERSION"
	[ -f "$MODULES/lib/modules/$kver/modules.dep" ] || depmod -b "$MODULES" "$kver" ||
		die "depmod -b $MODULES $kver failed"
fi

[ -n "$PROBE" ] && exit 0

WORK=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
IO=$(mktemp -d /tmp/srv6d-vm.XXXXXX)
cleanup() {
	[ -n "${QPID:-}" ] && kill -KILL "$QPID" 2>/dev/null
	[ -n "${tpid:-}" ] && kill "$tpid" 2>/dev/null
	rm -rf "$IO"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# ---- the initramfs: static busybox, the 9p modules, /init ------------------
R=$IO/initramfs
mkdir -p "$R/bin" "$R/modules"
cp "$BUSYBOX" "$R/bin/busybox"
ln -s busybox "$R/bin/sh"
cp "$HERE/init" "$R/init"; chmod +x "$R/init"
echo "$HERE/guest.sh" >"$R/guest"
if [ -n "$MODULES" ]; then
	md="$MODULES/lib/modules/$kver"
	# 9p and what it needs, dependencies first (modules.dep lists them)
	for m in 9pnet_virtio 9p; do
		dep=$(awk -v m="$m" -F: '{n=$1; sub(".*/", "", n); sub(/\.ko.*/, "", n)} n == m {print $1 " " $2}' "$md/modules.dep")
		# modules.dep lists a module's dependencies last-loaded-first
		echo $dep | tr ' ' '\n' | tac
	done | awk '!seen[$0]++' | while read -r f; do
		b=$(basename "$f"); b=${b%.xz}; b=${b%.zst}; b=${b%.gz}
		case "$f" in
		*.xz) xz -dc "$md/$f" >"$R/modules/$b" ;;
		*.zst) zstd -qdc "$md/$f" >"$R/modules/$b" ;;
		*.gz) gzip -dc "$md/$f" >"$R/modules/$b" ;;
		*) cp "$md/$f" "$R/modules/$b" ;;
		esac
		echo "$b" >>"$R/modules/order"
	done
fi
(set -o pipefail; cd "$R" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null | gzip -1) >"$IO/initramfs.gz" || die "cannot build the initramfs"
rm -rf "$R"

# ---- the accelerator -------------------------------------------------------
if [ -z "${VM_ACCEL:-}" ]; then
	VM_ACCEL=tcg
	# /dev/kvm may open, and even create a VM, where KVM cannot run a vCPU
	# (nested virtualization that refuses the host CPU's MSRs: qemu aborts
	# with "failed to set MSR"). The test is qemu itself: a stopped machine
	# with the VM's own -cpu host, reset (where the MSRs are set), then quit
	# over QMP. Exit 0 means KVM works; anything else falls back to TCG.
	# (a subshell, so that the shell's own "Aborted" notice goes to /dev/null)
	if [ -w /dev/kvm ] && (printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"quit"}' |
		timeout 30 qemu-system-x86_64 -accel kvm -cpu host -machine pc -nodefaults \
			-display none -no-reboot -S -monitor none -serial none -qmp stdio) >/dev/null 2>&1; then
		VM_ACCEL=kvm
	else
		if [ -e /dev/kvm ]; then
			echo "# vm: /dev/kvm is there but KVM cannot run a vCPU here: TCG" >&2
		fi
	fi
fi
case "$VM_ACCEL" in
kvm) cpu=host ;;
# TCG: one host thread runs every vCPU in turn, unless VM_TCG_THREAD=multi.
# With multi-threaded TCG the stock 6.12 oopsed twice in the suite's runs at
# a static key's patch site, on an int3 the kernel had already patched away
# (RIP one byte into the instruction: "int3" in sched_clock_cpu at boot, in
# ttwu_do_activate 1474 s into CI's oracle run, a panic in interrupt).  The likely
# cause (not proven): QEMU 7.2's translated code on one vCPU outliving
# another vCPU's write to the kernel's text, which a single thread cannot
# race; neither oops has been seen single-threaded.  It costs little: the
# oracle suite took 1720 s single (beside another VM) against 1476 s multi,
# and test_firewall + test_nhctx 75 s against 67-71 s.  The guest keeps its
# vCPUs (VM_CPUS), interleaved by QEMU.
tcg,*) cpu=${VM_CPU:-max} ;;     # the caller's own TCG options, as given
*)
	cpu=${VM_CPU:-max}
	case "${VM_TCG_THREAD:-single}" in
	single | multi) VM_ACCEL=tcg,thread=${VM_TCG_THREAD:-single} ;;
	*) die "VM_TCG_THREAD=$VM_TCG_THREAD: single or multi" ;;
	esac ;;
esac

# ---- the command, the variables the guest reads ----------------------------
{
	echo "VM_WORK=$(printf %q "$WORK")"
	echo "VM_CWD=$(printf %q "$PWD")"
	echo "VM_MODROOT=$(printf %q "$MODULES")"
	echo "VM_RW=${VM_RW:+1}"
} >"$IO/vars"
{
	for v in CI STRICT BUILD SAN KEEP_TMP FUZZ_SECONDS NET_TIMEOUT UNIT_TIMEOUT ${VM_ENV:-} \
		$(compgen -e | grep -E '^(CHECK_|SRV6D_)'); do
		[ -n "${!v+x}" ] && echo "export $v=$(printf %q "${!v}")"
	done
	# emulated: every polled wait of the tests (tests/net/lib.sh
	# wait_until) may take this many times longer
	case "$VM_ACCEL" in tcg*) echo "export WAIT_SCALE=${WAIT_SCALE:-5}" ;; esac
	printf 'exec'; printf ' %q' "$@"; echo
} >"$IO/cmd"

# ---- QEMU ------------------------------------------------------------------
console=${VM_CONSOLE:-$IO/console.log}
fs() { # TAG PATH [ro]
	echo "-fsdev local,id=$1,path=$2,security_model=none,multidevs=remap${3:+,readonly=on}"
	echo "-device virtio-9p-pci,fsdev=$1,mount_tag=$1"
}
# vm_boot: one boot of the guest, the command's run in it; qrc: qemu's exit
vm_boot() {
	# shellcheck disable=SC2046
	qemu-system-x86_64 -name srv6d-vm -machine pc -accel "$VM_ACCEL" -cpu "$cpu" \
		-smp "${VM_CPUS:-$(nproc)}" -m "${VM_MEM:-4096}" -no-reboot -nodefaults -display none \
		-kernel "$KERNEL" -initrd "$IO/initramfs.gz" \
		-append "console=ttyS0 panic=-1 oops=panic quiet loglevel=4 mitigations=off ${VM_APPEND:-}" \
		-serial "file:$console" \
		-device virtio-serial-pci -chardev stdio,id=out,signal=off -device virtconsole,chardev=out \
		$(fs hostroot / ro) $(fs io "$IO") $(fs work "$WORK" $([ -n "${VM_RW:-}" ] || echo ro)) \
		-device virtio-rng-pci -nic none </dev/null &
	QPID=$!
	# the watchdog holds none of our descriptors (a pipe reading this script's
	# output would wait for its sleep) and takes its sleep with it
	(
		exec </dev/null >/dev/null 2>&1
		s=
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "${VM_TIMEOUT:-3600}" & s=$!
		wait $s && : >"$IO/timeout" && kill -TERM "$QPID"
	) & tpid=$!
	wait "$QPID"; qrc=$?
	QPID=
	kill "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
}
vm_boot
# A guest kernel that oopses or panics before the command starts (guest.sh's
# "started" marker) is booted once more: under multi-threaded TCG the stock
# 6.12 kernel has been seen to oops at boot (int3 in sched_clock_cpu, 2.5 s
# in, the text patching of a static key), which is the emulator's, not the
# command's.  Nothing else is retried (qemu failing to start, a guest
# that stops without a kernel report).  The first boot's report is printed
# on stderr and, with VM_CONSOLE, kept as VM_CONSOLE.boot1
# (tools/debug-kernel/run-oracle.sh searches it too: on a debug kernel a
# boot-time report still fails the run).
if [ ! -s "$IO/rc" ] && [ ! -e "$IO/started" ] && [ ! -e "$IO/timeout" ] &&
	grep -qE 'Oops:|Kernel panic|BUG:' "$console" 2>/dev/null; then
	echo "# vm: the guest kernel died before the command started (qemu exit $qrc): booting once more;" \
		"its console's report:" >&2
	grep -m1 -A12 -E 'Oops:|Kernel panic|BUG:' "$console" | tr -d '\r' | sed 's/^/#   /' >&2
	cp "$console" "$console.boot1" 2>/dev/null
	vm_boot
fi
if [ -s "$IO/rc" ]; then
	exit "$(cat "$IO/rc")"
fi
if [ -e "$IO/timeout" ]; then
	echo "tests/vm/run.sh: the VM ran out of VM_TIMEOUT=${VM_TIMEOUT:-3600} s" >&2; rc=124
else
	echo "tests/vm/run.sh: the VM ended (qemu exit $qrc) before the command did" >&2; rc=255
fi
[ -z "${VM_CONSOLE:-}" ] && { echo "# its console, last lines:" >&2; tail -40 "$console" | sed 's/^/#   /' >&2; }
exit $rc
