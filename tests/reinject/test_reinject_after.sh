#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_after.sh - the packet the kernel's seg6local rewrote, with
# the route seg6local attached to it, queued at IPv6 FORWARD and
# POST_ROUTING (after the behavior: nf_queue() must hold that route with a
# counted reference, skb_dst_force) in srv6d's policy queues
# (docs/REINJECTION.md):
#   1. End, End.X, End.T, End.DT6 with `policy accept` at FORWARD and at
#      POSTROUTING: what dst receives equals the run without the rule, byte
#      for byte
#   2. hold at FORWARD / POSTROUTING, delete the route the behavior used
#      (End.X's nh6 route, End.T's table route), let RCU free it, release:
#      the outcome is asserted (FORWARD: dropped silently, freed in
#      dst_discard_out as the drop monitor (lib.sh) sees it; POSTROUTING:
#      ICMPv6 Packet Too Big with MTU 68 to the source; see the comment
#      below and docs/REINJECTION.md)
#   3. the next hop's neighbour entry deleted (FORWARD, POSTROUTING),
#      flushed, set FAILED (POSTROUTING) while held: resolved again by ND,
#      delivered; deleted with ND unanswered: ICMPv6 Address Unreachable
#   4. hold at FORWARD, the output device goes down: the kernel flushes the
#      entry, srv6d's verdict is counted late
#   5. after each held case rtr's dst/route/neighbour counters are back to
#      their baseline; at the end the namespaces are torn down completely
#      and the kernel log has no WARN/BUG/RCU/refcount line
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src ---- rtr (seg6local SIDs; mangle FORWARD/POSTROUTING -d NEW-DA -j NFQUEUE) ---- dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }
dropmon_start

# the destination each case's packet has after the behavior
newda() { case $1 in end|end-x) echo 2001:db8:2::2 ;; end-t) echo 2001:db8:cc::5 ;; end-dt6) echo 2001:db8:cc::7 ;; esac; }
sidof() { case $1 in end) echo $SID:1 ;; end-x) echo $SID:2 ;; end-t) echo $SID:3 ;; end-dt6) echo $SID:6 ;; esac; }

# ---- 1. accept after the behavior ------------------------------------------
for c in end end-x end-t end-dt6; do
	hook off
	send "$c" dst >"$TMPD/base.$c"
	base=$(rxs "$NS_DST" "$TMPD/base.$c")
	for chain in FORWARD POSTROUTING; do
		hook "$chain" 10 -d "$(newda "$c")"
		q0=$(qget 10 packets) p0=$(sidpkts "$(sidof "$c")")
		send "$c" dst >"$TMPD/hook.$c"
		got=$(rxs "$NS_DST" "$TMPD/hook.$c")
		if [ -n "$base" ] && [ "$base" = "$got" ]; then
			ok "$c: $chain accept: forwarded byte for byte as without the hook"
		else
			fail "$c: $chain accept differs from the run without the hook" "base: $base" "hook: $got"
		fi
		check "$c: $chain: queued once (queue 10), behavior ran once" \
			[ "$(( $(qget 10 packets) - q0 ))/$(( $(sidpkts "$(sidof "$c")") - p0 ))" = 1/1 ]
	done
done
hook off

# ---- 2. hold after the behavior, delete the route it used, release ----------
# neigh6: rtr's entry for dst: "STATE LLADDR" (LLADDR empty if none)
neigh6() { in_rtr ip -6 neigh show $DST_ADDR dev "$RTR_IF_DST" | awk '{print $NF, ($2 == "lladdr" ? $3 : "")}'; }
# held_after CASE CHAIN CMD...: hold CASE's packet at CHAIN, run CMD,
# release; outcome in $TMPD/held, U0/U1 T0/T1, NEIGH_AFTER (the next
# hop's neighbour entry after the release, "STATE [LLADDR]"); then the routes and the
# next hop's neighbour restored and rtr's dst/neighbour counters checked
# against their baseline (kbase/kcheck, lib.sh).  $HOLD_TO: how long the
# capture waits after the release (5 s).
held_after() {
	local c=$1 chain=$2 spid; shift 2
	kbase
	hook "$chain" 11 -d "$(newda "$c")"
	rm -f "$TMPD/released"
	RJ_AFTER=$TMPD/released send "$c" both 1 "${HOLD_TO:-5}" >"$TMPD/held" &
	spid=$!
	wait_until 30 held_is 11 1 || { fail "$c: not held at $chain"; : >"$TMPD/released"; wait $spid; rj_unheld; return 1; }
	"$@"
	rcu_barrier
	U0=$(snmp6 Icmp6OutDestUnreachs) T0=$(snmp6 Icmp6OutPktTooBigs)
	dropmon_mark
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"
	wait $spid
	dropmon_take "$c at $chain"
	U1=$(snmp6 Icmp6OutDestUnreachs) T1=$(snmp6 Icmp6OutPktTooBigs)
	NEIGH_AFTER=$(neigh6)
	hook off
	rj_routes
	ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	kcheck "$c held at $chain ($*)"
}
outcome() {
	echo "dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)" \
	     "icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,)" \
	     "unreach-delta=$((U1 - U0)) ptb-delta=$((T1 - T0))$(ptb_mtu)"
}
# The queued packet keeps a counted reference to its route (skb_dst_force),
# but once the route is deleted and freed, that dst is "put": output
# dst_discard_out, device blackhole_netdev (MTU 68).  On this kernel:
#   FORWARD (okfn ip6_forward_finish -> dst_output): dropped silently
#   POST_ROUTING (okfn ip6_finish_output): the MTU check sees 68 and sends
#     the source an ICMPv6 Packet Too Big with MTU 68
W_FWD="dst=0 src=0 icmp= unreach-delta=0 ptb-delta=0"
W_POST="dst=0 src=1 icmp=2/0 unreach-delta=0 ptb-delta=1 mtu=68"
for chain in FORWARD POSTROUTING; do
	if [ $chain = FORWARD ]; then want=$W_FWD; what="dropped silently"; dmn=1
	else want=$W_POST; what="ICMPv6 Packet Too Big (blackhole_netdev MTU) to src"; dmn=0; fi
	held_after end-x $chain in_rtr ip -6 route del fd00:77::/64
	echo "# End.X held at $chain, nh6 route deleted: $(outcome) ($R)"
	check "End.X held at $chain, nh6 route deleted and freed: $what" [ "$(outcome)" = "$want" ]
	dm_check "End.X held at $chain, nh6 route deleted and freed" "$dmn"
	held_after end-t $chain in_rtr ip -6 route del 2001:db8:cc::/64 table 100
	echo "# End.T held at $chain, table route deleted: $(outcome) ($R)"
	check "End.T held at $chain, table route deleted and freed: $what" [ "$(outcome)" = "$want" ]
	dm_check "End.T held at $chain, table route deleted and freed" "$dmn"
	held_after end-x $chain true
	echo "# End.X held at $chain, nothing changed: $(outcome) ($R)"
	check "End.X held at $chain, route unchanged: delivered" \
		[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0" ]
	dm_check "End.X held at $chain, route unchanged" 0
done

# ---- the next hop's neighbour entry goes away while the packet waits ---------
# resolved: NEIGH_AFTER is an entry ND resolved again (not the permanent one)
resolved() { case $NEIGH_AFTER in "REACHABLE $DST_MAC"|"STALE $DST_MAC"|"DELAY $DST_MAC") return 0 ;; esac; return 1; }
nh_flush() {
	in_rtr ip -6 neigh flush dev "$RTR_IF_DST" nud all
	in_rtr ip -6 neigh show dev "$RTR_IF_DST" >"$TMPD/flushed"
}
nh_failed() {
	in_rtr ip -6 neigh replace $DST_ADDR dev "$RTR_IF_DST" nud failed
	neigh6 >"$TMPD/failed"
}
held_after end-x FORWARD in_rtr ip -6 neigh del $DST_ADDR dev "$RTR_IF_DST"
echo "# End.X held at FORWARD, next hop's neighbour deleted: $(outcome) ($R) neigh after: $NEIGH_AFTER"
check "End.X held at FORWARD, next hop's neighbour deleted: resolved again (ND), delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0" ]

# at POST_ROUTING the okfn (ip6_finish_output2) looks the neighbour up:
# deleted, flushed or FAILED, a new resolution starts, the packet waits
# in the entry's queue and leaves once dst answers
held_after end-x POSTROUTING in_rtr ip -6 neigh del $DST_ADDR dev "$RTR_IF_DST"
echo "# End.X held at POSTROUTING, next hop's neighbour deleted: $(outcome) ($R) neigh after: $NEIGH_AFTER"
check "End.X held at POSTROUTING, next hop's neighbour deleted: resolved again by ND, delivered" \
	eval '[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0" ] && resolved'
held_after end-x POSTROUTING nh_flush
echo "# End.X held at POSTROUTING, neighbours of $RTR_IF_DST flushed: $(outcome) ($R) neigh after: $NEIGH_AFTER"
check "End.X held at POSTROUTING, output device's neighbours flushed (none left): resolved again, delivered" \
	eval '[ "$(outcome)/$(wc -c <"$TMPD/flushed")" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0/0" ] && resolved'
held_after end-x POSTROUTING nh_failed
echo "# End.X held at POSTROUTING, neighbour set FAILED ($(cat "$TMPD/failed")): $(outcome) ($R) neigh after: $NEIGH_AFTER"
check "End.X held at POSTROUTING, neighbour set FAILED: probed again, resolved, delivered" \
	eval '[ "$(outcome)/$(cat "$TMPD/failed")" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0/FAILED " ] && resolved'

# the entry deleted and dst no longer answering Neighbor Solicitations:
# resolution fails (mcast_solicit probes), the kernel drops the packet
# with an ICMPv6 Address Unreachable to the source (ndisc_error_report)
in_dst ip6tables -I INPUT -p icmpv6 --icmpv6-type neighbour-solicitation -j DROP
in_rtr sysctl -qw "net.ipv6.neigh.$RTR_IF_DST.retrans_time_ms=200"
HOLD_TO=8 held_after end-x POSTROUTING in_rtr ip -6 neigh del $DST_ADDR dev "$RTR_IF_DST"
in_dst ip6tables -D INPUT -p icmpv6 --icmpv6-type neighbour-solicitation -j DROP
in_rtr sysctl -qw "net.ipv6.neigh.$RTR_IF_DST.retrans_time_ms=1000"
echo "# End.X held at POSTROUTING, neighbour deleted, no answer to ND: $(outcome) ($R)"
check "End.X held at POSTROUTING, neighbour deleted, ND unanswered: ICMPv6 Address Unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp=1/3 unreach-delta=1 ptb-delta=0" ]

# ---- 4. the output device goes down while held at FORWARD ---------------------
late0=$(qget 11 late)
hook FORWARD 11 -d 2001:db8:2::2
rm -f "$TMPD/released"
RJ_AFTER=$TMPD/released send end dst 1 3 >"$TMPD/down" &
spid=$!
if wait_until 30 held_is 11 1; then
	in_rtr ip link set "$RTR_IF_DST" down
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"
	wait $spid
	check "FORWARD, output device down while held: released ($R), nothing delivered" \
		[ -z "$(rxs "$NS_DST" "$TMPD/down")" ]
	check "FORWARD, output device down: the kernel had flushed it, the verdict counted late" \
		wait_until 5 test "$(qget 11 late)" = $((late0 + 1))
else
	fail "FORWARD: packet not held"; : >"$TMPD/released"; wait $spid
fi
rj_finish
