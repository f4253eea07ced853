#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_capture.sh - what srv6d's steering may capture (issue 8, item 2, its
# safety part): a policy is a kernel route, so it never takes the router's
# own addresses, link-local or multicast destinations (ND, MLD), and a more
# specific route wins over it (test_lpm.sh compares with the kernel); SID
# prefixes that hold the router's addresses, or are over-broad, are refused.
#
#   +---------------+      +--------------------------------------------+      +---------------+
#   | src           |      | rtr                                        |      | dst           |
#   |          eth0 +------+ eth0 2001:db8:1::2          2001:db8:2::1 eth1 +---+ eth0 capture |
#   | 2001:db8:1::1 |      |   route ::/0 encap seg6 mode encap          |      |               |
#   | (no static    |      |         segs 2001:db8:aa::1                |      +---------------+
#   |  neighbour:   |      |   (the kernel: local and link-local routes |
#   |  ND to rtr)   |      |    win over a ::/0 seg6 route)             |
#   +---------------+      +--------------------------------------------+
#
# Before: with the ::/0 policy rtr answered no ping to its own address (its
# Echo Requests were encapsulated toward aa::1), nor ND.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d

CONF=$TMPD/srv6d.conf
{
	printf 'queue 0\nsteer auto\n'
	printf 'route ::/0 encap seg6 mode encap segs 2001:db8:aa::1\n'
	conf_extra
} >"$CONF"


if srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log"; then
	n=$(pings6 "$NS_SRC" $RTR_ADDR_SRC)
	check "route ::/0: rtr answers a ping to its own address (${n:-0} of 2)" test "${n:-0}" -eq 2
	n=$(pings6 "$NS_SRC" $RTR_ADDR_DST)
	check "route ::/0: ... and to its address on the far link (${n:-0} of 2)" test "${n:-0}" -eq 2
	ll=$(ip -n "$NS_RTR" -6 addr show dev "$RTR_IF_SRC" scope link | awk '/inet6/ {sub("/.*", "", $2); print $2}')
	n=$(pings6 "$NS_SRC" "$ll%eth0")
	check "route ::/0: rtr answers a ping to its link-local address (${n:-0} of 2)" test "${n:-0}" -eq 2
	# ND: src forgets rtr's address; reaching it again needs a solicitation
	# to rtr's solicited-node multicast address and rtr's advertisement
	ip -n "$NS_SRC" neigh del $RTR_ADDR_SRC dev eth0
	n=$(pings6 "$NS_SRC" $RTR_ADDR_SRC)
	st=$(ip -n "$NS_SRC" neigh show $RTR_ADDR_SRC dev eth0)
	check "route ::/0: ND to rtr works (${n:-0} of 2; neighbour: $st)" test "${n:-0}" -eq 2
	# transit to 2001:db8:99::: the kernel's more specific 2001:db8::/32
	# carries it in clear, as it would beside a kernel ::/0 seg6 route
	out=$(pkt_to_dst send --case policy-encap | awk '$1 == "RX" {print substr($4, 49, 32)}')
	n=$(grep -c '^20010db800990000000000000000000[12]$' <<<"$out")
	check "route ::/0: transit to 2001:db8:99:: takes the more specific 2001:db8::/32 in clear ($n of 2)" \
		test "$n" -eq 2
	# without it, ::/0 wins; the result (outer DA aa::1, inside ::/0 too)
	# is not encapsulated a second time: its underlay route is more specific
	ip -n "$NS_RTR" -6 route del 2001:db8::/32
	ip -n "$NS_RTR" -6 route add 2001:db8:aa::/48 via $DST_ADDR dev "$RTR_IF_DST"
	out=$(pkt_to_dst send --case policy-encap | awk '$1 == "RX" {print substr($4, 49, 32)}')
	n=$(grep -c '^20010db800aa00000000000000000001$' <<<"$out")
	check "route ::/0 wins: transit traffic is encapsulated once, toward aa::1 ($n of 2)" test "$n" -eq 2
	srv6d_stats
	n=$(counter ::/0 packets); e=$(counter ::/0 errors)
	check "route ::/0: ... counted once each ($n packets, $e errors)" test "$n" -eq 2 -a "$e" -eq 0
	check "route ::/0: no policy rule at raw PREROUTING (the FIB decides)" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q -- '-d ::/0'"
	ip -n "$NS_RTR" -6 route del 2001:db8:aa::/48
	ip -n "$NS_RTR" -6 route add 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST"
	srv6d_stop
else
	fail "srv6d starts with route ::/0"
fi

# SID prefixes: the router's own addresses, over-broad ones
printf 'queue 0\nsteer auto\nsid 2001:db8:1::/64 action End\n' >"$TMPD/own.conf"
if srv6d_start "$TMPD/own.conf" "$TMPD/stats" "$TMPD/own.log"; then
	fail "a SID prefix holding rtr's address is refused"
	srv6d_stop
else
	check "a SID prefix holding rtr's address is refused" \
		grep -q 'SID prefix 2001:db8:1::/64 holds 2001:db8:1::2, an address of this router' \
		"$TMPD/own.log"
fi
n=$(pings6 "$NS_SRC" $RTR_ADDR_SRC)
check "... and rtr still answers its address (${n:-0} of 2)" test "${n:-0}" -eq 2
printf 'queue 0\nsid ::/0 action End\n' >"$TMPD/broad.conf"
out=$(in_rtr "$SRV6D" -n -c "$TMPD/broad.conf" 2>&1)
check "sid ::/0 is refused as over-broad" grep -q 'SID prefix "::/0" is over-broad' <<<"$out"
summary
