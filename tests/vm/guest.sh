#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Stage 2 of the kernel-oracle VM, PID 1 on the host's root (read-only 9p):
# writable tmpfs where the tests write, the module tree the host unpacked as
# the kernel's modprobe path, then the command tests/vm/run.sh left in the
# io share; its exit status goes back in io/rc, and the VM reboots (QEMU
# runs with -no-reboot: it exits).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 io /mnt 2>/dev/null ||
	mount -t 9p -o trans=virtio,version=9p2000.L io /mnt
IO=/mnt
. "$IO/vars"        # VM_WORK (the tree the command runs in), VM_MODROOT, VM_RW
for d in /tmp /run /var/tmp /root /var/log /dev/shm; do
	mkdir -p "$d" && mount -t tmpfs -o mode=0755 tmpfs "$d"
done
chmod 1777 /tmp /var/tmp /dev/shm
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
# what udev would make: bash's process substitution needs /dev/fd
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
mkdir -p /run/lock
# the io share moves under /run (tmpfs now), the tree goes back on its path
mkdir -p /run/vm-io && mount --move /mnt /run/vm-io && IO=/run/vm-io
mkdir -p "$VM_WORK"
mode=ro; [ -n "$VM_RW" ] && mode=rw
mount -t 9p -o "trans=virtio,version=9p2000.L,msize=524288,$mode" work "$VM_WORK" ||
	echo "vm guest: cannot mount $VM_WORK"
hostname srv6d-vm
ip link set lo up
# the kernel's module autoload (and any modprobe a test runs) use the
# unpacked tree
mkdir -p /run/vm-bin
if [ -n "$VM_MODROOT" ]; then
	printf '#!/bin/sh\nexec /usr/sbin/modprobe -d %s "$@"\n' "$VM_MODROOT" >/run/vm-bin/modprobe
	chmod +x /run/vm-bin/modprobe
	echo /run/vm-bin/modprobe >/proc/sys/kernel/modprobe
	export PATH=/run/vm-bin:$PATH
fi
# the command's output: the virtio console (the host's stdout)
exec </dev/null >/dev/hvc0 2>&1
stty -onlcr 2>/dev/null <&1   # the console's \n stays \n (no \r\n)
echo "# vm: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"

cd "$VM_CWD" 2>/dev/null || cd "$VM_WORK"
: >"$IO/started"    # the host's run.sh: a death before this is the boot's, not the command's
bash "$IO/cmd"
echo $? >"$IO/rc"
sync
echo b >/proc/sysrq-trigger
sleep 10
