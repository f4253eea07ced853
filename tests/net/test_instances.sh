#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_instances.sh - issue 9.5: two srv6d in one network namespace.
#
#   +-------------+        +---------------------------------------------+        +-----+
#   | src         |        | rtr  srv6d A: queue 0, chain SRV6D,         |        | dst |
#   |        eth0 +--------+ eth0   marks 0x6d.., tables 4200000001.., eth1 +--------+     |
#   |             |        |        rule pref 40000/40001                |        |     |
#   +-------------+        |      srv6d B: queue 1, then with its own    |        +-----+
#                          |        chain, marks, tables and prefs       |
#                          +---------------------------------------------+
#
# Checks: B with A's (default) resources but its own queue is refused at
# start, names the resource, and leaves A's chain, rules and tables as they
# were (before, it removed them as a crashed predecessor's and replaced A's
# chain); B with its own steer-chain, mark-base, table-base and rule-pref
# runs beside A, and stopping it leaves A's steering and routing intact.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

require_env
trap 'cleanup_b; cleanup' EXIT
topo_create || { echo "cannot create the topology"; exit 1; }
if ! srv6d_built; then fail "instances" "srv6d not built ($SRV6D)"; summary; exit; fi

B_PID=
cleanup_b() { [ -n "$B_PID" ] && { kill -TERM "$B_PID" 2>/dev/null; wait "$B_PID" 2>/dev/null; }; B_PID=; }
# state: A's steering, rules and tables, as text
state() {
	in_rtr ip6tables-save -t raw | grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'
	in_rtr ip -6 rule show
	in_rtr ip -6 route show table all | grep -E 'table (42|5)[0-9]{3}'
}

cat >"$TMPD/a.conf" <<CONF
queue 0
sid 2001:db8:ff::1 action End
sid 2001:db8:ff::3 action End.X nh6 $DST_ADDR
CONF
cat >"$TMPD/b-clash.conf" <<CONF
queue 1
sid 2001:db8:ee::1 action End
sid 2001:db8:ee::3 action End.X nh6 $SRC_ADDR
CONF
cat >"$TMPD/b.conf" <<CONF
queue 1
steer-chain SRV6D-B
mark-base 0x6e000000
table-base 5000
rule-pref 2000
sid 2001:db8:ee::1 action End
sid 2001:db8:ee::3 action End.X nh6 $SRC_ADDR
CONF

if ! srv6d_start "$TMPD/a.conf" "$TMPD/a.stats" "$TMPD/a.log"; then
	fail "instance A" "srv6d did not start"; summary; exit
fi
before=$(state)
check "A: one context rule at pref 40000" bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^40000:.*fwmark 0x6d000001'"

# ---- B with A's resources ----------------------------------------------------
ip netns exec "$NS_RTR" "$SRV6D" -f -c "$TMPD/b-clash.conf" >"$TMPD/b-clash.log" 2>&1 &
B_PID=$!
wait_until 10 eval '! kill -0 $B_PID 2>/dev/null'
if kill -0 "$B_PID" 2>/dev/null; then rc=running; cleanup_b; else wait "$B_PID"; rc=$?; B_PID=; fi
check "B with A's chain, marks, tables and prefs: refused at start (rc=$rc)" \
	eval '[ "$rc" != running ] && [ "$rc" -ne 0 ]'
check "B's message names the resource" \
	grep -q "another srv6d in this network namespace uses tables overlapping 4200000001-4200065535" "$TMPD/b-clash.log"
after=$(state)
check "A's chain, rules and tables untouched" test "$after" = "$before"
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/#   /'

# ---- B with its own ----------------------------------------------------------
ip netns exec "$NS_RTR" "$SRV6D" -f -c "$TMPD/b.conf" >"$TMPD/b.log" 2>&1 &
B_PID=$!
check "B with its own resources starts beside A" wait_until 10 grep -q "started:" "$TMPD/b.log"
check "B's chain SRV6D-B is installed, first in raw PREROUTING or right after A's" \
	bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D-B | grep -q 'ee::1/128 -j NFQUEUE --queue-num 1'"
check "B's context rule at pref 2000, mark 0x6e000001, table 5001" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^2000:.*fwmark 0x6e000001 lookup 5001'"
check "A's chain still holds A's rules" \
	bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D | grep -q 'ff::1/128 -j NFQUEUE --queue-num 0'"
# A checks its steering at a reload: B's jump in front of A's is no bypass
kill -HUP "$SRV6D_PID"
wait_until 10 grep -q reloaded "$SRV6D_LOG"
check "A's check at reload accepts B's jump in front (no repair)" \
	bash -c "grep -q reloaded $SRV6D_LOG && ! grep -q 'installing it again' $SRV6D_LOG"
cleanup_b
after=$(state)
check "after B stopped: A's steering and routing as before" test "$after" = "$before"
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/#   /'
check "A still running" srv6d_alive
srv6d_stop
check "A exits 0 (rc=$SRV6D_RC)" test "$SRV6D_RC" -eq 0

summary
