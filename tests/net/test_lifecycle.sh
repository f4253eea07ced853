#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_lifecycle.sh - srv6d's life outside the packet path: "srv6d -n"
# (check a conf and exit), running as a daemon (without -f), and a SIGKILL
# followed by a restart, which must clean up the stale chain, rules and
# next-hop contexts the killed instance left.
#
#   +---------------+      +----------------------------------+      +---------------+
#   | src           |      | rtr  srv6d                       |      | dst           |
#   |          eth0 +------+ eth0                        eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | sid 2001:db8:ff::1 End           |      | 2001:db8:2::2 |
#   | sends End     |      | sid 2001:db8:ff::3 End.X nh6 dst |      | captures      |
#   | packets       |      |   (a next-hop context: fwmark    |      |               |
#   +---------------+      |    rule + adjacency table)       |      +---------------+
#                          +----------------------------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin
if ! srv6d_built; then fail "srv6d lifecycle" "srv6d not built ($SRV6D)"; summary; exit; fi

SID=2001:db8:ff::1 SIDX=2001:db8:ff::3
conf=$TMPD/srv6d.conf
{
	echo "queue 0"
	echo "steer auto"
	echo "sid $SID action End"
	echo "sid $SIDX action End.X nh6 $DST_ADDR oif $RTR_IF_DST"
	conf_extra
} >"$conf"

# ---- srv6d -n ----
out=$("$SRV6D" -n -c "$conf" 2>&1); rc=$?
# --check may warn about the host (this namespace has neither eth1 nor
# forwarding): warnings only, no error line
errs=$(printf '%s\n' "$out" | grep -v -e '^$' -e ': warning: ' || true)
check "srv6d -n accepts a valid conf (exit $rc, no error line: '$errs')" test "$rc" -eq 0 -a -z "$errs"
bad=$TMPD/bad.conf
{ cat "$conf"; echo "sid 2001:db8:ff::9 action End.DX5"; } >"$bad"
out=$("$SRV6D" -n -c "$bad" 2>&1); rc=$?
check "srv6d -n refuses a bad conf with exit 1 ($rc)" test "$rc" -eq 1
check "... in one line naming file, line and word ($out)" \
	bash -c '[ "$(printf "%s\n" "$1" | grep -c .)" -eq 1 ] && [[ "$1" == *"$2:$3:"*End.DX5* ]]' \
	_ "$out" "$bad" "$(grep -c '' "$bad")"
check "srv6d -n touched nothing (no rules, no queue)" \
	bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q NFQUEUE &&
		 ! ip netns exec $NS_RTR cat /proc/net/netfilter/nfnetlink_queue | grep -q ."

# an End packet to $SID: SRH [aa::1, SID], SL 1
sid_pkt() { "$PY" "$PKT" build end | sed -n 2p; }
processed() { # 0 when an End packet to $SID comes out at dst with DA 2001:db8:bb::1
	local r
	r=$(pkt_to_dst send --hex "$(sid_pkt)" | awk '$1 == "RX" {print substr($4, 49, 32)}')
	[ "$r" = 20010db800bb00000000000000000001 ]
}
not() { ! "$@"; }
raw6() { in_rtr ip6tables -t raw -S 2>/dev/null; }
jumps() { raw6 | grep -c -- '-A PREROUTING -j SRV6D'; }
ctx_rules() { in_rtr ip -6 rule show | grep -c '0x6d'; }

# ---- running as a daemon (no -f) ----
in_rtr "$SRV6D" -c "$conf" -s "$TMPD/dstats" >"$TMPD/daemon.out" 2>&1; rc=$?
check "srv6d without -f returns 0 at once (exit $rc)" test "$rc" -eq 0
# the daemon: the srv6d process in rtr's namespace
dpid() { for p in $(ip netns pids "$NS_RTR"); do
		[ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$SRV6D")" ] && echo "$p"; done; }
daemon_ready() { [ -n "$(dpid)" ] && raw6 | grep -q NFQUEUE; }
if wait_until 10 daemon_ready; then
	pid=$(dpid)
	ok "the daemon runs in the background (pid $pid) with its rules"
	check "the daemon processes End packets" processed
	check "the daemon left no output on the terminal ($(head -c 200 "$TMPD/daemon.out"))" \
		test ! -s "$TMPD/daemon.out"
	kill -TERM "$pid"
	wait_until 10 eval '[ -z "$(dpid)" ]'
	check "the daemon exits on SIGTERM" test -z "$(dpid)"
	check "the daemon wrote its stats file at exit" test -s "$TMPD/dstats"
	check "the daemon removed its rules and contexts at exit" \
		test "$(jumps)" -eq 0 -a "$(ctx_rules)" -eq 0
else
	fail "the daemon runs in the background with its rules" "$(cat "$TMPD/daemon.out")"
fi

# ---- SIGKILL, then a restart ----
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.1.log"; then
	check "first instance processes End packets" processed
	ctx1=$(ctx_rules)
	kill -KILL "$SRV6D_PID"; wait "$SRV6D_PID" 2>/dev/null; SRV6D_PID=
	check "SIGKILL leaves the chain, its jump and the contexts behind (jumps $(jumps), context rules $(ctx_rules))" \
		test "$(jumps)" -eq 1 -a "$(ctx_rules)" -ge 2
	check "... and, fail-closed with nobody on the queue, End packets are dropped" \
		not processed
	stale=$(raw6)
	# a duplicate jump, as a crash in the middle of an update could leave
	# (a chain holding a rule srv6d never writes is refused instead:
	# test_steer_robust.sh)
	in_rtr ip6tables -t raw -I PREROUTING -j SRV6D
	if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.2.log"; then
		check "restart after SIGKILL: one jump, the chain rebuilt ($(jumps) jumps)" \
			bash -c '[ "$(ip netns exec "$1" ip6tables -t raw -S | grep -c -- "-A PREROUTING -j SRV6D")" -eq 1 ]' _ "$NS_RTR"
		check "restart: the same rules as the first instance installed" test "$(raw6)" = "$stale"
		check "restart: End packets processed again" processed
		check "restart: stale contexts removed, not duplicated ($(ctx_rules) rules, first instance $ctx1)" \
			test "$(ctx_rules)" -eq "$ctx1"
		srv6d_stop TERM
		check "restart: exits 0 (rc=$SRV6D_RC)" test "$SRV6D_RC" -eq 0
		check "restart: nothing left behind (jumps $(jumps), context rules $(ctx_rules))" \
			test "$(jumps)" -eq 0 -a "$(ctx_rules)" -eq 0 -a -z "$(raw6 | grep SRV6D)"
	else
		fail "restart after SIGKILL" "$(cat "$TMPD/srv6d.2.log")"
	fi
else
	fail "first instance starts"
fi
summary
