#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_noref.sh - the cases aimed at the review's question on
# "seg6: skip route refcounts in seg6local lookups" (../shared/kernel-patches,
# docs/REINJECTION.md "The noref series on debug kernels"): with the series,
# End.DX6 / End.DT6 (patch 1) and End.DX4 (patch 2) attach the
# route their lookup found without a reference (skb_dst_set_noref), inside
# nf_reinject()'s RCU section when they run from a verdict.  Each case is
# hold, change, let RCU free, release:
#   1. End.DX6 and End.DT6 held at IPv6 FORWARD and POST_ROUTING after the
#      behavior (the noref dst attached; nf_queue() must have taken its
#      reference, skb_dst_force), the route the lookup used deleted and
#      freed (rcu_barrier), released: FORWARD drops it silently, POST_ROUTING
#      answers ICMPv6 Packet Too Big MTU 68 (the put dst: blackhole_netdev),
#      as End.X and End.T do (test_reinject_after.sh); unchanged: delivered
#   2. End.DX4 held at IPv4 FORWARD after ip_route_input(_noref) of nh4, the
#      connected route deleted and freed, released: dropped silently;
#      unchanged: delivered; the same for End.DT4 vrftable 200 (patch 2's
#      other caller: a VRF device on table 200, strict mode, dst's /24 in
#      that table), where the kernel has VRF
#   3. `srv6ctl queue release` (from outside, over the control socket, the
#      file) of an End.X packet held at LOCAL_IN after rtr's namespace name
#      was deleted (srv6d's sockets keep the namespace itself alive; its
#      cleanup starts when srv6d exits): the behavior runs, the packet is
#      delivered once, srv6d exits 0, the namespaces are torn down completely
#   4. the silent drops are named: the drop monitor (lib.sh: the kernel's
#      skb:kfree_skb tracepoint) must see the FORWARD ones freed in
#      dst_discard_out, once, and nothing freed there in the other cases
#      (where the kernel has tracefs; said otherwise)
#   5. after each held case rtr's dst/route/neighbour counters are back to
#      their baseline; the kernel log has no WARN/BUG/RCU/KASAN/refcount
#      line.  On a debug kernel (tools/debug-kernel: PROVE_RCU, KASAN,
#      DEBUG_NET, refcount trackers) that log is the verdict.
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(outer to SID)--> rtr: behavior -> FORWARD/POSTROUTING -j NFQUEUE 11 --> dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }
dropmon_start

# IPv4 on the src link (the inner source 198.51.100.1 is src's MAC), as
# test_reinject_decap.sh has it
ip -n "$NS_RTR" addr add 198.51.100.2/24 dev "$RTR_IF_SRC"
ip -n "$NS_RTR" neigh replace 198.51.100.1 lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
in_rtr sysctl -qw net.ipv4.conf.all.send_redirects=0 "net.ipv4.conf.$RTR_IF_SRC.send_redirects=0"
# End.DT4 (patch 2's other ip_route_input_noref caller): SID 9 End.DT4
# vrftable 200, a VRF device on table 200 (strict mode, as the kernel's
# vrftable needs), dst's /24 on rtr-dst in that table
DT4=0
if ip -n "$NS_RTR" link add vrf200 type vrf table 200 2>/dev/null &&
	ip -n "$NS_RTR" link set vrf200 up && in_rtr sysctl -qw net.vrf.strict_mode=1 >/dev/null &&
	in_rtr ip route replace 192.0.2.0/24 dev "$RTR_IF_DST" table 200 &&
	in_rtr ip -6 route replace "$SID:9/128" encap seg6local action End.DT4 vrftable 200 count \
		dev "$RTR_IF_SRC"; then
	DT4=1
else
	echo "# no End.DT4 cases: this kernel has no VRF device or End.DT4 vrftable"
fi
restore() {
	rj_routes
	[ "$DT4" = 0 ] || in_rtr ip route replace 192.0.2.0/24 dev "$RTR_IF_DST" table 200
	in_rtr ip route replace 192.0.2.0/24 dev "$RTR_IF_DST" proto kernel scope link src 192.0.2.1
	ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	ip -n "$NS_RTR" neigh replace 192.0.2.2 lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
}
# v4hook CHAIN Q: the only IPv4 NFQUEUE rule (mangle CHAIN -d 192.0.2.2)
v4hook() { hook off; in_rtr iptables -t mangle -A "$1" -d 192.0.2.2 -j NFQUEUE --queue-num "$2"; }
ctrs() { echo "$(snmp6 Icmp6OutDestUnreachs) $(snmp6 Icmp6OutPktTooBigs)" \
	"$(in_rtr awk '/^Icmp:/ {if (h) {print $(n); exit} for (i = 1; i <= NF; i++) if ($i == "OutDestUnreachs") n = i; h = 1}' /proc/net/snmp)"; }

# held CASE HOOK CMD...: send CASE, hold it where HOOK (a command setting
# the only NFQUEUE rule, to queue 11) says, run CMD, let RCU free what CMD
# deleted (rcu_barrier), release; the outcome in $TMPD/held and OUTCOME;
# then everything restored and rtr's counters checked against their baseline.
held() {
	local c=$1 h=$2 spid; shift 2
	held_is 11 0 || { fail "$c: queue 11 still holds a packet before the case"; rj_unheld; }
	kbase
	eval "$h"
	rm -f "$TMPD/released"
	RJ_AFTER=$TMPD/released send "$c" both 1 "${HOLD_TO:-5}" >"$TMPD/held" &
	spid=$!
	if ! wait_until 30 held_is 11 1; then
		fail "$c: not held ($h)"; : >"$TMPD/released"; wait $spid; rj_unheld; OUTCOME=none
		return 1
	fi
	"$@"
	rcu_barrier
	read -r U0 T0 V0 <<<"$(ctrs)"
	dropmon_mark
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"
	wait $spid
	read -r U1 T1 V1 <<<"$(ctrs)"
	dropmon_take "$c"
	hook off
	restore
	kcheck "$c held ($h; $*)"
	OUTCOME="dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)"
	OUTCOME+=" icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,)"
	OUTCOME+=" unreach6=$((U1 - U0)) ptb=$((T1 - T0)) unreach4=$((V1 - V0))$(ptb_mtu)${DM_N:+ discard=$DM_N}"
	# the verdict itself: exactly this packet released (not 0, not an error)
	[ "$R" = "queue 11: released 1" ] || OUTCOME+=" release=[$R]"
}
# dm N: the drop monitor's part of an outcome (dst_discard_out freed N), if it runs
dm() { [ "$DROPMON" = 0 ] || echo " discard=$1"; }
W_FWD="dst=0 src=0 icmp= unreach6=0 ptb=0 unreach4=0$(dm 1)"
W_POST="dst=0 src=1 icmp=2/0 unreach6=0 ptb=1 unreach4=0 mtu=68$(dm 0)"
W_OK="dst=1 src=0 icmp= unreach6=0 ptb=0 unreach4=0$(dm 0)"
W_FWD_WHAT="dropped silently"
[ "$DROPMON" = 0 ] || W_FWD_WHAT="dropped silently, freed in dst_discard_out (drop monitor)"

# ---- 1. End.DX6 / End.DT6 after the behavior --------------------------------
for chain in FORWARD POSTROUTING; do
	if [ $chain = FORWARD ]; then want=$W_FWD; what=$W_FWD_WHAT
	else want=$W_POST; what="ICMPv6 Packet Too Big MTU 68 (the put dst) to src"; fi
	held end-dx6 "hook $chain 11 -s $SRC_ADDR -d $DST_ADDR" in_rtr ip -6 route del fd00:77::/64
	echo "# End.DX6 held at $chain after the behavior, nh6 route deleted and freed: $OUTCOME ($R)"
	check "End.DX6 held at $chain, nh6 route deleted and freed: $what" [ "$OUTCOME" = "$want" ]
	held end-dt6 "hook $chain 11 -d 2001:db8:cc::7" in_rtr ip -6 route del 2001:db8:cc::/64 table 100
	echo "# End.DT6 held at $chain after the behavior, table route deleted and freed: $OUTCOME ($R)"
	check "End.DT6 held at $chain, table 100 route deleted and freed: $what" [ "$OUTCOME" = "$want" ]
done
held end-dx6 "hook FORWARD 11 -s $SRC_ADDR -d $DST_ADDR" true
check "End.DX6 held at FORWARD, route unchanged: delivered ($OUTCOME)" [ "$OUTCOME" = "$W_OK" ]
held end-dt6 "hook POSTROUTING 11 -d 2001:db8:cc::7" true
check "End.DT6 held at POSTROUTING, route unchanged: delivered ($OUTCOME)" [ "$OUTCOME" = "$W_OK" ]

# ---- 2. End.DX4 after ip_route_input of nh4 ---------------------------------
held end-dx4 "v4hook FORWARD 11" in_rtr ip route del 192.0.2.0/24 dev "$RTR_IF_DST"
echo "# End.DX4 held at IPv4 FORWARD after the behavior, nh4's route deleted and freed: $OUTCOME ($R)"
check "End.DX4 held at IPv4 FORWARD, nh4's route deleted and freed: $W_FWD_WHAT" [ "$OUTCOME" = "$W_FWD" ]
held end-dx4 "v4hook FORWARD 11" true
check "End.DX4 held at IPv4 FORWARD, route unchanged: delivered ($OUTCOME)" [ "$OUTCOME" = "$W_OK" ]

# ---- 2b. End.DT4 after ip_route_input(_noref) in the VRF's table ---------
if [ "$DT4" = 1 ]; then
	held end-dt4 "v4hook FORWARD 11" true
	echo "# End.DT4 held at IPv4 FORWARD after the behavior, route unchanged: $OUTCOME ($R)"
	check "End.DT4 held at IPv4 FORWARD, route unchanged: delivered ($OUTCOME)" [ "$OUTCOME" = "$W_OK" ]
	held end-dt4 "v4hook FORWARD 11" in_rtr ip route del 192.0.2.0/24 dev "$RTR_IF_DST" table 200
	echo "# End.DT4 held at IPv4 FORWARD after the behavior, table 200's route deleted and freed: $OUTCOME ($R)"
	check "End.DT4 held at IPv4 FORWARD, table 200's route deleted and freed: $W_FWD_WHAT" \
		[ "$OUTCOME" = "$W_FWD" ]
fi

check "queue 11: nothing left held, no late verdict" [ "$(qget 11 held_now)/$(qget 11 late)" = 0/0 ]
check "kernel log: no WARN/BUG/RCU/refcount line (cases 1-2)" dmesg_clean

# ---- 3. srv6ctl queue release after rtr's namespace was deleted -------------
hook INPUT 11 -d $SID:2
rm -f "$TMPD/released"
RJ_AFTER=$TMPD/released send end-x dst 1 5 >"$TMPD/nsdel" &
spid=$!
if wait_until 30 held_is 11 1; then
	ip netns del "$NS_RTR"
	check "namespace deleted while held: srv6d runs on (its sockets keep it)" srv6d_alive
	# the control socket is a file: reachable from here without the netns name
	R=$(timeout 20 "$SRV6CTL" -S "$TMPD/srv6d.sock" queue release 11 all)
	: >"$TMPD/released"
	wait $spid
	check "srv6ctl queue release in a deleted namespace: answered ($R)" [ "$R" = "queue 11: released 1" ]
	check "srv6ctl queue release in a deleted namespace: the behavior ran, delivered once" \
		[ "$(rxs "$NS_DST" "$TMPD/nsdel" | wc -l)" = 1 ]
	check "namespace deleted: srv6d exits 0 on SIGTERM" srv6d_stop TERM
	check "namespace torn down after srv6d exited (the veth peers are gone)" \
		wait_until 30 eval '! ip -n "$NS_SRC" link show eth0 >/dev/null 2>&1 &&
			! ip -n "$NS_DST" link show eth0 >/dev/null 2>&1'
	check "namespace torn down completely (no reference left waiting)" rj_netns_drained
else
	fail "namespace deletion: End.X not held"; : >"$TMPD/released"; wait $spid
	srv6d_stop TERM
fi
check "kernel log: no WARN/BUG/RCU/refcount line" dmesg_clean
summary
