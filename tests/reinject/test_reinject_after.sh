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
#      the outcome is asserted (FORWARD: dropped silently; POSTROUTING:
#      ICMPv6 Packet Too Big with MTU 68 to the source; see the comment
#      below and docs/REINJECTION.md)
#   3. hold at FORWARD, the output device goes down: the kernel flushes the
#      entry, srv6d's verdict is counted late
#   4. the kernel log has no WARN/BUG/RCU/refcount line
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

rxs() { sed -n "s/^RX $1 //p" "$2"; }
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
held_after() { # CASE CHAIN CMD...
	local c=$1 chain=$2 spid; shift 2
	hook "$chain" 11 -d "$(newda "$c")"
	send "$c" both 1 3 >"$TMPD/held" &
	spid=$!
	wait_until 5 held_is 11 1 || { fail "$c: not held at $chain"; wait $spid; return 1; }
	"$@"
	rcu_barrier
	U0=$(snmp6 Icmp6OutDestUnreachs) T0=$(snmp6 Icmp6OutPktTooBigs)
	R=$(ctl queue release 11 1)
	wait $spid
	U1=$(snmp6 Icmp6OutDestUnreachs) T1=$(snmp6 Icmp6OutPktTooBigs)
	hook off
	rj_routes
}
# rcu_barrier: a veth pair added and deleted in rtr: unregistering a device
# runs rcu_barrier() (netdev_run_todo), so the deleted route's fib6_info
# has been freed, and its cached dst "put" (dst_dev_put: dst_discard_out,
# blackhole_netdev) before the release: the outcome does not depend on
# how fast RCU callbacks run.
rcu_barrier() {
	in_rtr ip link add r13gp0 type veth peer name r13gp1 && in_rtr ip link del r13gp0
}
outcome() {
	echo "dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)" \
	     "icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,)" \
	     "unreach-delta=$((U1 - U0)) ptb-delta=$((T1 - T0))$(ptb_mtu)"
}
# ptb_mtu: " mtu=N" of an ICMPv6 Packet Too Big captured at src, else nothing
ptb_mtu() {
	local h
	h=$(rxs "$NS_SRC" "$TMPD/held" | head -1)
	[ "${h:80:2}" = 02 ] && echo " mtu=$((16#${h:88:8}))"
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
	if [ $chain = FORWARD ]; then want=$W_FWD; what="dropped silently (dst_discard_out)"
	else want=$W_POST; what="ICMPv6 Packet Too Big (blackhole_netdev MTU) to src"; fi
	held_after end-x $chain in_rtr ip -6 route del fd00:77::/64
	echo "# End.X held at $chain, nh6 route deleted: $(outcome) ($R)"
	check "End.X held at $chain, nh6 route deleted and freed: $what" [ "$(outcome)" = "$want" ]
	held_after end-t $chain in_rtr ip -6 route del 2001:db8:cc::/64 table 100
	echo "# End.T held at $chain, table route deleted: $(outcome) ($R)"
	check "End.T held at $chain, table route deleted and freed: $what" [ "$(outcome)" = "$want" ]
	held_after end-x $chain true
	echo "# End.X held at $chain, nothing changed: $(outcome) ($R)"
	check "End.X held at $chain, route unchanged: delivered" \
		[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0" ]
done

# the neighbour of the next hop deleted while the packet waits with its route
held_after end-x FORWARD in_rtr ip -6 neigh del $DST_ADDR dev "$RTR_IF_DST"
ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
echo "# End.X held at FORWARD, next hop's neighbour deleted: $(outcome) ($R)"
check "End.X held at FORWARD, next hop's neighbour deleted: resolved again (ND), delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 ptb-delta=0" ]

# ---- 3. the output device goes down while held at FORWARD ---------------------
late0=$(qget 11 late)
hook FORWARD 11 -d 2001:db8:2::2
send end dst 1 3 >"$TMPD/down" &
spid=$!
if wait_until 5 held_is 11 1; then
	in_rtr ip link set "$RTR_IF_DST" down
	R=$(ctl queue release 11 1)
	wait $spid
	check "FORWARD, output device down while held: released ($R), nothing delivered" \
		[ -z "$(rxs "$NS_DST" "$TMPD/down")" ]
	check "FORWARD, output device down: the kernel had flushed it, the verdict counted late" \
		wait_until 5 test "$(qget 11 late)" = $((late0 + 1))
else
	fail "FORWARD: packet not held"; wait $spid
fi
hook off
check "kernel log: no WARN/BUG/RCU/refcount line" dmesg_clean
check "srv6d stops cleanly (SIGTERM)" srv6d_stop
summary
