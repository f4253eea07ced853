#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_priority.sh - skb priority on re-entry (issue 8, item 7): what the
# reinjection harness records, and the kernel fact that decides what an
# injected result carries.
#
#   +---------------------------------------------------------------+      +---------------+
#   | rtr                                                       eth1 +------+ eth0 dst      |
#   |  a UDP socket -> 2001:db8:2::2                                 |      | 2001:db8:2::2 |
#   |    mangle OUTPUT: CLASSIFY --set-class 1:5 (priority 0x10005)  |      +---------------+
#   |    mangle POSTROUTING: NFQUEUE 20 (`queue 20 policy accept`)   |
#   |  mk0 +--+ mk1 (veth, both ends in rtr): an AF_PACKET sender on |
#   |    mk0 with SO_PRIORITY 0x10006; mangle PREROUTING -i mk1:     |
#   |    NFQUEUE 21 (`queue 21 policy accept`)                       |
#   +---------------------------------------------------------------+
#
#   1. a policy queue records each packet's skb priority (NFQA_PRIORITY):
#      0x10005 for the classified packet, 0 for one sent without;
#   2. a veth crossing zeroes skb->priority (the kernel's
#      __dev_forward_skb2): 0x10006 sent on mk0 is 0 at mk1.  srv6d's
#      injected results cross the srv6d0 veth, so they leave with priority
#      0, whatever the original had (docs/ARCHITECTURE.md, "What changes on
#      re-entry"); a verdict hands the same skb back and keeps it.  If this
#      check ever fails, the kernel changed and injection could carry
#      priority with an SO_PRIORITY control message.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d --srv6ctl
ip -n "$NS_RTR" link add mk0 type veth peer name mk1
ip -n "$NS_RTR" link set mk0 up
ip -n "$NS_RTR" link set mk1 up
SOCK=$TMPD/srv6d.sock
ctl() { in_rtr timeout 20 "$SRV6CTL" -S "$SOCK" "$@"; }

in_rtr ip6tables -t mangle -A OUTPUT -d "$DST_ADDR" -p udp --dport 9 -j CLASSIFY --set-class 1:5
in_rtr ip6tables -t mangle -A POSTROUTING -d "$DST_ADDR" -p udp -j NFQUEUE --queue-num 20
in_rtr ip6tables -t mangle -A PREROUTING -i mk1 -d ff02::1 -p udp -j NFQUEUE --queue-num 21
printf 'queue 0\nsteer none\ncontrol-socket %s\nqueue 20 policy accept\nqueue 21 policy accept\n' \
	"$SOCK" >"$TMPD/srv6d.conf"
conf_extra >>"$TMPD/srv6d.conf"
if ! srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" ||
   ! wait_until 5 test -S "$SOCK"; then
	fail "srv6d started"; summary; exit 1
fi

# recorded Q N: "PRIORITY" of the Nth packet queue Q recorded (hex), once
# it has N
recorded() {
	ctl -j queue show "$1" | "$PY" -c 'import json, sys
r = json.load(sys.stdin)[0]["recent"]
n = int(sys.argv[1])
sys.exit(1) if len(r) < n else print(hex(r[n - 1]["priority"]))' "$2"
}

udp() { # PORT: one datagram from rtr to dst
	in_rtr "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.sendto(b"x", (sys.argv[1], int(sys.argv[2])))' "$DST_ADDR" "$1"
}
udp 9
udp 10
wait_until 5 recorded 20 2 >/dev/null
check "a policy queue records skb priority 0x10005 (CLASSIFY 1:5)" \
	[ "$(recorded 20 1)" = 0x10005 ]
check "a policy queue records priority 0 for an unclassified packet" \
	[ "$(recorded 20 2)" = 0x0 ]

MK1_MAC=$(mac_of "$NS_RTR" mk1)
in_rtr "$PY" - "$MK1_MAC" <<'PYEOF'
import socket, struct, sys
from scapy.all import Ether, IPv6, UDP, raw
f = Ether(dst=sys.argv[1]) / IPv6(src="fe80::1", dst="ff02::1") / UDP(sport=7, dport=7) / b"p"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, 0x10006)
s.bind(("mk0", 0))
s.send(raw(f))
PYEOF
if wait_until 5 recorded 21 1 >/dev/null; then
	check "a veth crossing zeroes skb priority (0x10006 sent on mk0, $(recorded 21 1) at mk1)" \
		[ "$(recorded 21 1)" = 0x0 ]
else
	fail "the frame sent on mk0 reached queue 21"
fi
srv6d_stop || fail "srv6d exited 0"
summary
