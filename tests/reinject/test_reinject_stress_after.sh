#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_stress_after.sh - the stress variant after the behavior:
# RJ_N (2000) End.X packets of the kernel's seg6local, rewritten and with
# the route End.X's lookup attached, held at IPv6 POST_ROUTING in srv6d's
# policy queue 11; half released, then the rest at once while another
# process deletes and re-adds that route (fd00:77::/64) in a loop
# (docs/REINJECTION.md).
# A held packet whose route was deleted and freed before its verdict
# carries a put dst (dst_dev_put: blackhole_netdev, MTU 68): ip6_finish_output
# answers it with an ICMPv6 Packet Too Big and drops it (Ip6FragFails).
# Every packet must be accounted for, exactly:
#   delivered (counted at dst) + Packet Too Big sent (Icmp6OutPktTooBigs)
#   + ICMPv6 rate-limited                                   == RJ_N
#   Ip6FragFails delta (the named drop)  == Packet Too Big + rate-limited
#   Packet Too Big received at src       == Packet Too Big sent
# the seg6local counter moved by RJ_N, nothing held or late, rtr's dst and
# neighbour counters back to their baseline, the namespaces torn down
# completely and the kernel log clean.  (At FORWARD such a packet ends in
# dst_discard_out, a drop no counter names on this kernel: the single-packet
# case of test_reinject_after.sh asserts it.)
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(RJ_N x End.X)--> rtr (End.X; POSTROUTING -> queue 11 hold; route churn) --> dst (counter)
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
RJ_N=${RJ_N:-2000}
rj_require
trap 'churn_stop; cleanup' EXIT
rj_setup || { fail "setup"; exit 1; }

ptb_at_src() { in_src ip6tables -L INPUT -v -x -n | awk '/ipv6-icmptype 2/ {print $1}'; }
rl() { echo $(( $(snmp6 Icmp6OutRateLimitHost) + $(snmp6 Icmp6OutRateLimitGlobal) )); }

in_rtr sysctl -qw net.ipv6.icmp.ratelimit=0 >/dev/null
sink_add
in_src ip6tables -A INPUT -p icmpv6 --icmpv6-type 2
kbase
hook POSTROUTING 11 -d $DST_ADDR -p udp --dport 5000
s0=$(sidpkts $SID:2)
"$PY" "$RJ_DIR/rj_send.py" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap "$NS_DST:eth0" \
	--hex "${RJ_HEX[end-x]}" --count "$RJ_N" --want 0 --timeout 0 >/dev/null
if wait_until 60 held_is 11 "$RJ_N"; then
	ok "$RJ_N packets held at POSTROUTING after End.X (kernel waiting $(in_rtr awk '$1 == 11 {print $3}' /proc/net/netfilter/nfnetlink_queue))"
else
	fail "held $(qget 11 held_now) of $RJ_N"
fi
check "the behavior ran for each before the hold (seg6local counter +$RJ_N)" \
	[ $(( $(sidpkts $SID:2) - s0 )) -eq "$RJ_N" ]
d0=$(sink) p0=$(snmp6 Icmp6OutPktTooBigs) f0=$(snmp6 Ip6FragFails) l0=$(rl) r0=$(ptb_at_src)
# the first half released before the churn (their route alive: delivered),
# the rest while it runs
H=$((RJ_N / 2))
R1=$(ctl queue release 11 $H)
wait_until 30 held_is 11 $((RJ_N - H))
ip netns exec "$NS_RTR" bash -c "while :; do ip -6 route del fd00:77::/64; \
	ip -6 route add fd00:77::/64 via $DST_ADDR dev $RTR_IF_DST; \
	ip link add r13ch0 type veth peer name r13ch1; ip link del r13ch0; done" >/dev/null 2>&1 &
CHURN_PID=$!
sleep 0.05     # the churn starting (the veth pair: an RCU barrier each round)
R=$(ctl queue release 11 all)
wait_until 30 held_is 11 0
churn_stop
rj_routes
case $R1/$R in
"queue 11: released $H/queue 11: released $((RJ_N - H))"|\
"queue 11: releasing $H (in progress: queue show 11)/queue 11: released $((RJ_N - H))"|\
"queue 11: released $H/queue 11: releasing $((RJ_N - H)) (in progress: queue show 11)"|\
"queue 11: releasing $H (in progress: queue show 11)/queue 11: releasing $((RJ_N - H)) (in progress: queue show 11)")
	ok "release $H, then all under churn: $R1; $R" ;;
*) fail "release $H, then all: $R1; $R" ;;
esac
closes() { [ $(( $(sink) - d0 + $(snmp6 Icmp6OutPktTooBigs) - p0 + $(rl) - l0 )) -eq "$RJ_N" ]; }
wait_until 20 closes
d=$(( $(sink) - d0 )) p=$(( $(snmp6 Icmp6OutPktTooBigs) - p0 )) f=$(( $(snmp6 Ip6FragFails) - f0 ))
l=$(( $(rl) - l0 ))
wait_until 5 eval '[ $(( $(ptb_at_src) - r0 )) -ge $p ]'
r=$(( $(ptb_at_src) - r0 ))
echo "# released $RJ_N at POSTROUTING under route churn: delivered $d, packet too big $p (at src $r), rate-limited $l, Ip6FragFails $f"
check "every packet accounted: delivered $d + packet too big $p + rate-limited $l = $RJ_N" \
	[ $((d + p + l)) -eq "$RJ_N" ]
check "every undelivered one is a named drop: Ip6FragFails $f = $((p + l))" [ "$f" -eq $((p + l)) ]
check "every Packet Too Big sent arrived at src ($r)" [ "$r" -eq "$p" ]
check "queue 11: nothing held, no late verdict, kernel waiting 0" \
	[ "$(qget 11 held_now)/$(qget 11 late)/$(in_rtr awk '$1 == 11 {print $3}' /proc/net/netfilter/nfnetlink_queue)" = 0/0/0 ]
hook off
kcheck "after the release under churn"
rj_finish
