#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_rule_scale.sh - issue 9.7: srv6d's policy rules do not tax the host's
# other route lookups.  10,000 End.X SIDs, each with its own next hop, give
# 10,000 next-hop contexts (one fwmark rule and one adjacency table each);
# a lookup without one of srv6d's marks must cross at most the gate and the
# blackhole rule, not the 10,000 context rules.  Load time, srv6d's memory and
# the rule counts are printed (no timing thresholds).
#
#   +-------------+        +--------------------------------------------+        +-----+
#   | src         |        | rtr  srv6d (steer none): sid ff::N End.X   |        | dst |
#   |        eth0 +--------+ eth0   nh6 2001:db8:2::1:N, N = 1..10000   eth1 +--------+     |
#   +-------------+        | ip -6 rule: 1000 gate, 1000 x 10000, 1001   |        +-----+
#                          +--------------------------------------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

N=${SCALE_N:-10000}
require_env
trap cleanup EXIT
topo_create || { echo "cannot create the topology"; exit 1; }
if ! srv6d_built; then fail "rule scale" "srv6d not built ($SRV6D)"; summary; exit; fi

conf=$TMPD/srv6d.conf
{
	echo "queue 0"
	echo "steer none"
	for ((i = 1; i <= N; i++)); do
		printf 'sid 2001:db8:ff::%x action End.X nh6 2001:db8:2::1:%x\n' $i $i
	done
} >"$conf"

# srv6d_rules_crossed: the srv6d rules (the isolation gate at pref 0, pref
# 1000/1001) an IPv6 lookup with mark 0 evaluates, walking `ip -6 rule show`
# as fib_rules_lookup() does: a matching "goto P" continues at the first rule
# of preference P.
srv6d_rules_crossed() {
	in_rtr ip -6 rule show | awk '
		{ pref[NR] = $1 + 0; line[NR] = $0 }
		END {
			n = 0; i = 1
			while (i <= NR) {
				if (pref[i] == 1000 || pref[i] == 1001 || line[i] ~ /^0:.*fwmark 0x6d000000\/0xffff0000 goto/) n++
				if (line[i] ~ /not from all fwmark 0x6d000000\/0xffff0000 goto/) {
					t = $0; split(line[i], w, "goto "); tgt = w[2] + 0
					for (j = i + 1; j <= NR && pref[j] != tgt; j++) ;
					i = j; continue
				}
				if (line[i] ~ /lookup main/) break
				i++
			}
			print n
		}'
}

t0=$(date +%s%N)
ip netns exec "$NS_RTR" "$SRV6D" -f -c "$conf" >"$TMPD/srv6d.log" 2>&1 &
SRV6D_PID=$!
if ! wait_until 300 grep -q "started:" "$TMPD/srv6d.log"; then
	fail "srv6d loads $N End.X SIDs" "$(tail -3 "$TMPD/srv6d.log")"; summary; exit
fi
t1=$(date +%s%N)
rss=$(awk '/^VmRSS/ {print $2 " " $3}' "/proc/$SRV6D_PID/status")
rules=$(in_rtr ip -6 rule show | wc -l)
ctx=$(in_rtr ip -6 rule show | grep -c '^1000:.*fwmark 0x6d00[0-9a-f]* lookup')
crossed=$(srv6d_rules_crossed)
echo "# $N End.X SIDs: loaded in $(( (t1 - t0) / 1000000 )) ms, srv6d VmRSS $rss," \
	"$rules IPv6 rules, $ctx context rules; an unmarked lookup crosses $crossed srv6d rules"
check "$N context rules installed ($ctx)" test "$ctx" -eq "$N"
# the isolation gate at 0, the gate at 1000, the catch-all at 1001
check "an unmarked lookup crosses at most 3 srv6d rules, not $N ($crossed)" test "$crossed" -le 3
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
