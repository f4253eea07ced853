#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_lpm.sh - headend policies are routes (issue 8, item 2): srv6d's
# `route PREFIX encap seg6 ...` has the kernel's `ip route PREFIX encap seg6`
# semantics, compared byte for byte with the kernel's own route in the same
# topology, in `egress verdict` and `egress inject` runs.
#
#   +---------------+      +--------------------------------------------+      +---------------+
#   | src           |      | rtr                                        |      | dst           |
#   |          eth0 +------+ eth0 2001:db8:1::2          2001:db8:2::1 eth1 +---+ eth0 capture  |
#   | 2001:db8:1::1 |      |  policy 2001:db8::/32 encap segs aa::1,aa::2 |      | 2001:db8:2::2 |
#   | 10.0.1.1      |      |  (a) kernel: ip route ... encap seg6 dev eth1|      | 10.0.2.2      |
#   +---------------+      |  (b) srv6d: route 2001:db8::/32 ...          |      +---------------+
#                          |  more specific: 2001:db8:2::/64 (connected), |
#                          |  2001:db8:aa::/48 via dst (underlay)         |
#                          |  IPv4: policy 10.0.0.0/8, 10.0.2.0/24 conn.  |
#                          +--------------------------------------------+
#
# For each side the same inputs: Echo Requests forwarded from src to
# 2001:db8:99::1 (the policy wins) and to 2001:db8:2::2 (the connected /64
# wins: not encapsulated), UDP datagrams rtr itself sends to the same two
# (router-originated traffic is encapsulated too), and the IPv4 equivalents.
# What dst receives must be identical, hop limits and TTLs included.  rtr
# still answers its own address.  Before: srv6d took every packet to the
# prefix at raw PREROUTING (the connected /64 too) and never saw rtr's own.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d

# the topology of the policy-route tests (lib.sh): 2001:db8::/32 gives way
# to the policy, the segments keep a more specific underlay route; IPv4
lpm_setup
# side OUT: forwarded then router-originated, IPv6 then IPv4; one "RX hex"
# line each, in that order (--each: a packet's result is awaited before the
# next is sent, so a late one keeps its place)
side() {
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" \
		--hex $FWD6 >"$1.fwd6"
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --rtr-ns "$NS_RTR" \
		--udp $RTR_ADDR_DST 2001:db8:99::5 4321 5000 64 \
		--udp $RTR_ADDR_DST $DST_ADDR 4322 5000 64 >"$1.loc6"
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" \
		--hex $FWD4 >"$1.fwd4"
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --rtr-ns "$NS_RTR" \
		--udp 10.0.2.1 10.9.9.5 4321 5000 64 \
		--udp 10.0.2.1 10.0.2.2 4322 5000 64 >"$1.loc4"
}
# outer FILE N: the outer destination (or "v4 DST") of packet N of FILE
outer() {
	awk -v n="$2" '$1 == "RX" && ++i == n {print $2}' "$1" | "$PY" -c '
import sys, ipaddress
h = sys.stdin.read().strip()
b = bytes.fromhex(h) if h else b""
if not b: print("none")
elif b[0] >> 4 == 6: print(ipaddress.IPv6Address(b[24:40]), "hlim", b[7])
else: print(ipaddress.IPv4Address(b[16:20]), "ttl", b[8])'
}

# noid HEX: the packet with the identification of its (inner) IPv4 header
# set to 0 and the header checksum moved by as much (a wrong one stays
# wrong): rtr's stack picks the ID of its own datagrams per send (random),
# the encapsulation never changes it
noid() {
	"$PY" - "$1" <<'PYEOF'
import sys
b = bytearray(bytes.fromhex(sys.argv[1]))
off = 0
if b and b[0] >> 4 == 6 and b[6] == 43:
    off = 40 + (b[41] + 1) * 8
if len(b) >= off + 20 and b[off] >> 4 == 4:
    c = (b[off + 10] << 8 | b[off + 11]) + (b[off + 4] << 8 | b[off + 5])
    c = (c & 0xffff) + (c >> 16)
    b[off + 4:off + 6] = b"\0\0"
    b[off + 10:off + 12] = bytes((c >> 8, c & 0xff))
print(b.hex())
PYEOF
}


# ---- (a) the kernel ----
# (without seg6 encap in the kernel there is no oracle: the checks of (a)
# and the byte comparisons of (b) are skipped, srv6d's results are still
# checked against the outer headers the oracle must show)
KR6="2001:db8::/32 encap seg6 mode encap segs $SEGS dev $RTR_IF_DST"
KR4="10.0.0.0/8 encap seg6 mode encap segs $SEGS dev $RTR_IF_DST"
KCHECKS=("kernel: forwarded to 99::1 encapsulated" "kernel: forwarded to 2::2 (connected /64) not"
	"kernel: rtr's own datagram to 99::5 encapsulated" "kernel: IPv4 forwarded to 10.9.9.1 encapsulated")
if kfeat seg6encap; then
	err6=$(ip -n "$NS_RTR" -6 route add $KR6 2>&1) || fail "kernel: ip -6 route add $KR6" "$err6"
	err4=$(ip -n "$NS_RTR" route add $KR4 2>&1) || fail "kernel: ip route add $KR4" "$err4"
	side "$TMPD/kernel"
	err6=$(ip -n "$NS_RTR" -6 route del $KR6 2>&1) || fail "kernel: ip -6 route del $KR6" "$err6"
	err4=$(ip -n "$NS_RTR" route del $KR4 2>&1) || fail "kernel: ip route del $KR4" "$err4"
	# the oracle itself: the policy encapsulates, the more specific route does not
	check "${KCHECKS[0]} ($(outer "$TMPD/kernel.fwd6" 1))" \
		grep -q '^2001:db8:aa::1 hlim 63$' <<<"$(outer "$TMPD/kernel.fwd6" 1)"
	check "${KCHECKS[1]} ($(outer "$TMPD/kernel.fwd6" 2))" \
		grep -q '^2001:db8:2::2 hlim 63$' <<<"$(outer "$TMPD/kernel.fwd6" 2)"
	check "${KCHECKS[2]} ($(outer "$TMPD/kernel.loc6" 1))" \
		grep -q '^2001:db8:aa::1 hlim 64$' <<<"$(outer "$TMPD/kernel.loc6" 1)"
	check "${KCHECKS[3]} ($(outer "$TMPD/kernel.fwd4" 1))" \
		grep -q '^2001:db8:aa::1 ' <<<"$(outer "$TMPD/kernel.fwd4" 1)"
else
	for c in "${KCHECKS[@]}"; do needs "$c" seg6encap; done
fi

# ---- (b) srv6d, both egress modes ----
for mode in verdict inject; do
	conf=$TMPD/srv6d.$mode.conf
	{
		printf 'queue 0-1\nsteer auto\negress %s\nencap-source %s\n' "$mode" "$TUNSRC"
		printf 'route 2001:db8::/32 encap seg6 mode encap segs %s\n' "$SEGS"
		printf 'route 10.0.0.0/8 encap seg6 mode encap segs %s\n' "$SEGS"
		conf_extra
	} >"$conf"
	if ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.$mode.log"; then
		fail "srv6d starts (egress $mode)"
		continue
	fi
	r=$(ip -n "$NS_RTR" -6 route show proto 109 2001:db8::/32)
	check "egress $mode: the policy is a kernel route through srv6d's device ($r)" \
		grep -q '^2001:db8::/32 dev srv6d0 metric 1024' <<<"$r"
	side "$TMPD/srv6d.$mode"
	for f in fwd6 loc6 fwd4 loc4; do
		for n in 1 2; do
			# what: the input; want: the outer header dst must see (the
			# oracle's, checked without it too)
			case $f$n in
			fwd61) what="forwarded to the policy (2001:db8:99::1)" want="2001:db8:aa::1 hlim 63" ;;
			fwd62) what="forwarded to a more specific connected route (2::2)" want="2001:db8:2::2 hlim 63" ;;
			loc61) what="rtr's own datagram to the policy (99::5)" want="2001:db8:aa::1 hlim 64" ;;
			loc62) what="rtr's own datagram to the connected route (2::2)" want="2001:db8:2::2 hlim 64" ;;
			fwd41) what="IPv4 forwarded to the policy (10.9.9.1)" want="2001:db8:aa::1 hlim 63" ;;
			fwd42) what="IPv4 forwarded to the connected 10.0.2.0/24" want="10.0.2.2 ttl 63" ;;
			loc41) what="IPv4 rtr's own datagram to the policy (10.9.9.5)" want="2001:db8:aa::1 hlim 64" ;;
			loc42) what="IPv4 rtr's own datagram to the connected 10.0.2.2" want="10.0.2.2 ttl 64" ;;
			esac
			o=$(outer "$TMPD/srv6d.$mode.$f" $n)
			check "egress $mode: $what reaches dst as $want ($o)" test "$o" = "$want"
			needs "egress $mode: $what byte-identical to kernel" seg6encap || continue
			exp=$(awk -v n=$n '$1 == "RX" && ++i == n {print $2}' "$TMPD/kernel.$f")
			got=$(awk -v n=$n '$1 == "RX" && ++i == n {print $2}' "$TMPD/srv6d.$mode.$f")
			if [ "$f" = loc4 ]; then
				exp=$(noid "$exp") got=$(noid "$got")
			fi
			if [ -n "$exp" ] && [ "$exp" = "$got" ]; then
				ok "egress $mode: $what byte-identical to kernel ($(outer "$TMPD/srv6d.$mode.$f" $n))"
			else
				fail "egress $mode: $what byte-identical to kernel" \
					"kernel: $(outer "$TMPD/kernel.$f" $n)" "srv6d:  $(outer "$TMPD/srv6d.$mode.$f" $n)" \
					"kernel: $exp" "srv6d:  $got" "$(hexdiff "$exp" "$got")"
			fi
		done
	done
	n=$(pings6 "$NS_SRC" $RTR_ADDR_DST)
	check "egress $mode: rtr answers a ping to its own address (local wins; ${n:-0} of 2)" \
		test "${n:-0}" -eq 2
	srv6d_stats
	n=$(counter 2001:db8::/32 packets); e=$(counter 2001:db8::/32 errors)
	check "egress $mode: the IPv6 policy counted the forwarded and the local packet ($n packets, $e errors)" \
		test "$n" -eq 2 -a "$e" -eq 0
	if [ "$mode" = inject ]; then
		# a reload without the IPv6 policy: its route and its capture go
		grep -v '^route 2001:db8::/32' "$conf" >"$conf.new" && mv "$conf.new" "$conf"
		kill -HUP "$SRV6D_PID"
		v6gone() { [ -z "$(ip -n "$NS_RTR" -6 route show proto 109 2001:db8::/32)" ]; }
		check "reload without the IPv6 policy: its route is removed" wait_until 10 v6gone
		check "... and the IPv6 mangle chain with it, the IPv4 one stays" \
			bash -c "! ip netns exec $NS_RTR ip6tables -t mangle -S | grep -q SRV6D &&
				ip netns exec $NS_RTR iptables -t mangle -S | grep -q -- '-o srv6d0 -j NFQUEUE'"
	fi
	srv6d_stop
	r=$(ip -n "$NS_RTR" -6 route show proto 109 2001:db8::/32; ip -n "$NS_RTR" route show proto 109)
	check "egress $mode: the routes are gone with srv6d ($r)" test -z "$r"
done

# ---- (d) a result routed back to its own policy is a bounded loop ----
# With the segments' underlay route gone, 2001:db8:aa::1 falls in the
# policy's own 2001:db8::/32: the result comes back to srv6d0 and would be
# encapsulated again and again (each pass gets its hop back, as the
# kernel's nested seg6 input does not decrement either).  srv6d drops it at
# the 9th level, as the kernel drops at its lwtunnel recursion limit (8),
# counted as the drop reason "loop"; nothing reaches dst.
ip -n "$NS_RTR" -6 route del 2001:db8:aa::/48
{
	printf 'queue 0\nsteer auto\negress inject\nencap-source %s\n' "$TUNSRC"
	printf 'route 2001:db8::/32 encap seg6 mode encap segs %s\n' "$SEGS"
	conf_extra
} >"$TMPD/loop.conf"
if srv6d_start "$TMPD/loop.conf" "$TMPD/stats" "$TMPD/loop.log"; then
	in_src "$PY" - "$RTR_MAC_SRC" <<'PYEOF' 2>/dev/null
import sys
from scapy.all import Ether, IPv6, ICMPv6EchoRequest, sendp
sendp(Ether(dst=sys.argv[1]) / IPv6(src="2001:db8:1::1", dst="2001:db8:99::1", hlim=64) /
      ICMPv6EchoRequest(id=9, seq=1), iface="eth0", verbose=False)
PYEOF
	looped() { srv6d_stats; [ "$(counter 2001:db8::/32 loop)" -ge 1 ]; }
	wait_until 5 looped
	srv6d_stats
	n=$(counter 2001:db8::/32 packets) l=$(counter 2001:db8::/32 loop)
	check "a result routed back to its policy: encapsulated 8 times, the 9th pass dropped as \"loop\" ($n encapsulations, loop $l)" \
		[ "$n/$l" = "8/1" ]
	check "... and srv6d is still running" srv6d_alive
	srv6d_stop
else
	fail "srv6d starts (loop)"
fi
ip -n "$NS_RTR" -6 route add 2001:db8:aa::/48 via $DST_ADDR dev "$RTR_IF_DST"

# ---- (c) the policy's metric against the operator's own route ----
# A route line is `ip route add`: without `metric` it gets the kernel's
# default (IPv6 1024), and an operator's route of the same prefix and metric
# is a conflict named at start (the kernel's EEXIST), never taken over nor
# silently shadowed; `metric N` picks the policy's place.
ip -n "$NS_RTR" -6 route add 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST"
mconf() { # METRIC-WORDS: a conf with the IPv6 policy only
	printf 'queue 0\nsteer auto\negress inject\nencap-source %s\n' "$TUNSRC"
	printf 'route 2001:db8::/32 encap seg6 mode encap segs %s%s\n' "$SEGS" "$1"
	conf_extra
}
mconf "" >"$TMPD/m0.conf"
ip netns exec "$NS_RTR" timeout 20 "$SRV6D" -f -c "$TMPD/m0.conf" -s "$TMPD/m0.stats" \
	>"$TMPD/m0.log" 2>&1
rc=$?
check "a foreign route of the prefix at the default metric 1024: srv6d refuses to start (rc $rc) naming it" \
	bash -c "[ $rc -ne 0 ] && grep -q 'already has a route for 2001:db8::/32 at metric 1024' '$TMPD/m0.log'"
check "... and leaves the operator's route alone" \
	bash -c "ip -n $NS_RTR -6 route show 2001:db8::/32 | grep -q 'via $DST_ADDR'"
via() { ip -n "$NS_RTR" -6 route get 2001:db8:99::1 | grep -o 'dev [^ ]*'; }
mconf " metric 100" >"$TMPD/m1.conf"
if srv6d_start "$TMPD/m1.conf" "$TMPD/m1.stats" "$TMPD/m1.log"; then
	check "metric 100: the policy's route wins over the operator's at 1024 ($(via))" \
		[ "$(via)" = "dev srv6d0" ]
	check "... and srv6d warns about nothing" bash -c "! grep -q 'wins over the policy' '$TMPD/m1.log'"
	# a reload to the default metric collides with the operator's route:
	# refused before anything changes, the running policy keeps its route
	mconf "" >"$TMPD/m1.conf"
	kill -HUP "$SRV6D_PID"
	refused() { grep -q 'reload: line .*already has a route.*keeping the running' "$TMPD/m1.log"; }
	check "a reload colliding with the operator's route is refused, the running conf kept" \
		wait_until 10 refused
	check "... and the policy's route at 100 stays ($(via))" [ "$(via)" = "dev srv6d0" ]
	srv6d_stop
else
	fail "srv6d starts with metric 100"
fi
mconf " metric 2000" >"$TMPD/m2.conf"
if srv6d_start "$TMPD/m2.conf" "$TMPD/m2.stats" "$TMPD/m2.log"; then
	check "metric 2000: the operator's route at 1024 keeps the prefix ($(via))" \
		[ "$(via)" = "dev $RTR_IF_DST" ]
	check "... and srv6d says the policy carries nothing while it exists" \
		grep -q 'the better metric 1024 wins over the policy' "$TMPD/m2.log"
	srv6d_stop
else
	fail "srv6d starts with metric 2000"
fi
summary
