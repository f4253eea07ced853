#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_stress_after.sh - the stress variant after the behavior:
# RJ_N (2000) End.X packets of the kernel's seg6local, rewritten and with
# the route End.X's lookup attached, held in srv6d's policy queue 11 at IPv6
# POST_ROUTING, then again at IPv6 FORWARD; each time half released, then
# the rest at once while another process deletes and re-adds that route
# (fd00:77::/64) in a loop, once its first round (delete, add, an RCU
# barrier) is done (docs/REINJECTION.md).
# A held packet whose route was deleted and freed before its verdict
# carries a put dst (dst_dev_put: blackhole_netdev, MTU 68, output
# dst_discard_out).  Every packet must be accounted for, exactly:
#   POST_ROUTING: ip6_finish_output answers it with an ICMPv6 Packet Too Big
#   and drops it (Ip6FragFails):
#     delivered (counted at dst) + Packet Too Big sent (Icmp6OutPktTooBigs)
#     + ICMPv6 rate-limited                                   == RJ_N
#     Ip6FragFails delta (the named drop)  == Packet Too Big + rate-limited
#     Packet Too Big received at src       == Packet Too Big sent
#   FORWARD: ip6_forward_finish hands it to dst_discard_out, a drop no
#   counter names: the drop monitor (lib.sh: the kernel's skb:kfree_skb
#   tracepoint) counts them:
#     delivered + freed in dst_discard_out == RJ_N, no ICMPv6 error sent,
#     Ip6FragFails unchanged
#   (without tracefs the FORWARD round is one [SKIP] line)
# And since the rest were released after the route they carry was freed:
# the first half delivered, the rest answered (POST_ROUTING) or dropped
# (FORWARD), exactly.
# Each round: the seg6local counter moved by RJ_N, nothing held or late,
# rtr's dst and neighbour counters back to their baseline; at the end the
# namespaces torn down completely and the kernel log clean.
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(RJ_N x End.X)--> rtr (End.X; POSTROUTING or FORWARD -> queue 11 hold; route churn) --> dst (counter)
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
RJ_N=${RJ_N:-2000}
rj_require
trap 'churn_stop; cleanup' EXIT
rj_setup || { fail "setup"; exit 1; }
dropmon_start

ptb_at_src() { in_src ip6tables -L INPUT -v -x -n | awk '/ipv6-icmptype 2/ {print $1}'; }
rl() { echo $(( $(snmp6 Icmp6OutRateLimitHost) + $(snmp6 Icmp6OutRateLimitGlobal) )); }

in_rtr sysctl -qw net.ipv6.icmp.ratelimit=0 >/dev/null
sink_add
in_src ip6tables -A INPUT -p icmpv6 --icmpv6-type 2

# stress CHAIN: one round held at CHAIN (POSTROUTING or FORWARD)
stress() {
	local chain=$1 s0 d0 p0 f0 l0 r0 R1 R H d p f l r u0 u
	kbase
	hook "$chain" 11 -d $DST_ADDR -p udp --dport 5000
	s0=$(sidpkts $SID:2)
	rj_flood "$chain, after End.X"
	check "$chain: the behavior ran for each before the hold (seg6local counter +$RJ_N)" \
		[ $(( $(sidpkts $SID:2) - s0 )) -eq "$RJ_N" ]
	d0=$(sink) p0=$(snmp6 Icmp6OutPktTooBigs) f0=$(snmp6 Ip6FragFails) l0=$(rl) r0=$(ptb_at_src)
	u0=$(snmp6 Icmp6OutDestUnreachs)
	dropmon_mark
	# the first half released before the churn (their route alive:
	# delivered), the rest while it runs
	H=$((RJ_N / 2))
	R1=$(ctl queue release 11 $H)
	wait_until 30 held_is 11 $((RJ_N - H)) || fail "$chain: the first $H not released ($(qget 11 held_now) held)"
	# the release starts once the churn has deleted the route the held
	# packets carry and an RCU barrier has passed (the veth pair): every one
	# of the rest now holds a put dst, whatever the churn does next
	churn_start "ip link add r13ch0 type veth peer name r13ch1; ip link del r13ch0" ||
		fail "$chain: the churn did not complete a round"
	R=$(ctl queue release 11 all)
	wait_until 30 held_is 11 0
	churn_stop
	rj_routes
	case $R1/$R in
	"queue 11: released $H/queue 11: released $((RJ_N - H))"|\
	"queue 11: releasing $H (in progress: queue show 11)/queue 11: released $((RJ_N - H))"|\
	"queue 11: released $H/queue 11: releasing $((RJ_N - H)) (in progress: queue show 11)"|\
	"queue 11: releasing $H (in progress: queue show 11)/queue 11: releasing $((RJ_N - H)) (in progress: queue show 11)")
		ok "$chain: release $H, then all under churn: $R1; $R" ;;
	*) fail "$chain: release $H, then all: $R1; $R" ;;
	esac
	if [ "$chain" = POSTROUTING ]; then
		closes() { [ $(( $(sink) - d0 + $(snmp6 Icmp6OutPktTooBigs) - p0 + $(rl) - l0 )) -eq "$RJ_N" ]; }
	else
		closes() { [ $(( $(sink) - d0 + $(dropmon_count dst_discard_out) )) -eq "$RJ_N" ]; }
	fi
	wait_until 20 closes
	d=$(( $(sink) - d0 )) p=$(( $(snmp6 Icmp6OutPktTooBigs) - p0 )) f=$(( $(snmp6 Ip6FragFails) - f0 ))
	l=$(( $(rl) - l0 )) u=$(( $(snmp6 Icmp6OutDestUnreachs) - u0 ))
	if [ "$chain" = POSTROUTING ]; then
		wait_until 5 eval '[ $(( $(ptb_at_src) - r0 )) -ge $p ]'
		r=$(( $(ptb_at_src) - r0 ))
		echo "# released $RJ_N at POSTROUTING under route churn: delivered $d, packet too big $p (at src $r), rate-limited $l, Ip6FragFails $f"
		check "POSTROUTING: every packet accounted: delivered $d + packet too big $p + rate-limited $l = $RJ_N" \
			[ $((d + p + l)) -eq "$RJ_N" ]
		check "POSTROUTING: every undelivered one is a named drop: Ip6FragFails $f = $((p + l))" [ "$f" -eq $((p + l)) ]
		check "POSTROUTING: every Packet Too Big sent arrived at src ($r)" [ "$r" -eq "$p" ]
		check "POSTROUTING: the $H released before the churn delivered, the $((RJ_N - H)) after its first round answered" \
			[ "$d/$((p + l))" = "$H/$((RJ_N - H))" ]
	else
		dropmon_take "FORWARD round"
		echo "# released $RJ_N at FORWARD under route churn: delivered $d, freed in dst_discard_out $DM_N, packet too big $p, unreachable $u, rate-limited $l, Ip6FragFails $f"
		check "FORWARD: every packet accounted: delivered $d + freed in dst_discard_out $DM_N = $RJ_N" \
			[ $((d + DM_N)) -eq "$RJ_N" ]
		check "FORWARD: the drops are silent: no ICMPv6 error sent or rate-limited, Ip6FragFails unchanged" \
			[ "$p/$u/$l/$f" = 0/0/0/0 ]
		check "FORWARD: the $H released before the churn delivered, the $((RJ_N - H)) after its first round dropped" \
			[ "$d/$DM_N" = "$H/$((RJ_N - H))" ]
	fi
	check "$chain: queue 11: nothing held, no late verdict, kernel waiting 0" \
		[ "$(qget 11 held_now)/$(qget 11 late)/$(in_rtr awk '$1 == 11 {print $3}' /proc/net/netfilter/nfnetlink_queue)" = 0/0/0 ]
	hook off
	kcheck "$chain: after the release under churn"
}

stress POSTROUTING
if [ "$DROPMON" = 1 ]; then
	stress FORWARD
else
	skip "FORWARD round" "its drops (dst_discard_out) are named by no counter, and this kernel has no drop monitor (tracefs)"
fi
rj_finish
