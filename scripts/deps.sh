#!/bin/sh
# Install the Debian packages srv6d needs to build, test and run, when they are
# missing.  As root it runs apt-get; otherwise it prints the exact command.
# (QEMU, busybox-static, kmod, xz/zstd and file boot the kernel-oracle VM of
# the tests, tests/vm/; its kernel, Debian's linux-image-6.12-amd64 unpacked
# into /var/cache/srv6d-vm, is fetched by the test suite when this kernel
# lacks SEG6: tests/vm/kernel.sh ensure.)
set -eu
PKGS="build-essential pkg-config clang libclang-rt-14-dev
libnetfilter-queue-dev libmnl-dev libnl-3-dev libnl-route-3-dev
liburcu-dev libcmocka-dev libssl-dev
iproute2 iptables python3-scapy tcpdump procps gdb strace frr
dpkg-dev debhelper mandoc
qemu-system-x86 busybox-static kmod xz-utils zstd file"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "srv6d: missing packages; run as root:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "srv6d: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# frr is for the FPM test's real zebra, which the test starts in a namespace:
# its package must not start the daemons in this machine's own namespace
norc=
case " $missing " in *" frr "*)
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		norc=1
	fi ;;
esac
rc=0
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing || rc=$?
[ -z "$norc" ] || rm -f /usr/sbin/policy-rc.d
exit $rc
