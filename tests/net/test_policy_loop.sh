#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_policy_loop.sh - a policy's result that routing hands back to srv6d's
# policies (issue 22, item 2): an inline policy whose segment falls in its
# own prefix is a bounded loop, counted as "loop"; legitimate nestings up
# to the bound are not touched.
#
#   +---------------+      +----------------------------------------------+      +---------------+
#   | src           |      | rtr  srv6d, egress inject                    |      | dst           |
#   |          eth0 +------+ eth0 2001:db8:1::2            2001:db8:2::1 eth1 +---+ eth0 capture  |
#   | 2001:db8:1::1 |      | (1) route 2001:db8::/32 inline segs aa::1;   |      | 2001:db8:2::2 |
#   +---------------+      |     no route for 2001:db8:aa::/48: the       |      +---------------+
#                          |     result comes back to the policy          |
#                          | (2) 2001:db8:aa::/48 via dst (underlay);     |
#                          |     8 inline policies 91::/48 -> 92::1 ...   |
#                          |     98::/48 -> aa::1, 8 encap policies       |
#                          |     a1::/48 -> a2::1 ... a8::/48 -> aa::2,   |
#                          |     sid ff::b6 End.B6 srh segs 96::1         |
#                          +----------------------------------------------+
#
# (1) The kernel (6.12, measured: seg6_input / seg6_output run 9 times and
#     the 10th lwtunnel call is refused, "recursion limit reached on
#     datapath") nests seg6 insertions without a hop-limit decrement in
#     between and drops the packet at its lwtunnel recursion limit, without
#     ICMP.  srv6d gives each pass its hop back (the kernel does not
#     decrement either), so only the headers the passes add can end the
#     loop: an insertion adds an SRH, no IP header.  One Echo Request
#     forwarded from src and one datagram rtr sends itself each make at most
#     9 insertions (SRV6_CHAIN_MAX levels shown + a plain packet's first SRH)
#     and one more pass dropped as "loop", never "no-room"; src gets no ICMP;
#     srv6d logs the policy once.  Before the fix: 1,635 passes and
#     "no-room", "loop" 0.
# (2) A chain of 8 inline policies, one of 8 encapsulations (SRV6_CHAIN_MAX)
#     and End.B6 into 3 of the inline policies still deliver, with every
#     header (8 SRHs; 9 IPv6 headers; 5 SRHs), each policy counting its
#     packet, nothing counted as "loop".
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d
lpm_setup

BOUND=9   # insertions a loop may make: SRV6_CHAIN_MAX (8) + the first SRH
# icmp_in NS: ICMPv6 errors NS received
icmp_in() { ip netns exec "$1" nstat -az Icmp6InErrors 2>/dev/null | awk '$1 == "Icmp6InErrors" {print $2 + 0}'; }

# ---- (1) an inline policy whose segment routes back into it ----
ip -n "$NS_RTR" -6 route del 2001:db8:aa::/48
P=2001:db8::/32
{
	printf 'queue 0\nsteer auto\negress inject\nencap-source %s\n' "$TUNSRC"
	printf 'route %s encap seg6 mode inline segs 2001:db8:aa::1\n' $P
	conf_extra
} >"$TMPD/loop.conf"
if srv6d_start "$TMPD/loop.conf" "$TMPD/stats" "$TMPD/loop.log"; then
	looped() { srv6d_stats; [ "$(counter $P loop)" -ge "$1" ]; }
	i0=$(icmp_in "$NS_SRC")
	"$PY" "$LPM" --cap-ns "$NS_DST" --wait 0.2 --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" \
		--hex "$("$PY" "$LPM" --build-fwd 2001:db8:99::1)" >"$TMPD/fwd.rx"
	wait_until 5 looped 1
	srv6d_stats
	n=$(counter $P packets) l=$(counter $P loop) r=$(counter $P no-room)
	check "forwarded: the inline policy inserted at most $BOUND times, the next pass dropped as \"loop\" ($n insertions, loop $l, no-room $r)" \
		test "$n" -ge 2 -a "$n" -le $BOUND -a "$l" -eq 1 -a "$r" -eq 0
	i1=$(icmp_in "$NS_SRC")
	check "forwarded: dropped without ICMP, as the kernel's (src's ICMPv6 errors $i0 -> $i1), nothing at dst" \
		test "$i1" = "$i0" -a ! -s "$TMPD/fwd.rx"
	"$PY" "$LPM" --cap-ns "$NS_DST" --wait 0.2 --rtr-ns "$NS_RTR" \
		--udp $RTR_ADDR_DST 2001:db8:99::5 4321 5000 64 >"$TMPD/loc.rx"
	wait_until 5 looped 2
	srv6d_stats
	n2=$(counter $P packets) l2=$(counter $P loop) r2=$(counter $P no-room)
	check "rtr's own datagram: at most $BOUND insertions, then \"loop\" (+$((n2 - n)) insertions, loop $l2, no-room $r2)" \
		test $((n2 - n)) -ge 2 -a $((n2 - n)) -le $BOUND -a "$l2" -eq 2 -a "$r2" -eq 0
	nl=$(grep -c "policy $P: a result came back to it more than 8 levels deep" "$TMPD/loop.log")
	check "srv6d names the policy in its log, rate limited (lines: $nl for 2 loops)" \
		test "$nl" -ge 1 -a "$nl" -le 2
	check "... and is still running" srv6d_alive
	srv6d_stop
else
	fail "srv6d starts (inline loop)"
fi
ip -n "$NS_RTR" -6 route add 2001:db8:aa::/48 via $DST_ADDR dev "$RTR_IF_DST"

# ---- (2) legitimate nestings up to the bound ----
B6=2001:db8:ff::b6
{
	printf 'queue 0\nsteer auto\negress inject\nencap-source %s\n' "$TUNSRC"
	for i in 1 2 3 4 5 6 7; do
		printf 'route 2001:db8:9%s::/48 encap seg6 mode inline segs 2001:db8:9%s::1\n' $i $((i + 1))
		printf 'route 2001:db8:a%s::/48 encap seg6 mode encap segs 2001:db8:a%s::1\n' $i $((i + 1))
	done
	printf 'route 2001:db8:98::/48 encap seg6 mode inline segs 2001:db8:aa::1\n'
	printf 'route 2001:db8:a8::/48 encap seg6 mode encap segs 2001:db8:aa::2\n'
	printf 'sid %s action End.B6 srh segs 2001:db8:96::1\n' $B6
	conf_extra
} >"$TMPD/chain.conf"
# shape HEX: "DA N-IPv6-headers N-SRHs" of a captured packet
shape() {
	"$PY" - "$1" <<'PYEOF'
import ipaddress, sys
b = bytes.fromhex(sys.argv[1])
ip6 = srh = 0
off, nh = 0, 41
while nh in (41, 43) and off + 8 <= len(b):
    if nh == 41:
        ip6 += 1
        nh, off = b[off + 6], off + 40
    else:
        srh += 1
        nh, off = b[off], off + 8 + b[off + 1] * 8
print(ipaddress.IPv6Address(b[24:40]), ip6, srh)
PYEOF
}
b6pkt=$("$PY" -c '
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, ICMPv6EchoRequest
print(bytes(IPv6(src="2001:db8:1::1", dst="'$B6'", hlim=64) /
            IPv6ExtHdrSegmentRouting(addresses=["2001:db8:99::1", "'$B6'"], segleft=1, lastentry=1) /
            ICMPv6EchoRequest(id=7, seq=1)).hex())')
if srv6d_start "$TMPD/chain.conf" "$TMPD/stats" "$TMPD/chain.log"; then
	# send HEX: src sends it; prints "DA IPv6-headers SRHs" of what dst got
	send() {
		"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.3 --src-ns "$NS_SRC" \
			--dmac "$RTR_MAC_SRC" --hex "$1" | awk '$1 == "RX" {print $2; exit}' >"$TMPD/rx"
		[ -s "$TMPD/rx" ] && shape "$(cat "$TMPD/rx")"
	}
	pk() { local s=0 p; for p in "$@"; do s=$((s + $(counter "$p" packets))); done; echo $s; }
	lo() { local s=0 p; for p in "$@"; do s=$((s + $(counter "$p" loop))); done; echo $s; }
	in8=() en8=()
	for i in 1 2 3 4 5 6 7 8; do in8+=("2001:db8:9$i::/48"); en8+=("2001:db8:a$i::/48"); done
	s1=$(send "$("$PY" "$LPM" --build-fwd 2001:db8:91::5)"); srv6d_stats
	check "8 inline policies in a row: delivered with 8 SRHs (${s1:-nothing}), each policy counted it ($(pk "${in8[@]}") of 8), loop $(lo "${in8[@]}")" \
		test "$s1" = "2001:db8:aa::1 1 8" -a "$(pk "${in8[@]}")" -eq 8 -a "$(lo "${in8[@]}")" -eq 0
	s2=$(send "$("$PY" "$LPM" --build-fwd 2001:db8:a1::5)"); srv6d_stats
	check "8 encapsulations in a row: delivered with 9 IPv6 headers (${s2:-nothing}), each policy counted it ($(pk "${en8[@]}") of 8), loop $(lo "${en8[@]}")" \
		test "$s2" = "2001:db8:aa::2 9 8" -a "$(pk "${en8[@]}")" -eq 8 -a "$(lo "${en8[@]}")" -eq 0
	s3=$(send "$b6pkt"); srv6d_stats
	l3=(2001:db8:96::/48 2001:db8:97::/48 2001:db8:98::/48)
	check "End.B6 into 3 inline policies: delivered with 5 SRHs (${s3:-nothing}; End.B6 $(counter $B6 packets), the 3 policies +$(($(pk "${l3[@]}") - 3)))" \
		test "$s3" = "2001:db8:aa::1 1 5" -a "$(counter $B6 packets)" -eq 1 -a $(($(pk "${l3[@]}") - 3)) -eq 3 \
		-a "$(lo "${in8[@]}" $B6)" -eq 0
	srv6d_stop
	check "srv6d exits 0 (rc=$SRV6D_RC)" test "$SRV6D_RC" -eq 0
else
	fail "srv6d starts (chains)"
fi
summary
