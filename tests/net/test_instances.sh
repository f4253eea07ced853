#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_instances.sh - issue 9.5: two srv6d in one network namespace; issue 22.4:
# a default one leaves a rule-pref 1000 one's fail-open blackholes.
#
#   +-------------+        +---------------------------------------------+        +-----+
#   | src         |        | rtr  srv6d A: queue 0, chain SRV6D,         |        | dst |
#   |        eth0 +--------+ eth0   marks 0x6d.., tables 4200000001.., eth1 +--------+     |
#   |             |        |        rule pref 40000/40001                |        |     |
#   +-------------+        |      srv6d B: queue 1, then with its own    |        +-----+
#                          |        chain, marks, tables and prefs       |
#                          |      srv6d L: queue 1, chain SRV6D-L,       |
#                          |        rule-pref 1000, fail-open yes        |
#                          |      main: 2001:db8::/32 via dst            |
#                          +---------------------------------------------+
#
# Checks: B with A's (default) resources but its own queue is refused at
# start, names the resource, and leaves A's chain, rules and tables as they
# were (before, it removed them as a crashed predecessor's and replaced A's
# chain); B with its own steer-chain, mark-base, table-base and rule-pref
# runs beside A, and stopping it leaves A's steering and routing intact.
#
# Fail-open (issue 22.4): L (queue 1, chain SRV6D-L, rule-pref 1000,
# fail-open yes, End 2001:db8:ee::1) has its blackhole at the metric a
# pre-40000 srv6d used (0xffff0000 + 1000), which a default instance takes
# over.  A (default resources, fail-open yes) started and reloaded beside
# the running L, then restarted after L's kill -9, leaves L's blackhole:
# L's SID traffic, bypassed by L's stale chain, is dropped, never routed
# toward the SID through rtr's 2001:db8::/32 underlay route (before, A's
# start removed it and that traffic left in clear).  A pre-40000 blackhole
# of a prefix A protects itself is still taken over (replaced by A's).
#
# Issue 22.4 follow-up: A protecting L's ee::1 too (reloaded to it, then
# started with it) beside the running L leaves L's blackhole of ee::1 (only
# the lock test keeps it: A wants that prefix); with the lock file unreadable
# (a symlink: O_NOFOLLOW) A leaves it too and says so, once over two
# reloads.  A's notice of the blackholes it left is said once over two
# reloads that change nothing (before, at every sync: a retry every 5 s).
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d --trap 'cleanup_lock; cleanup_b'

B_PID=
cleanup_b() { [ -n "$B_PID" ] && { kill -TERM "$B_PID" 2>/dev/null; wait "$B_PID" 2>/dev/null; }; B_PID=; }
# the instance lock file of rtr's namespace (instance.h), and where the
# unreadable-lock case moves it; cleanup_lock puts it back
LOCKF=
cleanup_lock() {
	if [ -n "$LOCKF" ] && [ -e "$LOCKF.moved" ]; then
		rm -f "$LOCKF" && mv "$LOCKF.moved" "$LOCKF"
	fi
	return 0
}
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

# ---- fail-open: a rule-pref 1000 instance beside a default one ---------------
OLDM=$((0xffff0000 + 1000))     # L's metric, and a pre-40000 srv6d's
NEWM=$((0xffff0000 + 40000))    # a default instance's
cat >"$TMPD/l.conf" <<CONF
queue 1
steer-chain SRV6D-L
mark-base 0x6e000000
table-base 5000
rule-pref 1000
fail-open yes
sid 2001:db8:ee::1 action End
$(conf_extra)
CONF
cat >"$TMPD/af.conf" <<CONF
queue 0
fail-open yes
sid 2001:db8:ff::1 action End
$(conf_extra)
CONF
# A protecting L's prefix too
cat >"$TMPD/afee.conf" <<CONF
queue 0
fail-open yes
sid 2001:db8:ff::1 action End
sid 2001:db8:ee::1 action End
$(conf_extra)
CONF
cp "$TMPD/af.conf" "$TMPD/af-run.conf"   # what A runs (reloads read it)
# bh PREFIX METRIC: rtr's main table holds srv6d's blackhole PREFIX at METRIC
bh() { in_rtr ip -6 route show proto 109 | grep -q "^blackhole $1 .*metric $2 "; }
# reload_a: SIGHUP to A, and wait until it says it reloaded (its kernel
# side is applied by then)
reloads() { grep -c 'notice: reloaded' "$SRV6D_LOG"; }
reload_a() {
	local n
	n=$(reloads)
	kill -HUP "$SRV6D_PID"
	wait_until 10 eval '[ "$(reloads)" -gt '"$n"' ]'
}
# said FILE TEXT: how many lines of FILE hold TEXT
said() { grep -c -- "$2" "$1"; }
# L's SID traffic: End packets (SRH [aa::1, ee::1], SL 1) as hex, one a line
L_PKTS=$("$PY" -c '
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, ICMPv6EchoRequest
for i in (1, 2):
    p = (IPv6(src="2001:db8:1::1", dst="2001:db8:ee::1", hlim=64)
         / IPv6ExtHdrSegmentRouting(addresses=["2001:db8:aa::1", "2001:db8:ee::1"], segleft=1)
         / ICMPv6EchoRequest(id=0x5d6, seq=i, data=b"srv6d-instances"))
    print(bytes(p).hex())')
# l_rx: the outer destinations of what reaches dst of L's SID traffic
l_rx() {
	# shellcheck disable=SC2086  # one packet a word
	pkt_to_dst --timeout 1 send --hex $L_PKTS | awk '$1 == "RX" {print $4}' |
		"$PY" -c '
import sys, ipaddress
for h in sys.stdin:
    print(ipaddress.IPv6Address(bytes.fromhex(h.strip())[24:40]))'
}

ip netns exec "$NS_RTR" "$SRV6D" -f -c "$TMPD/l.conf" >"$TMPD/l.log" 2>&1 &
B_PID=$!
if ! wait_until 10 grep -q "started:" "$TMPD/l.log"; then
	fail "L (rule-pref 1000, fail-open) starts" "$(tail -3 "$TMPD/l.log")"; summary; exit
fi
check "L: its blackhole for ee::1 at metric $OLDM" bh 2001:db8:ee::1 $OLDM
out=$(l_rx)
check "L running: its SID packets leave processed toward aa::1 ($(echo $out))" \
	test "$(grep -c '^2001:db8:aa::1$' <<<"$out")" -eq 2
if ! srv6d_start "$TMPD/af-run.conf" "$TMPD/af.stats" "$TMPD/af.log"; then
	fail "A (default, fail-open) starts beside L"; summary; exit
fi
check "A started beside the running L: L's blackhole stays" bh 2001:db8:ee::1 $OLDM
check "... and A has its own for ff::1 at metric $NEWM" bh 2001:db8:ff::1 $NEWM
kill -HUP "$SRV6D_PID"
wait_until 10 grep -q reloaded "$SRV6D_LOG"
check "A reloaded beside the running L: L's blackhole stays" bh 2001:db8:ee::1 $OLDM

# A protects ee::1 too: only L's lock keeps A from taking its blackhole over
cp "$TMPD/afee.conf" "$TMPD/af-run.conf"
reload_a
check "A reloaded protecting L's ee::1 too, L running: A has its own at metric $NEWM" \
	bh 2001:db8:ee::1 $NEWM
check "... and L's blackhole of ee::1 at metric $OLDM stays" bh 2001:db8:ee::1 $OLDM
srv6d_stop
if srv6d_start "$TMPD/af-run.conf" "$TMPD/af.stats" "$TMPD/afee.log"; then
	check "A started protecting L's ee::1 too, L running: L's blackhole stays" \
		bh 2001:db8:ee::1 $OLDM
else
	fail "A starts protecting L's ee::1 too beside L"; summary; exit
fi
# whether L runs cannot be told (its lock file a symlink: O_NOFOLLOW, ELOOP):
# L's blackhole is left, and that said once
LOCKF=/run/srv6d/instances.$(in_rtr stat -L -c %i /proc/self/ns/net)
unknown="fail-open: 1 blackholes at metric $OLDM left: whether a rule-pref 1000 srv6d runs is unknown (its lock file $LOCKF: "
if [ -f "$LOCKF" ] && mv "$LOCKF" "$LOCKF.moved" && ln -s "$LOCKF.moved" "$LOCKF"; then
	reload_a
	reload_a
	cleanup_lock
	check "A reloaded twice with its lock file unreadable: L's blackhole of ee::1 stays" \
		bh 2001:db8:ee::1 $OLDM
	check "... and A says why, once ($(said "$SRV6D_LOG" "$unknown"))" \
		test "$(said "$SRV6D_LOG" "$unknown")" = 1
else
	cleanup_lock
	fail "the lock file $LOCKF replaced by a symlink"
fi
cp "$TMPD/af.conf" "$TMPD/af-run.conf"
reload_a
check "A back to ff::1 only: its blackhole of ee::1 goes, L's stays" \
	bash -c "! ip netns exec $NS_RTR ip -6 route show proto 109 | grep -q '^blackhole 2001:db8:ee::1 .*metric $NEWM ' &&
		 ip netns exec $NS_RTR ip -6 route show proto 109 | grep -q '^blackhole 2001:db8:ee::1 .*metric $OLDM '"
kill -KILL "$B_PID"; wait "$B_PID" 2>/dev/null; B_PID=
out=$(l_rx)
check "L killed: its SID packets are not routed toward the SID ($(echo $out))" \
	test -z "$(grep '^2001:db8:ee::1$' <<<"$out")"
# a pre-40000 srv6d's blackhole for a prefix A protects: A's to take over
in_rtr ip -6 route add blackhole 2001:db8:ff::1 proto 109 metric $OLDM
srv6d_stop
if srv6d_start "$TMPD/af.conf" "$TMPD/af.stats" "$TMPD/af2.log"; then
	check "A restarted after L's kill -9: L's blackhole stays" bh 2001:db8:ee::1 $OLDM
	left="fail-open: 1 blackholes at metric $OLDM left, of prefixes"
	check "... and A says it left one at metric $OLDM" grep -q -- "$left" "$SRV6D_LOG"
	out=$(l_rx)
	check "... and L's SID packets are still not routed toward the SID ($(echo $out))" \
		test -z "$(grep '^2001:db8:ee::1$' <<<"$out")"
	check "... and A took over the pre-40000 blackhole of its own ff::1 (only its own left)" \
		bash -c "! ip netns exec $NS_RTR ip -6 route show proto 109 | grep -q '^blackhole 2001:db8:ff::1 .*metric $OLDM ' &&
			 ip netns exec $NS_RTR ip -6 route show proto 109 | grep -q '^blackhole 2001:db8:ff::1 .*metric $NEWM '"
	# nothing changes: nothing more to say (a failed apply's retry, every
	# 5 s, is the same sync)
	reload_a
	reload_a
	check "... and A reloaded twice, nothing changed: said once ($(said "$SRV6D_LOG" "$left"))" \
		test "$(said "$SRV6D_LOG" "$left")" = 1
	srv6d_stop
else
	fail "A restarts after L's kill -9"
fi

summary
