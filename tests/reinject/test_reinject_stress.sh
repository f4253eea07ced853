#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_stress.sh - the review's race at scale: RJ_N (2000) End.X
# packets of the kernel's seg6local held at IPv6 LOCAL_IN in srv6d's
# policy queue 11, released all at once while another CPU deletes and
# re-adds the route End.X's nh6 lookup uses (docs/REINJECTION.md).
# Every packet must be accounted for, exactly:
#   delivered (counted at dst by an ip6tables rule)
#   + lookups that found no route (Ip6InNoRoutes delta)  == RJ_N
#   ICMPv6 Destination Unreachable sent (Icmp6OutDestUnreachs delta)
#   + ICMPv6 rate-limited (Icmp6OutRateLimit* deltas)    == the no-route count
# and the kernel log stays clean.  On this kernel (refcounted lookups) the
# counts close; a kernel whose lookups drop packets without their ICMP
# error shows up as a difference.
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(RJ_N x End.X)--> rtr (INPUT -> queue 11 hold; route churn) --> dst (counter)
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
RJ_N=${RJ_N:-2000}
rj_require
trap 'churn_stop; cleanup' EXIT
rj_setup || { fail "setup"; exit 1; }


# no ICMP rate limit in rtr's way (the count closes with or without it)
in_rtr sysctl -qw net.ipv6.icmp.ratelimit=0 net.ipv4.icmp_msgs_per_sec=1000000 \
	net.ipv4.icmp_msgs_burst=1000000 >/dev/null
sink_add
hook INPUT 11 -d $SID:2
rj_flood "LOCAL_IN"
d0=$(sink) n0=$(snmp6 Ip6InNoRoutes) u0=$(snmp6 Icmp6OutDestUnreachs)
l0=$(( $(snmp6 Icmp6OutRateLimitHost) + $(snmp6 Icmp6OutRateLimitGlobal) ))
s0=$(sidpkts $SID:2)
# released once the churn runs (a first round done): before, the release
# could outrun the loop's start and every packet found its route
churn_start || fail "the churn did not complete a round"
R=$(ctl queue release 11 all)
# srv6ctl answers once the verdicts are sent, or after 200 ms with
# "releasing N (in progress)" while srv6d goes on: wait for them all
wait_until 30 held_is 11 0
churn_stop
rj_routes
case $R in
"queue 11: released $RJ_N"|"queue 11: releasing $RJ_N (in progress: queue show 11)") ok "release all: $R" ;;
*) fail "release all: $R" ;;
esac
closes() { [ $(( $(sink) - d0 + $(snmp6 Ip6InNoRoutes) - n0 )) -eq "$RJ_N" ]; }
wait_until 20 closes
d=$(( $(sink) - d0 )) n=$(( $(snmp6 Ip6InNoRoutes) - n0 )) u=$(( $(snmp6 Icmp6OutDestUnreachs) - u0 ))
l=$(( $(snmp6 Icmp6OutRateLimitHost) + $(snmp6 Icmp6OutRateLimitGlobal) - l0 ))
echo "# released $RJ_N under route churn: delivered $d, no route $n, unreachable sent $u, rate-limited $l"
check "every packet accounted: delivered $d + no route $n = $RJ_N" [ $((d + n)) -eq "$RJ_N" ]
check "every no-route packet answered: unreachable $u + rate-limited $l = $n" [ $((u + l)) -eq "$n" ]
check "the behavior ran for each (seg6local counter +$RJ_N)" [ $(( $(sidpkts $SID:2) - s0 )) -eq "$RJ_N" ]
check "queue 11: nothing held, no late verdict, kernel waiting 0" \
	[ "$(qget 11 held_now)/$(qget 11 late)/$(in_rtr awk '$1 == 11 {print $3}' /proc/net/netfilter/nfnetlink_queue)" = 0/0/0 ]
rj_finish
