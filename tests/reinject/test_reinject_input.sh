#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_input.sh - the kernel's seg6local queued at IPv6 LOCAL_IN
# (before the behavior: the okfn seg6_local_input_core runs from
# nf_reinject(), inside srv6d's verdict sendmsg) with srv6d's verdict-policy
# queues (docs/REINJECTION.md).
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src ---- rtr (seg6local SIDs; mangle INPUT -d 2001:db8:5::/64 -j NFQUEUE) ---- dst
#
# 1. every action with `policy accept`: what dst (or src) receives equals,
#    byte for byte, the run without the rule; the SID's counter counts both
# 2. drop, repeat mark (guarded), repeat without a mark (loops until the
#    rule goes: bounded), requeue, delay, accept mark: each does what it says
# 3. hold, change what the behavior will look up (route, neighbour),
#    release: the outcome (delivered, rerouted, ICMPv6 Destination
#    Unreachable) is asserted with the Icmp6OutDestUnreachs delta
# 4. the kernel log has no WARN/BUG/RCU/refcount line
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }


# ---- 1. every action, policy accept at LOCAL_IN ----------------------------
for c in end end-x end-t end-dx6 end-dx4 end-dt6 end-b6 end-b6-encaps; do
	n=$(( $(echo "end end-x end-t end-dx6 end-dx4 end-dt6 end-b6 end-b6-encaps" | tr ' ' '\n' |
		grep -nx "$c" | cut -d: -f1) ))
	s=$SID:$n
	hook off
	p0=$(sidpkts "$s")
	send "$c" dst >"$TMPD/base.$c"
	hook INPUT 10 -d 2001:db8:5::/64
	q0=$(qget 10 packets)
	send "$c" dst >"$TMPD/hook.$c"
	base=$(rxs "$NS_DST" "$TMPD/base.$c") got=$(rxs "$NS_DST" "$TMPD/hook.$c")
	if [ -n "$base" ] && [ "$(echo "$base" | wc -l)" -eq 1 ] && [ "$base" = "$got" ]; then
		ok "$c: LOCAL_IN accept: forwarded byte for byte as without the hook"
	else
		fail "$c: LOCAL_IN accept differs from the run without the hook" "base: $base" "hook: $got"
	fi
	check "$c: the packet crossed queue 10" [ "$(qget 10 packets)" -eq $((q0 + 1)) ]
	check "$c: seg6local counted both runs" [ "$(sidpkts "$s")" -eq $((p0 + 2)) ]
done
hook off
send end dst >"$TMPD/base.end"
BASE_END=$(rxs "$NS_DST" "$TMPD/base.end")

# ---- 2. the other policies, on End -------------------------------------
p0=$(sidpkts $SID:1)
hook INPUT 12 -d $SID:1
send end dst 1 2 >"$TMPD/drop"
check "drop: nothing delivered" [ -z "$(rxs "$NS_DST" "$TMPD/drop")" ]
check "drop: the behavior never ran (seg6local counter unchanged)" [ "$(sidpkts $SID:1)" -eq "$p0" ]
check "drop: queue 12 dropped 1" [ "$(qget 12 dropped)" -eq 1 ]

hook INPUT 13 -d $SID:1
send end dst >"$TMPD/repeat"
check "repeat mark 0x10: delivered once, unchanged" [ "$(rxs "$NS_DST" "$TMPD/repeat")" = "$BASE_END" ]
check "repeat mark 0x10: repeated once, then accepted by the mark guard" \
	[ "$(qget 13 repeated)/$(qget 13 guarded)/$(qget 13 packets)" = 1/1/2 ]

hook INPUT 14 -d $SID:1
send end dst 1 30 >"$TMPD/loop" &
spid=$!
if wait_until 20 qpackets_ge 14 50; then
	ok "repeat without a mark: loops (50 passes through queue 14)"
else
	fail "repeat without a mark: did not loop ($(qget 14 packets) passes)"
fi
hook off    # the bound: the next NF_REPEAT finds no rule and accepts
wait $spid
check "repeat without a mark: delivered once after the rule went" \
	[ "$(rxs "$NS_DST" "$TMPD/loop")" = "$BASE_END" ]

hook INPUT 15 -d $SID:1
q0=$(qget 10 packets)
send end dst >"$TMPD/requeue"
check "requeue 10: delivered once, unchanged" [ "$(rxs "$NS_DST" "$TMPD/requeue")" = "$BASE_END" ]
check "requeue 10: queue 15 requeued it to queue 10" \
	[ "$(qget 15 requeued)/$(( $(qget 10 packets) - q0 ))" = 1/1 ]

hook INPUT 16 -d $SID:1
send end dst >"$TMPD/delay"
check "delay 200ms: delivered once, unchanged" [ "$(rxs "$NS_DST" "$TMPD/delay")" = "$BASE_END" ]
check "delay 200ms: held then released by the timer" \
	[ "$(qget 16 held_total)/$(qget 16 released)/$(qget 16 held_now)" = 1/1/0 ]

hook INPUT 17 -d $SID:1
in_rtr ip6tables -t mangle -A FORWARD -m mark --mark 0x20/0x20
send end dst >"$TMPD/mark"
check "accept mark 0x20: delivered once" [ "$(rxs "$NS_DST" "$TMPD/mark")" = "$BASE_END" ]
check "accept mark 0x20: the forwarded packet carries the mark (FORWARD rule counted 1)" \
	[ "$(in_rtr ip6tables -t mangle -L FORWARD -v -x -n | awk '/mark match/ {print $1}')" = 1 ]

# ---- 3. hold, change the lookup, release ----------------------------------
# held CASE CAPS TIMEOUT CMD...: send CASE (queued on 11 at LOCAL_IN), wait
# until it is held, run CMD, release it; output in $TMPD/held.  Then what
# CMD changed is restored and rtr's dst/route/neighbour counters checked
# against their baseline (kbase/kcheck, lib.sh).
held() {
	local c=$1 caps=$2 t=$3 spid; shift 3
	kbase
	rm -f "$TMPD/released"
	hook INPUT 11 -d 2001:db8:5::/64
	RJ_AFTER=$TMPD/released send "$c" "$caps" 1 "$t" >"$TMPD/held" &
	spid=$!
	wait_until 30 held_is 11 1 || { fail "$c: not held"; : >"$TMPD/released"; wait $spid; rj_unheld; return 1; }
	"$@"
	U0=$(snmp6 Icmp6OutDestUnreachs) N0=$(snmp6 Ip6InNoRoutes)
	R=$(ctl queue release 11 1)
	: >"$TMPD/released"   # the capture's timeout counts from here (slow kernels)
	wait $spid
	U1=$(snmp6 Icmp6OutDestUnreachs) N1=$(snmp6 Ip6InNoRoutes)
	hook off
	rj_routes
	in_rtr ip -6 route del unreachable 2001:db8:2::2/128 2>/dev/null
	ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	kcheck "$c held at LOCAL_IN ($*)"
}
outcome() { # what happened to the held packet, one word
	local d s i
	d=$(rxs "$NS_DST" "$TMPD/held" | wc -l) s=$(rxs "$NS_SRC" "$TMPD/held" | wc -l)
	i=$(grep -c "^IC $NS_SRC 1 " "$TMPD/held")
	echo "dst=$d src=$s icmp-unreach=$i unreach-delta=$((U1 - U0)) noroute-delta=$((N1 - N0))"
}

held end-x both 3 in_rtr ip -6 route del fd00:77::/64
echo "# End.X, nh6 route deleted while held: $(outcome) ($R)"
check "End.X nh6 route deleted while held: ICMPv6 unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=1 unreach-delta=1 noroute-delta=1" ]

held end-x both 3 in_rtr ip -6 route replace fd00:77::/64 via $SRC_ADDR dev "$RTR_IF_SRC"
echo "# End.X, nh6 route replaced while held: $(outcome) ($R)"
check "End.X nh6 route replaced while held: rerouted to src, no ICMP" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=0 unreach-delta=0 noroute-delta=0" ]

held end-t both 3 in_rtr ip -6 route del 2001:db8:cc::/64 table 100
echo "# End.T, table 100 route deleted while held: $(outcome) ($R)"
check "End.T table route deleted while held: ICMPv6 unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=1 unreach-delta=1 noroute-delta=1" ]

held end-dt6 both 3 in_rtr ip -6 route del 2001:db8:cc::/64 table 100
echo "# End.DT6, table 100 route deleted while held: $(outcome) ($R)"
check "End.DT6 table route deleted while held: ICMPv6 unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=1 unreach-delta=1 noroute-delta=1" ]

held end-dx6 both 3 in_rtr ip -6 route del fd00:77::/64
echo "# End.DX6, nh6 route deleted while held: $(outcome) ($R)"
check "End.DX6 nh6 route deleted while held: ICMPv6 unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=1 unreach-delta=1 noroute-delta=1" ]

held end both 3 in_rtr ip -6 route add unreachable 2001:db8:2::2/128
echo "# End, new destination made unreachable while held: $(outcome) ($R)"
check "End new destination unreachable while held: ICMPv6 unreachable to src, counted once" \
	[ "$(outcome)" = "dst=0 src=1 icmp-unreach=1 unreach-delta=1 noroute-delta=1" ]

held end-x both 3 in_rtr ip -6 neigh del $DST_ADDR dev "$RTR_IF_DST"
echo "# End.X, nh6's neighbour deleted while held: $(outcome) ($R)"
check "End.X nh6's neighbour deleted while held: resolved again (ND), delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp-unreach=0 unreach-delta=0 noroute-delta=0" ]

held end-x both 3 true
echo "# End.X, nothing changed while held: $(outcome) ($R)"
check "End.X held and released unchanged: delivered" \
	[ "$(outcome)" = "dst=1 src=0 icmp-unreach=0 unreach-delta=0 noroute-delta=0" ]

check "queue 11: nothing left held, no late verdict" [ "$(qget 11 held_now)/$(qget 11 late)" = 0/0 ]

# ---- 4. the kernel log ----------------------------------------------------
rj_finish
