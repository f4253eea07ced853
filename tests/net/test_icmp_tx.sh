#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_icmp_tx.sh - ICMPv6 answers sent by srv6d (src/datapath/icmp_tx.c),
# driven by tests/net/tools/icmp_tool.c in rtr, captured in src:
#
#   +-------------+        +------------------------------+        +-------------+
#   | src         |        | rtr                          |        | dst         |
#   |        eth0 +--------+ eth0                    eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | 2001:db8:1::2   2001:db8:2::1|        | 2001:db8:2::2/64
#   +-------------+        +------------------------------+        +-------------+
#    AF_PACKET capture      icmp_tool: invoking packet 2001:db8:1::1 -> SID
#    + scapy decode         2001:db8:ff::1 (NOT an address of rtr); the answer
#                           must come from the SID (IPV6_FREEBIND)
#
# Checks: Parameter Problem (type 4, pointer) and Echo Reply arrive from the
# non-local SID with a correct checksum (recomputed by scapy) and the right
# quote; the kernel's rate limits: 6-message per-destination burst, errors
# suppressed with icmp_msgs_per_sec 0, Echo Replies and types outside
# net.ipv6.icmp.ratemask never limited; unanswerable input refused.
set -u
source "$(dirname "$0")/lib.sh"

TOOL="$BUILD/tests/net/icmp_tool"
SID=2001:db8:ff::1
test_begin --built "$TOOL"

cat >"$TMPD/cap.py" <<'EOF'
import socket, sys, time
from scapy.layers.l2 import Ether
from scapy.layers.inet6 import IPv6, in6_chksum
ETH_P_ALL = 3
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind(("eth0", 0))
s.settimeout(0.1)
print("ready", flush=True)
# what arrived within the window; frames still queued on the socket at its
# end are read too (parsing them may lag behind on a loaded machine)
end = time.time() + float(sys.argv[1])
while True:
    try:
        data, addr = s.recvfrom(65535)
    except socket.timeout:
        if time.time() >= end:
            break
        continue
    if time.time() >= end + 5:
        break
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    e = Ether(data)
    if IPv6 not in e or e[IPv6].nh != 58:
        continue
    ip = e[IPv6]
    icmp = bytearray(bytes(ip.payload))
    if icmp[0] in (133, 134, 135, 136, 143):
        continue
    got = bytes(icmp[2:4])
    icmp[2:4] = b"\0\0"
    calc = in6_chksum(58, ip, bytes(icmp))
    ok = int.from_bytes(got, "big") == calc
    print("IC %s %s %d %d %s %s tc=%d %s" % (ip.src, ip.dst, icmp[0], icmp[1], icmp[4:8].hex(),
          "csum-ok" if ok else "csum-bad", ip.tc, bytes(icmp[8:]).hex()), flush=True)
EOF

# capture SECONDS CMD...: run CMD in rtr while capturing in src; the tool's
# output goes to $TMPD/tool, the capture to $TMPD/cap.
capture() {
	local secs=$1; shift
	# emptied here, not by the background job's own redirection: that one
	# may come late, and the last capture's "ready" would then be waited on
	: >"$TMPD/cap"
	in_src "$PY" "$TMPD/cap.py" "$secs" >>"$TMPD/cap" 2>&1 &
	local pid=$!
	wait_until 10 grep -q ready "$TMPD/cap"
	in_rtr "$@" >"$TMPD/tool" 2>&1
	wait "$pid"
}
ncap() { grep -c "^IC $SID $SRC_ADDR $1 " "$TMPD/cap"; }

check "the SID is not a local address of rtr" \
	bash -c "! ip netns exec $NS_RTR ip -6 addr show | grep -q '$SID'"

# ---- Parameter Problem from a non-local SID ----
capture 1.5 "$TOOL" $SRC_ADDR $SID 4 0 40 1
check "icmp_tool: 1 Parameter Problem sent ($(cat "$TMPD/tool"))" grep -qx "sent 1 limited 0 error 0" "$TMPD/tool"
line=$(grep "^IC " "$TMPD/cap" | head -1)
read -r _ s d ty co ptr cs tc quote <<<"$line"
check "PP arrives at src from the SID $SID ($s -> $d)" test "${s:-}" = $SID -a "${d:-}" = $SRC_ADDR
check "PP type 4 code 0 pointer 40 ($ty/$co/$ptr)" test "${ty:-}/${co:-}/${ptr:-}" = "4/0/00000028"
check "PP checksum is correct (scapy recomputed)" test "${cs:-}" = csum-ok
check "PP has traffic class 0 ($tc)" test "${tc:-}" = tc=0
check "PP quotes the invoking packet (IPv6 header src -> SID, UDP)" \
	test "${quote:0:16}" = "6000000000281140" -a "${quote:16:32}" = "20010db8000100000000000000000001" \
	-a "${quote:48:32}" = "20010db800ff00000000000000000001" -a "${#quote}" -eq $(( (40 + 40) * 2 ))

# ---- Echo Reply ----
capture 1.5 "$TOOL" $SRC_ADDR $SID 129 0 0 1 0 0xb8
line=$(grep "^IC " "$TMPD/cap" | head -1)
read -r _ s d ty co idseq cs tc data <<<"$line"
check "Echo Reply from the SID, type 129, id 0x1234 seq 7 ($s $ty $idseq)" \
	test "${s:-}/${ty:-}/${idseq:-}" = "$SID/129/12340007"
check "Echo Reply checksum is correct" test "${cs:-}" = csum-ok
check "Echo Reply keeps the request's traffic class 0xb8 ($tc)" test "${tc:-}" = tc=184
check "Echo Reply echoes the data" test "${data:-}" = "$(printf 'abcdefghijklmnopqrstuvwxyzabcdef' | od -An -tx1 | tr -d ' \n')"

# ---- rate limits (the kernel's: ratelimit 1000 ms, route /64 -> 250 ms, burst 6) ----
in_rtr sysctl -qw net.ipv6.icmp.ratelimit=1000
capture 1.5 "$TOOL" $SRC_ADDR $SID 4 0 40 20
check "per-destination burst: 20 errors back to back -> 6 sent, 14 limited ($(cat "$TMPD/tool"))" \
	grep -qx "sent 6 limited 14 error 0" "$TMPD/tool"
check "exactly 6 Parameter Problems arrive ($(ncap 4))" test "$(ncap 4)" -eq 6
# the per-destination timeout depends on the route to the destination, as
# in icmpv6_xrlim_allow(): /64 -> 1000 >> 2 = 250 ms, a /128 -> 1000 ms
out=$(in_rtr "$TOOL" $SRC_ADDR $SID 4 0 40 20+2@320)
check "route /64: 320 ms after the burst one more error is allowed ($out)" \
	test "$out" = "sent 7 limited 15 error 0"
in_rtr ip -6 route add $SRC_ADDR/128 dev "$RTR_IF_SRC"
out=$(in_rtr "$TOOL" $SRC_ADDR $SID 4 0 40 20+2@320)
check "route /128: 320 ms after the burst still limited ($out)" \
	test "$out" = "sent 6 limited 16 error 0"
in_rtr ip -6 route del $SRC_ADDR/128 dev "$RTR_IF_SRC"
out=$(in_rtr "$TOOL" $RTR_ADDR_SRC $SID 4 0 40 20)
check "local destination (loopback route): not limited ($out)" \
	test "$out" = "sent 20 limited 0 error 0"
capture 1.5 "$TOOL" $SRC_ADDR $SID 129 0 0 200
check "Echo Replies are not rate limited: 200 sent ($(cat "$TMPD/tool"))" \
	grep -qx "sent 200 limited 0 error 0" "$TMPD/tool"
check "200 Echo Replies arrive ($(ncap 129))" test "$(ncap 129)" -eq 200
in_rtr sysctl -qw net.ipv4.icmp_msgs_per_sec=0
capture 1 "$TOOL" $SRC_ADDR $SID 4 0 40 10
check "icmp_msgs_per_sec 0: every error suppressed ($(cat "$TMPD/tool"))" \
	grep -qx "sent 0 limited 10 error 0" "$TMPD/tool"
check "icmp_msgs_per_sec 0: nothing arrives" test "$(ncap 4)" -eq 0
capture 1 "$TOOL" $SRC_ADDR $SID 129 0 0 10
check "icmp_msgs_per_sec 0: Echo Replies still sent ($(cat "$TMPD/tool"))" \
	grep -qx "sent 10 limited 0 error 0" "$TMPD/tool"
in_rtr sysctl -qw net.ipv6.icmp.ratemask=0-1,3-3,5-127
capture 1 "$TOOL" $SRC_ADDR $SID 4 0 40 20
check "type 4 removed from ratemask: 20 of 20 sent ($(cat "$TMPD/tool"))" \
	grep -qx "sent 20 limited 0 error 0" "$TMPD/tool"
in_rtr sysctl -qw net.ipv6.icmp.ratemask=0-1,3-127 net.ipv4.icmp_msgs_per_sec=1000

# ---- refused input ----
out=$(in_rtr "$TOOL" ff02::1 $SID 4 0 40 1)
check "multicast source: not answered, -EINVAL ($out)" test "$out" = "sent 0 limited 0 error 1 EINVAL"
out=$(in_rtr "$TOOL" fe80::99 $SID 4 0 40 1)
check "link-local source without interface: -EINVAL ($out)" test "$out" = "sent 0 limited 0 error 1 EINVAL"
ifi=$(in_rtr cat /sys/class/net/"$RTR_IF_SRC"/ifindex)
out=$(in_rtr "$TOOL" fe80::99 $SID 129 0 0 1 "$ifi")
check "link-local source with the input interface: sent ($out)" test "$out" = "sent 1 limited 0 error 0"

summary
