#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_firewall.sh - srv6d under a stock stateful ruleset: what a firewall
# sees when a result re-enters the kernel (docs/ARCHITECTURE.md, "What a
# firewall sees on re-entry").
#
#   +---------------+      +--------------------------------------+      +---------------+
#   | src           |      | rtr: FORWARD policy DROP,            |      | dst           |
#   |          eth0 +------+ eth0  ESTABLISHED,RELATED accepted,  eth1 +---+ eth0       |
#   | 2001:db8:1::1 |      |       -i eth0 -o eth1 accepted       |      |  capture      |
#   +---------------+      |       (the underlay)                 |      +---------------+
#                          | End 2001:db8:ff::1 -> 2001:db8:aa::1 |
#                          +--------------------------------------+
#
#   kernel seg6local End        forwarded: input interface eth0 (skipped on a
#                               kernel without seg6local)
#   srv6d, egress verdict       forwarded: the verdict keeps the input interface
#   srv6d, egress inject        dropped by the FORWARD policy: the result's input
#                               interface is srv6d0 ...
#   ... with -i srv6d0 -o eth1  forwarded: the one rule operators add for injection
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
EG="$LIB_DIR/egress.py"

test_begin
S=$RTR_IF_SRC D=$RTR_IF_DST
in_rtr ip6tables -P FORWARD DROP
in_rtr ip6tables -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
in_rtr ip6tables -A FORWARD -i "$S" -o "$D" -j ACCEPT

# arrived: how many End results (destination 2001:db8:aa::1) reach dst; the
# packet itself, not rewritten, would be forwarded to dst too (the underlay
# routes 2001:db8:ff::1 there), so it does not count.
arrived() { "$PY" "$EG" send --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" \
		--case fw-end --timeout 2 --expect 1 |
		awk '$1 == "RX" && substr($5, 49, 32) == "20010db800aa00000000000000000001"' | wc -l; }
# ended: how many packets srv6d's End has processed
ended() { srv6d_stats; counter 2001:db8:ff::1 packets; }

if needs "kernel End passes the stock ruleset" seg6local; then
	if ip -n "$NS_RTR" -6 route add 2001:db8:ff::1 encap seg6local action End dev "$D"; then
		n=$(arrived)
		check "kernel End passes the stock ruleset ($n of 1)" test "$n" -eq 1
		ip -n "$NS_RTR" -6 route del 2001:db8:ff::1
	else
		fail "kernel End passes the stock ruleset" \
			"ip -6 route add 2001:db8:ff::1 encap seg6local action End dev $D failed"
	fi
fi

for eg in verdict inject; do
	printf 'queue 0\nsteer auto\negress %s\nsid 2001:db8:ff::1 action End\n' "$eg" >"$TMPD/$eg.conf"
	if ! srv6d_start "$TMPD/$eg.conf" "$TMPD/stats.$eg" "$TMPD/$eg.log"; then
		fail "srv6d starts (egress $eg)"; continue
	fi
	n=$(arrived); e=$(ended)
	if [ "$eg" = verdict ]; then
		check "egress verdict passes the stock ruleset, input interface $S ($n of 1, End packets $e)" \
			test "$n" -eq 1 -a "$e" -eq 1
	else
		check "egress inject: the FORWARD policy drops it, input interface srv6d0 ($n of 1, End packets $e)" \
			test "$n" -eq 0 -a "$e" -eq 1
		in_rtr ip6tables -I FORWARD 2 -i srv6d0 -o "$D" -j ACCEPT
		n=$(arrived); e=$(ended)
		check "egress inject passes with -i srv6d0 -o $D added ($n of 1, End packets $e)" \
			test "$n" -eq 1 -a "$e" -eq 2
		in_rtr ip6tables -D FORWARD -i srv6d0 -o "$D" -j ACCEPT
	fi
	srv6d_stop
done
summary
