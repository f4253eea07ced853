#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_userns.sh - srv6d inside a network namespace owned by an unprivileged
# user namespace (rootless containers, LXC): `unshare --user --map-root-user
# --net`.  On kernels with "netfilter: disable payload mangling in userns"
# every payload change in a verdict is refused there (6.18 here: the same
# End through verdicts is delivered in a netns of the initial user namespace,
# lost in this one): the probe must then pick injection.  The test checks
# that srv6d starts there, that its probe decides and says so, that End works
# end to end through injection (egress inject, and egress auto where the
# probe picks it), and through verdicts where the probe found the kernel
# accepts them; where it found them refused, that srv6d did process the
# packet and the kernel dropped its verdict (End delivered through verdicts
# is then skipped, naming the restriction).  Each srv6d is waited for by its
# "started" line (the probe's own NFQUEUE rule comes earlier), has its own
# control socket and writes its counters at exit.
#
#   one namespace (owned by the user namespace):
#   python --[ in1 ]==veth==[ in0 ]-- srv6d End 2001:db8:ff::1 --[ out0 ]==veth==[ out1 ]-- python
#            2001:db8:1::1/64     2001:db8:1::2        2001:db8:2::1     capture (aa::1 via 2::2)
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --tool unshare --srv6d --no-topo

cat >"$TMPD/inner.sh" <<'INNER'
set -u
SRV6D=$1 TMPD=$2
ip link set lo up
sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip link add in0 type veth peer name in1
ip link add out0 type veth peer name out1
for d in in0 in1 out0 out1; do ip link set "$d" up; done
ip addr add 2001:db8:1::2/64 dev in0 nodad
ip addr add 2001:db8:2::1/64 dev out0 nodad
sysctl -qw net.ipv6.conf.in1.disable_ipv6=1 net.ipv6.conf.out1.disable_ipv6=1
ip neigh replace 2001:db8:2::2 lladdr 02:00:00:00:00:22 dev out0 nud permanent
ip -6 route add 2001:db8::/32 via 2001:db8:2::2 dev out0
for eg in verdict inject auto; do
	printf 'queue 0\nsteer auto\negress %s\ncontrol-socket %s\nsid 2001:db8:ff::1 action End\n' \
		"$eg" "$TMPD/u.$eg.sock" >"$TMPD/u.$eg.conf"
	"$SRV6D" -f -c "$TMPD/u.$eg.conf" -s "$TMPD/u.$eg.stats" >"$TMPD/u.$eg.log" 2>&1 &
	pid=$!
	# up when it says so: egress auto's probe installs an NFQUEUE rule of
	# its own before srv6d steers the SID
	ready=no
	for i in $(seq 200); do grep -q 'started: ' "$TMPD/u.$eg.log" && { ready=yes; break; }; sleep 0.05; done
	echo "READY $eg $ready"
	/usr/bin/python3 - "$eg" <<'PY'
import fcntl, select, socket, struct, sys, time
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, UDP
from scapy.packet import Raw
cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)); cap.bind(("out1", 3)); cap.setblocking(False)
tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0); tx.bind(("in1", 0))
def mac(ifn):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    return fcntl.ioctl(s.fileno(), 0x8927, struct.pack("256s", ifn.encode()))[18:24]
p = bytes(IPv6(src="2001:db8:1::1", dst="2001:db8:ff::1", hlim=30) / IPv6ExtHdrSegmentRouting(
    addresses=["2001:db8:aa::1", "2001:db8:ff::1"], segleft=1, lastentry=1) / UDP(sport=1, dport=2) / Raw(b"userns"))
tx.send(mac("in0") + mac("in1") + b"\x86\xdd" + p)
end = time.monotonic() + 3.0   # ends when the packet comes
ok = False
while time.monotonic() < end and not ok:
    if select.select([cap], [], [], 0.1)[0]:
        f, a = cap.recvfrom(65535)
        if a[2] != 4 and f[12:14] == b"\x86\xdd":
            q = IPv6(f[14:])
            ok = q.dst == "2001:db8:aa::1" and q[IPv6ExtHdrSegmentRouting].segleft == 0 and q.hlim == 29
print("RESULT %s %s" % (sys.argv[1], "delivered" if ok else "lost"))
PY
	kill -TERM "$pid"; wait "$pid"; echo "EXIT $eg $?"
done
INNER

unshare --user --map-root-user --net bash "$TMPD/inner.sh" "$SRV6D" "$TMPD" >"$TMPD/out" 2>&1
# what egress auto's probe found in this netns: accepted, refused (or none)
probe=none
grep -q "(probe: this kernel accepts SRH rewrites" "$TMPD/u.auto.log" && probe=accepted
grep -q "(probe: this kernel dropped a verdict that rewrote the SRH" "$TMPD/u.auto.log" && probe=refused
for eg in verdict inject auto; do
	check "userns netns, egress $eg: srv6d started" grep -q "^READY $eg yes" "$TMPD/out"
	# shellcheck disable=SC2034  # counter's file (lib.sh)
	SRV6D_STATS=$TMPD/u.$eg.stats
	n=$(counter 2001:db8:ff::1 packets)
	if [ "$eg" = verdict ] && [ "$probe" = refused ]; then
		check "userns netns, egress verdict: srv6d processed End ($n), the kernel dropped its rewritten verdict (as the probe found)" \
			eval '[ "$n" -ge 1 ] && grep -q "^RESULT verdict lost" "$TMPD/out"'
		skip "userns netns, egress verdict: End delivered (SL 0, hop limit 29)" \
			"this kernel refuses payload changes in verdicts in a user-namespace-owned netns (egress auto's probe: a verdict that rewrote the SRH was dropped)"
	else
		name="userns netns, egress $eg: End delivered (SL 0, hop limit 29)"
		if grep -q "^RESULT $eg delivered" "$TMPD/out" && [ "$n" -ge 1 ]; then ok "$name"
		else fail "$name" "srv6d processed $n; $(grep "^RESULT $eg " "$TMPD/out")"; fi
	fi
	check "userns netns, egress $eg: srv6d exits 0" grep -q "^EXIT $eg 0" "$TMPD/out"
done
check "userns netns: the probe decided and said why" \
	grep -q "egress: IPv6 results: .*(probe: this kernel" "$TMPD/u.auto.log"
grep -h "egress:" "$TMPD"/u.*.log | sed 's/^/# /'
summary
