#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_decap.sh - End.DX6 / End.DX4 of the kernel's seg6local: the
# decapsulated inner packet passes IPv6 / IPv4 PRE_ROUTING (okfn
# input_action_end_dx6_finish / input_action_end_dx4_finish, the nh6/nh4
# lookup) and is queued there to srv6d's policy queues
# (docs/REINJECTION.md):
#   1. `policy accept` at PRE_ROUTING: what dst receives equals the run
#      without the rule, byte for byte; the packet crossed the queue once
#   2. hold at PRE_ROUTING, delete End.DX6's nh6 route, release: the lookup
#      runs from nf_reinject: ICMPv6 Destination Unreachable to the inner
#      source, counted once; hold and release unchanged: delivered
#   3. End.DX4 the same way (ip_route_input of nh4 from nf_reinject): route
#      to nh4 deleted: ICMP Net Unreachable; an unreachable route for nh4:
#      ICMP Host Unreachable; nh4 rerouted via the src link: arrives at
#      src; unchanged: delivered
#   4. after each held case rtr's dst/route/neighbour counters are back to
#      their baseline; at the end the namespaces are torn down completely
#      and the kernel log has no WARN/BUG/RCU/refcount line
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(outer to SID)--> rtr: seg6local End.DX6/DX4 decap -> PREROUTING
#                           (mangle -d INNER-DST -j NFQUEUE) -> nh lookup --> dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }

v4hook() { hook off; in_rtr iptables -t mangle -A PREROUTING -d 192.0.2.2 -j NFQUEUE --queue-num "$1"; }

# ---- 1. accept at PRE_ROUTING of the inner packet ----------------------------
for c in end-dx6 end-dx4; do
	hook off
	send "$c" dst >"$TMPD/base.$c"
	base=$(rxs "$NS_DST" "$TMPD/base.$c")
	if [ $c = end-dx6 ]; then hook PREROUTING 10 -s $SRC_ADDR -d $DST_ADDR; else v4hook 10; fi
	q0=$(qget 10 packets)
	send "$c" dst >"$TMPD/hook.$c"
	got=$(rxs "$NS_DST" "$TMPD/hook.$c")
	if [ -n "$base" ] && [ "$base" = "$got" ]; then
		ok "$c: inner packet accepted at PRE_ROUTING: forwarded byte for byte as without the hook"
	else
		fail "$c: PRE_ROUTING accept differs from the run without the hook" "base: $base" "hook: $got"
	fi
	fam=ipv6; [ $c = end-dx4 ] && fam=ipv4
	last=$(ctl -j queue show 10 | "$PY" -c 'import json, sys
r = json.load(sys.stdin)[0]["recent"][-1]
print(r["hook"], r["family"], r["indev"], r["summary"])')
	check "$c: the decapsulated packet crossed queue 10 once ($last)" \
		[ "$(( $(qget 10 packets) - q0 ))/${last%% eth0 *}" = "1/prerouting $fam" ]
done
hook off

# ---- 2. hold the inner packet, change the route the lookup will use, release --
# held_pre CASE CMD...: hold CASE's decapsulated packet at PRE_ROUTING, run
# CMD, release; outcome in $TMPD/held, U0/U1 (ICMPv6 and ICMP Destination
# Unreachable sent), N0/N1 (IPv6 + IPv4 InNoRoutes), A0/A1 (IPv4
# InAddrErrors); then the routes restored and rtr's counters checked
# against their baseline.
# snmp4 NAME: rtr's IPv4 counter NAME (/proc/net/snmp, /proc/net/netstat)
snmp4() {
	in_rtr awk -v n="$1" '{ if (p == $1) { for (i = 2; i <= NF; i++) if (h[i] == n) print $i }
		else { p = $1; for (i = 2; i <= NF; i++) h[i] = $i } }' /proc/net/snmp /proc/net/netstat
}
ctrs() { echo "$(( $(snmp6 Icmp6OutDestUnreachs) + $(snmp4 OutDestUnreachs) ))" \
	"$(( $(snmp6 Ip6InNoRoutes) + $(snmp4 InNoRoutes) ))" "$(snmp4 InAddrErrors)"; }
held_pre() {
	local c=$1 spid; shift
	kbase
	if [ "$c" = end-dx6 ]; then hook PREROUTING 11 -s $SRC_ADDR -d $DST_ADDR; else v4hook 11; fi
	rm -f "$TMPD/released"
	RJ_AFTER=$TMPD/released send "$c" both 1 5 >"$TMPD/held" &
	spid=$!
	wait_until 30 held_is 11 1 || { fail "$c: inner packet not held"; : >"$TMPD/released"; wait $spid; rj_unheld; return 1; }
	"$@"
	read -r U0 N0 A0 <<<"$(ctrs)"
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"   # the capture's 5 s count from here, not from the send
	wait $spid
	read -r U1 N1 A1 <<<"$(ctrs)"
	hook off
	rj_routes
	v4_restore
	kcheck "$c held at PRE_ROUTING ($*)"
}
# the IPv4 side: rtr 198.51.100.2/24 on the src link (inner source
# 198.51.100.1 = src's MAC), no redirects; End.DX4's nh4 192.0.2.2 is on
# the connected 192.0.2.0/24 of the dst link
ip -n "$NS_RTR" addr add 198.51.100.2/24 dev "$RTR_IF_SRC"
ip -n "$NS_RTR" neigh replace 198.51.100.1 lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
in_rtr sysctl -qw net.ipv4.conf.all.send_redirects=0 "net.ipv4.conf.$RTR_IF_SRC.send_redirects=0"
v4_restore() {
	in_rtr ip route del 192.0.2.2/32 2>/dev/null
	in_rtr ip route del unreachable 192.0.2.2/32 2>/dev/null
	in_rtr ip neigh del 192.0.2.2 dev "$RTR_IF_SRC" 2>/dev/null
	in_rtr ip route replace 192.0.2.0/24 dev "$RTR_IF_DST" proto kernel scope link src 192.0.2.1
	return 0
}
v4_reroute() {
	in_rtr ip neigh replace 192.0.2.2 lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
	in_rtr ip route add 192.0.2.2/32 dev "$RTR_IF_SRC"
}
# outcome: what arrived where; ICMP at src (ICMPv6 TYPE/CODE, ICMP
# v4:TYPE/CODE); an IPv4 packet to 192.0.2.2 at src: v4-to-nh4; deltas
outcome() {
	local h ic=
	while read -r h; do
		case $h in
		4*) [ "${h:18:2}" = 01 ] && ic="${ic:+$ic,}v4:$((16#${h:40:2}))/$((16#${h:42:2}))"
		    [ "${h:32:8}" = c0000202 ] && ic="${ic:+$ic,}v4-to-nh4" ;;
		esac
	done < <(rxs "$NS_SRC" "$TMPD/held")
	echo "dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)" \
	     "icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,)$ic" \
	     "unreach-delta=$((U1 - U0)) noroute-delta=$((N1 - N0)) addrerr-delta=$((A1 - A0))"
}
held_pre end-dx6 in_rtr ip -6 route del fd00:77::/64
echo "# End.DX6 inner packet held at PRE_ROUTING, nh6 route deleted: $(outcome) ($R)"
check "End.DX6 held at PRE_ROUTING, nh6 route deleted: ICMPv6 unreachable to the inner source, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp=1/0 unreach-delta=1 noroute-delta=1 addrerr-delta=0" ]
held_pre end-dx6 true
echo "# End.DX6 inner packet held at PRE_ROUTING, nothing changed: $(outcome) ($R)"
check "End.DX6 held at PRE_ROUTING, route unchanged: delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 noroute-delta=0 addrerr-delta=0" ]

# End.DX4: input_action_end_dx4_finish runs ip_route_input(nh4) from nf_reinject
held_pre end-dx4 in_rtr ip route del 192.0.2.0/24 dev "$RTR_IF_DST"
echo "# End.DX4 inner packet held at PRE_ROUTING, route to nh4 deleted: $(outcome) ($R)"
check "End.DX4 held, route to nh4 deleted: ICMP Net Unreachable to the inner source (ip_error), InNoRoutes +1" \
	[ "$(outcome)" = "dst=0 src=1 icmp=v4:3/0 unreach-delta=1 noroute-delta=1 addrerr-delta=0" ]
held_pre end-dx4 in_rtr ip route add unreachable 192.0.2.2/32
echo "# End.DX4 inner packet held at PRE_ROUTING, unreachable route for nh4 added: $(outcome) ($R)"
check "End.DX4 held, unreachable route for nh4: ICMP Host Unreachable to the inner source (ip_error), no In* counter" \
	[ "$(outcome)" = "dst=0 src=1 icmp=v4:3/1 unreach-delta=1 noroute-delta=0 addrerr-delta=0" ]
held_pre end-dx4 v4_reroute
echo "# End.DX4 inner packet held at PRE_ROUTING, nh4 routed via the src link: $(outcome) ($R)"
check "End.DX4 held, nh4 rerouted (192.0.2.2/32 via the src link): the inner packet arrives at src, no ICMP" \
	[ "$(outcome)" = "dst=0 src=1 icmp=v4-to-nh4 unreach-delta=0 noroute-delta=0 addrerr-delta=0" ]
held_pre end-dx4 true
echo "# End.DX4 inner packet held at PRE_ROUTING, nothing changed: $(outcome) ($R)"
check "End.DX4 held at PRE_ROUTING, route unchanged: delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0 noroute-delta=0 addrerr-delta=0" ]

rj_finish
