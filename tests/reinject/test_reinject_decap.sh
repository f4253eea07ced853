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
#   3. the kernel log has no WARN/BUG/RCU/refcount line
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

rxs() { sed -n "s/^RX $1 //p" "$2"; }
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

# ---- 2. hold the inner packet, change the nh6 route, release ---------------------
held_pre() { # CMD...
	local spid
	hook PREROUTING 11 -s $SRC_ADDR -d $DST_ADDR
	send end-dx6 both 1 3 >"$TMPD/held" &
	spid=$!
	wait_until 5 held_is 11 1 || { fail "end-dx6: inner packet not held"; wait $spid; return 1; }
	"$@"
	U0=$(snmp6 Icmp6OutDestUnreachs)
	R=$(ctl queue release 11 1)
	wait $spid
	U1=$(snmp6 Icmp6OutDestUnreachs)
	hook off
	rj_routes
}
outcome() {
	echo "dst=$(rxs "$NS_DST" "$TMPD/held" | wc -l) src=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)" \
	     "icmp=$(sed -n "s/^IC $NS_SRC //p" "$TMPD/held" | tr ' ' / | paste -sd,) unreach-delta=$((U1 - U0))"
}
held_pre in_rtr ip -6 route del fd00:77::/64
echo "# End.DX6 inner packet held at PRE_ROUTING, nh6 route deleted: $(outcome) ($R)"
check "End.DX6 held at PRE_ROUTING, nh6 route deleted: ICMPv6 unreachable to the inner source, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp=1/0 unreach-delta=1" ]
held_pre true
echo "# End.DX6 inner packet held at PRE_ROUTING, nothing changed: $(outcome) ($R)"
check "End.DX6 held at PRE_ROUTING, route unchanged: delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp= unreach-delta=0" ]

check "kernel log: no WARN/BUG/RCU/refcount line" dmesg_clean
check "srv6d stops cleanly (SIGTERM)" srv6d_stop
summary
