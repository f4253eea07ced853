#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_encap.sh - the kernel's seg6 encapsulation (a route
# `encap seg6 mode encap`, net/ipv6/seg6_iptunnel.c) passes two netfilter
# hooks with nf_hooks_lwtunnel=1: seg6_input_nf queues the packet at
# POST_ROUTING of the inner family (IPv6 or IPv4; okfn seg6_input_core:
# the encapsulation and the outer route lookup), then the encapsulated
# packet passes IPv6 LOCAL_OUT with its outer route attached (okfn
# seg6_input_finish: dst_input).  Both are queued to srv6d's policy queues
# (docs/REINJECTION.md):
#   1. `policy accept` at each hook (IPv6 and IPv4 inner packets): what dst
#      receives equals the run without the rule, byte for byte; queue 10
#      recorded the hook and family once
#   2. hold at each hook, delete or replace the outer route (fd00:77::/64,
#      the first segment's), let RCU free it, release: the outcome is
#      asserted (see the table in docs/REINJECTION.md); unchanged: delivered
#   3. after each held case rtr's dst/route/neighbour counters are back to
#      their baseline; at the end the namespaces are torn down completely
#      and the kernel log has no WARN/BUG/RCU/refcount line
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh, plus:
#
#   src --(2001:db8:e6::9 / 203.0.113.9)--> rtr: encap seg6 mode encap segs fd00:77::1
#         POST_ROUTING (inner: ip6tables/iptables -d INNER) -> encap, outer lookup
#         -> LOCAL_OUT (outer: ip6tables OUTPUT -d fd00:77::1) -> dst_input --> dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }
dropmon_start

in_rtr ip -6 route add 2001:db8:e6::/64 encap seg6 mode encap segs fd00:77::1 dev "$RTR_IF_DST" ||
	{ fail "seg6 encap route (IPv6)"; exit 1; }
in_rtr ip route add 203.0.113.0/24 encap seg6 mode encap segs fd00:77::1 dev "$RTR_IF_DST" ||
	{ fail "seg6 encap route (IPv4)"; exit 1; }
ip -n "$NS_RTR" addr add 198.51.100.2/24 dev "$RTR_IF_SRC"
ip -n "$NS_RTR" neigh replace 198.51.100.1 lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent

inner() { case $1 in encap6) echo 2001:db8:e6::9 ;; encap4) echo 203.0.113.9 ;; esac; }
# ehook WHERE Q CASE: WHERE "post" (POST_ROUTING of CASE's inner family,
# matching the inner destination) or "out" (IPv6 LOCAL_OUT, the outer
# destination)
ehook() {
	hook off
	case $1/$3 in
	post/encap6) in_rtr ip6tables -t mangle -A POSTROUTING -d "$(inner "$3")" -j NFQUEUE --queue-num "$2" ;;
	post/encap4) in_rtr iptables -t mangle -A POSTROUTING -d "$(inner "$3")" -j NFQUEUE --queue-num "$2" ;;
	out/*) in_rtr ip6tables -t mangle -A OUTPUT -d fd00:77::1 -j NFQUEUE --queue-num "$2" ;;
	esac
}
lastrec() {
	ctl -j queue show 10 | "$PY" -c 'import json, sys
r = json.load(sys.stdin)[0]["recent"][-1]
print(r["hook"], r["family"], r["summary"].split()[0], r["summary"].split()[2])'
}

# ---- 1. accept at both hooks ---------------------------------------------------
for c in encap6 encap4; do
	hook off
	send "$c" dst >"$TMPD/base.$c"
	base=$(rxs "$NS_DST" "$TMPD/base.$c")
	# the outer packet: IPv6 to the segment, rtr's address as source
	check "$c: without a hook, encapsulated (outer 2001:db8:2::1 > fd00:77::1, SRH)" \
		[ "${base:0:1}/${base:16:32}/${base:48:32}/${base:12:2}" = \
		  "6/20010db8000200000000000000000001/fd000077000000000000000000000001/2b" ]
	for where in post out; do
		ehook $where 10 "$c"
		q0=$(qget 10 packets)
		send "$c" dst >"$TMPD/hook.$c"
		got=$(rxs "$NS_DST" "$TMPD/hook.$c")
		if [ -n "$base" ] && [ "$base" = "$got" ]; then
			ok "$c: $where accept: encapsulated and forwarded byte for byte as without the hook"
		else
			fail "$c: $where accept differs from the run without the hook" "base: $base" "hook: $got"
		fi
		rec=$(lastrec)
		if [ $where = post ]; then
			fam=ipv6; [ $c = encap4 ] && fam=ipv4
			want="postrouting $fam $([ $c = encap4 ] && echo 198.51.100.1 || echo $SRC_ADDR) $(inner $c)"
		else
			want="output ipv6 $RTR_ADDR_DST fd00:77::1"
		fi
		check "$c: $where: queued once, as '$want' ($rec)" \
			[ "$(( $(qget 10 packets) - q0 ))/$rec" = "1/$want" ]
	done
done
hook off

# ---- 2. hold, change the outer route, release -----------------------------------
# held_encap CASE WHERE CMD...: outcome in $TMPD/held; U0/U1 T0/T1 N0/N1
# I0/I1: rtr's Icmp6OutDestUnreachs, Icmp6OutPktTooBigs, Ip6InNoRoutes,
# Icmp6InDestUnreachs
held_encap() {
	local c=$1 where=$2 spid; shift 2
	kbase
	ehook "$where" 11 "$c"
	rm -f "$TMPD/released"
	RJ_AFTER=$TMPD/released send "$c" both 1 5 >"$TMPD/held" &
	spid=$!
	wait_until 30 held_is 11 1 || { fail "$c: not held at $where"; : >"$TMPD/released"; wait $spid; rj_unheld; return 1; }
	"$@"
	rcu_barrier
	U0=$(snmp6 Icmp6OutDestUnreachs) T0=$(snmp6 Icmp6OutPktTooBigs) N0=$(snmp6 Ip6InNoRoutes) I0=$(snmp6 Icmp6InDestUnreachs)
	dropmon_mark
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"   # the capture's 5 s count from here (slow debug kernels)
	wait $spid
	dropmon_take "$c at $where" dst_discard
	U1=$(snmp6 Icmp6OutDestUnreachs) T1=$(snmp6 Icmp6OutPktTooBigs) N1=$(snmp6 Ip6InNoRoutes) I1=$(snmp6 Icmp6InDestUnreachs)
	hook off
	in_rtr ip -6 route del fd00:77::/64 2>/dev/null
	rj_routes
	kcheck "$c held at $where ($*)"
}
outcome() {
	local d s
	d=$(rxs "$NS_DST" "$TMPD/held" | grep -c '^6.\{47\}fd000077')
	s=$(rxs "$NS_SRC" "$TMPD/held" | grep -c '^6.\{47\}fd000077')
	echo "dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l)($d outer) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)($s outer)" \
	     "icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,)" \
	     "unreach-delta=$((U1 - U0)) ptb-delta=$((T1 - T0)) noroute-delta=$((N1 - N0)) in-unreach-delta=$((I1 - I0))"
}
via_src() { in_rtr ip -6 route replace fd00:77::/64 via $SRC_ADDR dev "$RTR_IF_SRC"; }
# expected outcomes on this kernel (docs/REINJECTION.md):
# POST_ROUTING: the encapsulation and its outer lookup run from nf_reinject
#   deleted: no route: the null route's ip6_pkt_drop (Ip6InNoRoutes +1); its
#     ICMPv6 error goes to the outer source, rtr itself (Icmp6InDestUnreachs
#     +1): nothing leaves rtr
#   replaced via src: rerouted, the encapsulated packet arrives at src
# LOCAL_OUT: the packet waits encapsulated, with its outer route's dst
#   deleted or replaced, and freed: that dst was put (dst_dev_put: input
#     dst_discard): dropped silently, freed in dst_discard (seg6_input_finish
#     -> dst_input), as the drop monitor (lib.sh) sees it
W_POST_DEL="dst=0(0 outer) src=0(0 outer) icmp= unreach-delta=1 ptb-delta=0 noroute-delta=1 in-unreach-delta=1"
W_RER="dst=0(0 outer) src=1(1 outer) icmp= unreach-delta=0 ptb-delta=0 noroute-delta=0 in-unreach-delta=0"
W_OUT_GONE="dst=0(0 outer) src=0(0 outer) icmp= unreach-delta=0 ptb-delta=0 noroute-delta=0 in-unreach-delta=0"
W_OK="dst=1(1 outer) src=0(0 outer) icmp= unreach-delta=0 ptb-delta=0 noroute-delta=0 in-unreach-delta=0"
for c in encap6 encap4; do
	held_encap $c post in_rtr ip -6 route del fd00:77::/64
	echo "# $c held at POST_ROUTING (inner), outer route deleted: $(outcome) ($R)"
	check "$c held at POST_ROUTING, outer route deleted: no route, counted (Ip6InNoRoutes), ICMPv6 to rtr's own address" \
		[ "$(outcome)" = "$W_POST_DEL" ]
	held_encap $c post via_src
	echo "# $c held at POST_ROUTING (inner), outer route replaced via src: $(outcome) ($R)"
	check "$c held at POST_ROUTING, outer route replaced: rerouted, encapsulated packet at src" \
		[ "$(outcome)" = "$W_RER" ]
	held_encap $c post true
	echo "# $c held at POST_ROUTING (inner), nothing changed: $(outcome) ($R)"
	check "$c held at POST_ROUTING, route unchanged: delivered" [ "$(outcome)" = "$W_OK" ]
	held_encap $c out in_rtr ip -6 route del fd00:77::/64
	echo "# $c held at LOCAL_OUT (outer), outer route deleted: $(outcome) ($R)"
	check "$c held at LOCAL_OUT, outer route deleted and freed: dropped silently (put dst)" \
		[ "$(outcome)" = "$W_OUT_GONE" ]
	dm_check "$c held at LOCAL_OUT, outer route deleted and freed" 1
	held_encap $c out via_src
	echo "# $c held at LOCAL_OUT (outer), outer route replaced via src: $(outcome) ($R)"
	check "$c held at LOCAL_OUT, outer route replaced and the old one freed: dropped silently (put dst)" \
		[ "$(outcome)" = "$W_OUT_GONE" ]
	dm_check "$c held at LOCAL_OUT, outer route replaced and the old one freed" 1
	held_encap $c out true
	echo "# $c held at LOCAL_OUT (outer), nothing changed: $(outcome) ($R)"
	check "$c held at LOCAL_OUT, route unchanged: delivered" [ "$(outcome)" = "$W_OK" ]
	dm_check "$c held at LOCAL_OUT, route unchanged" 0
done

rj_finish
