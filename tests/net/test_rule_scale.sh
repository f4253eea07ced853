#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_rule_scale.sh - issue 9.7: srv6d's policy rules do not tax the host's
# other route lookups.  10,000 End.X SIDs, each with its own next hop, give
# 10,000 next-hop contexts (one fwmark rule and one adjacency table each);
# a lookup without one of srv6d's marks that a host table routes must cross
# one srv6d rule (the isolation gate at pref 0), and one that no table routes
# three (the gate at 40000 skips the 10,000 context rules).  Load time, srv6d's memory and
# the rule counts are printed (no timing thresholds).
#
#   +-------------+        +--------------------------------------------+        +-----+
#   | src         |        | rtr  srv6d (steer none): sid ff::N End.X   |        | dst |
#   |        eth0 +--------+ eth0   nh6 2001:db8:2::1:N, N = 1..10000   eth1 +--------+     |
#   +-------------+        | ip -6 rule: 0 gate, 0 local, 32766 main,    |        +-----+
#                          |  40000 gate, 40000 x 10000, 40001 catch-all |
#                          +--------------------------------------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

N=${SCALE_N:-10000}
test_begin
if ! srv6d_built; then fail "rule scale" "srv6d not built ($SRV6D)"; summary; exit; fi

conf=$TMPD/srv6d.conf
{
	echo "queue 0"
	echo "steer none"
	for ((i = 1; i <= N; i++)); do
		printf 'sid 2001:db8:ff::%x action End.X nh6 2001:db8:2::1:%x\n' $i $i
	done
} >"$conf"

t0=$(date +%s%N)
ip netns exec "$NS_RTR" "$SRV6D" -f -c "$conf" >"$TMPD/srv6d.log" 2>&1 &
SRV6D_PID=$!
if ! wait_until 300 grep -q "started:" "$TMPD/srv6d.log"; then
	fail "srv6d loads $N End.X SIDs" "$(tail -3 "$TMPD/srv6d.log")"; summary; exit
fi
t1=$(date +%s%N)
rss=$(awk '/^VmRSS/ {print $2 " " $3}' "/proc/$SRV6D_PID/status")
rules=$(in_rtr ip -6 rule show | wc -l)
ctx=$(in_rtr ip -6 rule show | grep -c '^40000:.*fwmark 0x6d00[0-9a-f]* lookup')
# walk the rule list as fib_rules_lookup() does (tests/net/lib.sh)
crossed=$(in_rtr ip -6 rule show | rules_crossed 0 main)
missed=$(in_rtr ip -6 rule show | rules_crossed 0 "")
marked=$(in_rtr ip -6 rule show | rules_crossed 0x6d000001 "")
echo "# $N End.X SIDs: loaded in $(( (t1 - t0) / 1000000 )) ms, srv6d VmRSS $rss," \
	"$rules IPv6 rules, $ctx context rules; an unmarked lookup crosses $crossed srv6d rules" \
	"($missed when no table routes it), a marked one $marked"
check "$N context rules installed ($ctx)" test "$ctx" -eq "$N"
# the target: srv6d's presence costs non-SRv6 lookups one rule, the
# isolation gate at 0; the contexts and the catch-all sit behind main
check "an unmarked lookup that main routes crosses exactly 1 srv6d rule ($crossed)" \
	test "$crossed" -eq 1
# one no host table routes (local, main, default all miss) reaches srv6d's
# preference: the gate there skips the contexts to the catch-all
check "an unmarked lookup no table routes crosses 3 srv6d rules, not $N ($missed)" \
	test "$missed" -eq 3
# a marked lookup: the isolation gate, the gate at 40000, its rule (the
# first context), nothing of the host's before them
check "a marked lookup jumps to the contexts from pref 0 ($marked srv6d rules)" \
	bash -c "[ '$marked' -ge 3 ] && ip netns exec $NS_RTR ip -6 rule show | head -1 |
		 grep -q '^0:.*fwmark 0x6d000000/0xffff0000 goto 40000'"
# the routing outcome: unmarked lookups use main, marked ones their context
got=$(in_rtr ip -6 route get 2001:db8:2::2 | head -1)
check "unmarked lookup: main table ($got)" bash -c "! grep -q table <<<'$got'"
m=$(printf '0x6d%06x' $(( N / 2 )))
got=$(in_rtr ip -6 route get 2001:db8:99::1 mark "$m" | head -1)
check "mark $m: its context's adjacency ($got)" \
	bash -c "grep -q 'via 2001:db8:2::1:$(printf %x $(( N / 2 )))' <<<'$got'"
got=$(in_rtr ip -6 route get 2001:db8:99::1 mark 0x6d00ffff 2>&1 | head -1)
check "an unused mark of the range is not routed by main ($got)" \
	bash -c "! grep -q 'via\|dev' <<<'$got'"
# removing 20,000 rules and routes takes the kernel a while (each change
# walks its tables): allow it more than srv6d_stop's 10 s
t2=$(date +%s%N)
kill -TERM "$SRV6D_PID"
wait_until 300 srv6d_gone
echo "# stopped in $(( ($(date +%s%N) - t2) / 1000000 )) ms"
srv6d_stop
check "srv6d exits 0 (rc=$SRV6D_RC)" test "$SRV6D_RC" -eq 0
check "no srv6d rule left" test "$(in_rtr ip -6 rule show | grep -c 0x6d)" -eq 0

summary
