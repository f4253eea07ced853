#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_nhctx.sh - next-hop contexts (src/kernel/nhctx.c): the policy routing
# srv6d installs, and that a packet given back by NFQUEUE with a context's
# mark is routed by it (ip6_route_input uses skb->mark after nf_reinject).
#
#   +--------------+      +-----------------------------+      +----------------+
#   | src          |      | rtr (forwarding=1)          |      | nh1            |
#   |         eth0 +------+ eth0                   eth1 +------+ eth0           |
#   | 2001:db8:1::1|      | 2001:db8:1::2  2001:db8:2::1|      | 2001:db8:2::2  |
#   +--------------+      |                fe80::1      |      | fe80::2        |
#     UDP to D            |                        eth2 +--+   +----------------+
#                         |                2001:db8:3::1|  |   +----------------+
#                         +-----------------------------+  +---+ eth0  nh2      |
#                                                              | 2001:db8:3::2  |
#   D = 2001:db8:ee::1                                         +----------------+
#   rtr main table:  2001:db8:ee::/48 via nh2    table 100: 2001:db8:ee::/48 via nh1
#   rtr raw PREROUTING: -d 2001:db8:ee::/48 -j NFQUEUE --queue-num 0, consumed by
#   tests/net/tools/nfq_mark.c, which accepts every packet with one mark.
#   nh1 and nh2 count what arrives for D (raw PREROUTING counters).
#
# Checks: (a) sync installs the rules/tables and a marked packet follows its
# context (End.X global and link-local nh6, End.T), mark 0 follows main, an
# unassigned mark of srv6d's range is dropped (blackhole rule), incremental
# sync + gc, repair, errors naming the token; (b) close removes everything;
# (c) a crashed instance's rules and routes are removed by the next open;
# (d) srv6d starts in a netns that holds kernel seg6local routes (libnl's
# route cache failed the whole dump on them: "removing stale next-hop
# contexts: Input/output error"), leaves them alone, and still sweeps its own
# stale adjacency routes and fail-open blackholes.
set -u
source "$(dirname "$0")/lib.sh"

TOOLS="$BUILD/tests/net"
NS_RTR="nhrtr-$$-$RANDOM" NS_SRC="nhsrc-$$-$RANDOM"
NS_NH1="nhnh1-$$-$RANDOM" NS_NH2="nhnh2-$$-$RANDOM"
D=2001:db8:ee::1
COPROC_PID=

cleanup_nh() {
	[ -n "$COPROC_PID" ] && kill "$COPROC_PID" 2>/dev/null
	[ -n "$SRV6D_PID" ] && srv6d_stop
	local ns
	for ns in "$NS_SRC" "$NS_RTR" "$NS_NH1" "$NS_NH2"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$TMPD"
}

require_env
for t in nhctx_tool nfq_mark; do
	[ -x "$TOOLS/$t" ] || { echo "[FAIL] $TOOLS/$t not built (make BUILD=... all)"; exit 1; }
done
trap cleanup_nh EXIT

rtr() { ip netns exec "$NS_RTR" "$@"; }

setup() {
	local ns
	for ns in "$NS_SRC" "$NS_RTR" "$NS_NH1" "$NS_NH2"; do
		ip netns add "$ns" || return 1
		ip -n "$ns" link set lo up
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 >/dev/null
	done
	rtr sysctl -qw net.ipv6.conf.all.forwarding=1 >/dev/null
	ip -n "$NS_SRC" link add eth0 type veth peer name eth0 netns "$NS_RTR" || return 1
	ip -n "$NS_NH1" link add eth0 type veth peer name eth1 netns "$NS_RTR" || return 1
	ip -n "$NS_NH2" link add eth0 type veth peer name eth2 netns "$NS_RTR" || return 1
	ip -n "$NS_SRC" addr add 2001:db8:1::1/64 dev eth0 nodad
	ip -n "$NS_RTR" addr add 2001:db8:1::2/64 dev eth0 nodad
	ip -n "$NS_RTR" addr add 2001:db8:2::1/64 dev eth1 nodad
	ip -n "$NS_RTR" addr add fe80::1/64 dev eth1 nodad
	ip -n "$NS_RTR" addr add 2001:db8:3::1/64 dev eth2 nodad
	ip -n "$NS_NH1" addr add 2001:db8:2::2/64 dev eth0 nodad
	ip -n "$NS_NH1" addr add fe80::2/64 dev eth0 nodad
	ip -n "$NS_NH2" addr add 2001:db8:3::2/64 dev eth0 nodad
	ip -n "$NS_SRC" link set eth0 up
	ip -n "$NS_NH1" link set eth0 up
	ip -n "$NS_NH2" link set eth0 up
	for ns in eth0 eth1 eth2; do ip -n "$NS_RTR" link set "$ns" up; done
	# static neighbours: nothing to resolve on the data path
	ip -n "$NS_SRC" neigh replace 2001:db8:1::2 lladdr "$(mac_of "$NS_RTR" eth0)" dev eth0 nud permanent
	ip -n "$NS_RTR" neigh replace 2001:db8:2::2 lladdr "$(mac_of "$NS_NH1" eth0)" dev eth1 nud permanent
	ip -n "$NS_RTR" neigh replace fe80::2 lladdr "$(mac_of "$NS_NH1" eth0)" dev eth1 nud permanent
	ip -n "$NS_RTR" neigh replace 2001:db8:3::2 lladdr "$(mac_of "$NS_NH2" eth0)" dev eth2 nud permanent
	ip -n "$NS_SRC" -6 route add default via 2001:db8:1::2 dev eth0
	ip -n "$NS_RTR" -6 route add 2001:db8:ee::/48 via 2001:db8:3::2 dev eth2
	ip -n "$NS_RTR" -6 route add 2001:db8:ee::/48 via 2001:db8:2::2 dev eth1 table 100
	ip -n "$NS_RTR" addr add 10.9.0.1/24 dev eth1
	rtr ip6tables -t raw -A PREROUTING -d 2001:db8:ee::/48 -j NFQUEUE --queue-num 0
	for ns in "$NS_NH1" "$NS_NH2"; do
		ip netns exec "$ns" ip6tables -t raw -A PREROUTING -d 2001:db8:ee::/48
	done
}

# ---- driving nhctx_tool as a coprocess ----
# nh_start [ARGS]: start the tool in rtr; 0 when it answered "ready".
nh_start() {
	coproc NH { ip netns exec "$NS_RTR" "$TOOLS/nhctx_tool" "$@" 2>&1; }
	COPROC_PID=$NH_PID
	local line
	read -r -t 10 line <&"${NH[0]}" || return 1
	[ "$line" = ready ] || { echo "# $line"; return 1; }
}
# nh_cmd LINES...: send lines, read the answer up to "ok..."/"err...".
# Sets MARKS (array) and REPLY_LINE (the final line).
nh_cmd() {
	local l
	MARKS=() REPLY_LINE=
	printf '%s\n' "$@" >&"${NH[1]}"
	while read -r -t 10 l <&"${NH[0]}"; do
		case "$l" in
		"mark "*) MARKS+=("${l#mark }") ;;
		ok*|err*|count*) REPLY_LINE=$l; return 0 ;;
		esac
	done
	REPLY_LINE="(no answer)"
	return 1
}
nh_wait_exit() {
	local pid=$COPROC_PID
	wait_until 5 eval '! kill -0 '"$pid"' 2>/dev/null'
	COPROC_PID=
}

# ---- traffic ----
count_at() { # NS -> packets for D seen in raw PREROUTING
	ip netns exec "$1" ip6tables -t raw -L PREROUTING -vnx | awk '/2001:db8:ee::\/48/ {print $1; exit}'
}
# send_marked MARK: 5 UDP datagrams to D through an NFQUEUE consumer giving MARK;
# sets AT1 / AT2 (packets arriving at nh1 / nh2) and QN (packets the consumer saw
# and gave a verdict, 2 s before it exits: an expected 0 at nh1/nh2 counts only
# with QN >= 5, so every check asserting "nowhere" also asserts QN).
send_marked() {
	local out=$TMPD/nfq.out
	ip netns exec "$NS_NH1" ip6tables -t raw -Z PREROUTING
	ip netns exec "$NS_NH2" ip6tables -t raw -Z PREROUTING
	: >"$out"   # now: the last call's "ready" must not be waited on
	rtr "$TOOLS/nfq_mark" 0 "$1" 2 >>"$out" 2>&1 &
	local pid=$!
	wait_until 5 grep -q ready "$out"
	ip netns exec "$NS_SRC" "$PY" -c 'import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(b"srv6d-nhctx", ("'$D'", 9)); time.sleep(0.02)'
	wait "$pid"
	QN=$(awk '/^packets/ {print $2}' "$out")
	AT1=$(count_at "$NS_NH1") AT2=$(count_at "$NS_NH2")
	# a failed listing must not read as 0: "?" fails every numeric test
	QN=${QN:-?} AT1=${AT1:-?} AT2=${AT2:-?}
}

rules6() { rtr ip -6 rule show; }
rules4() { rtr ip -4 rule show; }
ours6() { rules6 | grep -c '0x6d'; }
ours4() { rules4 | grep -c '0x6d'; }
our_routes() { { rtr ip -6 route show table all; rtr ip -4 route show table all; } | grep -c 'table 42000'; }

setup || { echo "[FAIL] topology setup"; exit 1; }

# ---- (a) sync ----
nh_start || { fail "nhctx open"; summary; exit 1; }
ok "nhctx open"
# no rule at all while no context needs one (issue 9.7)
check "open installs no rule until a context needs one" test "$(ours6)" -eq 0 -a "$(ours4)" -eq 0

nh_cmd sync "End" "End.X nh6 2001:db8:2::2 oif eth1" "End.X nh6 fe80::2 oif eth1" \
	"End.X nh6 2001:db8:2::2 oif eth1" "End.T table 100" "End.DX6 nh6 ::" \
	"End.DX4 nh4 10.9.0.2" "End.DT46 table 200" "End.B6" end
if [ "$REPLY_LINE" = ok ]; then ok "sync of 9 SIDs"; else fail "sync of 9 SIDs" "$REPLY_LINE"; fi
check "with contexts: the IPv6 catch-all (unreachable) rule for the mark range" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^40001:.*fwmark 0x6d000000/0xffff0000 unreachable'"
check "with contexts: the IPv4 catch-all (unreachable) rule for the mark range" \
	bash -c "ip netns exec $NS_RTR ip -4 rule show | grep -q '^40001:.*fwmark 0x6d000000/0xffff0000 unreachable'"
# table isolation: the gate before the host's one local rule, resolved (a
# context rule exists at 40000), and the local rule still proto kernel
for fam in 6 4; do
	check "IPv$fam: the isolation gate (pref 0, goto 40000, resolved) comes before the one local rule" \
		bash -c "ip netns exec $NS_RTR ip -$fam rule show | head -2 | tr -s '\t ' ' ' | tr '\n' '|' |
			 grep -qx '0: from all fwmark 0x6d000000/0xffff0000 goto 40000|0: from all lookup local|' &&
			 [ \$(ip netns exec $NS_RTR ip -$fam rule show | grep -c 'lookup local') -eq 1 ]"
	check "IPv$fam: the re-added local rule is proto kernel" \
		bash -c "ip netns exec $NS_RTR ip -d -$fam rule show | grep 'lookup local' | grep -q 'proto kernel'"
done
check "with contexts: the gate in front of them (unmarked lookups skip to 40001)" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -m1 '^40000:' | grep -q 'not from all fwmark 0x6d000000/0xffff0000 goto 40001'"
# srv6d's presence costs an unmarked lookup one rule (issue 14): the
# contexts and the catch-all come after the host's main and default rules
for fam in 6 4; do
	c1=$(rtr ip -$fam rule show | rules_crossed 0 main)
	c0=$(rtr ip -$fam rule show | rules_crossed 0 "")
	check "IPv$fam: an unmarked lookup main routes crosses 1 srv6d rule ($c1), one no table routes 3 ($c0)" \
		test "$c1" -eq 1 -a "$c0" -eq 3
	check "IPv$fam: srv6d's rules other than the isolation gate come after main and default" \
		bash -c "ip netns exec $NS_RTR ip -$fam rule show | awk '/0x6d/ && \$1 + 0 > 0 && \$1 + 0 < 32768 { bad = 1 } END { exit bad }'"
done
M_X=${MARKS[1]:-} M_LL=${MARKS[2]:-} M_T=${MARKS[4]:-} M_DX4=${MARKS[6]:-} M_DT46=${MARKS[7]:-}
check "End, End.DX6 nh6 ::, End.B6 get mark 0" \
	test "${MARKS[0]:-}/${MARKS[5]:-}/${MARKS[8]:-}" = "0x0/0x0/0x0"
check "identical (nh6, oif) share one context" test "${MARKS[1]:-a}" = "${MARKS[3]:-b}"
check "distinct contexts get distinct marks in 0x6d00xxxx" \
	bash -c "printf '%s\n' $M_X $M_LL $M_T $M_DX4 $M_DT46 | grep -c '^0x6d00' | grep -qx 5 &&
		 [ \$(printf '%s\n' $M_X $M_LL $M_T $M_DX4 $M_DT46 | sort -u | wc -l) -eq 5 ]"
tx=$(rules6 | awk -v m="$M_X" '$0 ~ "fwmark " m " lookup" {print $NF}')
check "End.X: fwmark rule $M_X -> adjacency table" test -n "$tx"
check "End.X: table $tx holds default via 2001:db8:2::2 dev eth1" \
	bash -c "ip netns exec $NS_RTR ip -6 route show table '$tx' | grep -q '^default via 2001:db8:2::2 dev eth1'"
tll=$(rules6 | awk -v m="$M_LL" '$0 ~ "fwmark " m " lookup" {print $NF}')
check "End.X link-local: default via fe80::2 dev eth1 onlink" \
	bash -c "ip netns exec $NS_RTR ip -6 route show table '$tll' | grep -q '^default via fe80::2 dev eth1 .*onlink'"
check "End.T table 100: fwmark rule $M_T lookup 100" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^40000:.*fwmark $M_T lookup 100'"
check "End.DX4: IPv4 rule and 0.0.0.0/0 via 10.9.0.2" \
	bash -c "t=\$(ip netns exec $NS_RTR ip -4 rule show | awk '/fwmark $M_DX4 lookup/ {print \$NF}');
		 [ -n \"\$t\" ] && ip netns exec $NS_RTR ip -4 route show table \$t | grep -q '^default via 10.9.0.2'"
check "End.DT46 table 200: IPv6 and IPv4 rules lookup 200" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q 'fwmark $M_DT46 lookup 200' &&
		 ip netns exec $NS_RTR ip -4 rule show | grep -q 'fwmark $M_DT46 lookup 200'"

# the packet path: NF_ACCEPT with the mark at raw PREROUTING
send_marked 0
check "control: mark 0 follows the main table to nh2 (nh1 $AT1, nh2 $AT2, queued $QN)" \
	test "$QN" -ge 5 -a "$AT2" -ge 5 -a "$AT1" -eq 0
send_marked "$M_X"
check "End.X mark $M_X: reinjected packets go to nh1 (nh1 $AT1, nh2 $AT2, queued $QN)" \
	test "$QN" -ge 5 -a "$AT1" -ge 5 -a "$AT2" -eq 0
send_marked "$M_LL"
check "End.X link-local mark $M_LL: packets go to nh1 (nh1 $AT1, nh2 $AT2)" \
	test "$QN" -ge 5 -a "$AT1" -ge 5 -a "$AT2" -eq 0
send_marked "$M_T"
check "End.T mark $M_T: table 100 routes to nh1 (nh1 $AT1, nh2 $AT2)" \
	test "$QN" -ge 5 -a "$AT1" -ge 5 -a "$AT2" -eq 0
send_marked 0x6d00fff0
check "unassigned mark 0x6d00fff0 is blackholed, not routed by main (nh1 $AT1, nh2 $AT2, queued $QN)" \
	test "$QN" -ge 5 -a "$AT1" -eq 0 -a "$AT2" -eq 0

# idempotent and incremental
before=$(rules6; rules4; rtr ip -6 route show table all | grep 'table 42000')
nh_cmd sync "End" "End.X nh6 2001:db8:2::2 oif eth1" "End.X nh6 fe80::2 oif eth1" \
	"End.X nh6 2001:db8:2::2 oif eth1" "End.T table 100" "End.DX6 nh6 ::" \
	"End.DX4 nh4 10.9.0.2" "End.DT46 table 200" "End.B6" end
after=$(rules6; rules4; rtr ip -6 route show table all | grep 'table 42000')
check "re-sync of the same SIDs changes nothing" test "$REPLY_LINE" = ok -a "$before" = "$after" \
	-a "${MARKS[1]:-}" = "$M_X" -a "${MARKS[4]:-}" = "$M_T"
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" "End.DX6 nh6 2001:db8:3::2" end
M_DX6=${MARKS[1]:-}
check "incremental sync keeps the End.X mark, adds End.DX6" \
	test "$REPLY_LINE" = ok -a "${MARKS[0]:-}" = "$M_X" -a -n "$M_DX6" -a "$M_DX6" != 0x0
check "unused contexts stay until gc (callers publish first)" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q 'fwmark $M_T lookup 100'"
nh_cmd gc
check "gc removes the 4 unused contexts ($REPLY_LINE)" test "$REPLY_LINE" = "ok 4"
check "after gc: 2 IPv6 context rules + gate + catch-all + isolation gate, no IPv4 rule (no IPv4 context)" \
	test "$(ours6)" -eq 5 -a "$(ours4)" -eq 0
check "after gc: only the 2 adjacency tables remain" test "$(our_routes)" -eq 2
send_marked "$M_DX6"
check "End.DX6 nh6 2001:db8:3::2 mark $M_DX6: packets go to nh2 (nh1 $AT1, nh2 $AT2)" \
	test "$QN" -ge 5 -a "$AT2" -ge 5 -a "$AT1" -eq 0
send_marked "$M_T"
check "removed End.T mark $M_T is now blackholed (nh1 $AT1, nh2 $AT2)" \
	test "$QN" -ge 5 -a "$AT1" -eq 0 -a "$AT2" -eq 0

# repair: an interface flap flushes the adjacency route; the next sync restores it
tx=$(rules6 | awk -v m="$M_X" '$0 ~ "fwmark " m " lookup" {print $NF}')
rtr ip -6 route flush table "$tx"
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" "End.DX6 nh6 2001:db8:3::2" end
check "re-sync repairs a vanished adjacency route" \
	bash -c "ip netns exec $NS_RTR ip -6 route show table '$tx' | grep -q '^default via 2001:db8:2::2'"

# errors name the bad token and change nothing
before=$(rules6; rules4)
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth9" end
check "unknown interface is reported by name ($REPLY_LINE)" test "$REPLY_LINE" = 'err unknown interface "eth9"'
nh_cmd sync "End.X nh6 fe80::2" end
check "link-local nh6 without oif is refused ($REPLY_LINE)" \
	test "$REPLY_LINE" = "err nh6 fe80::2: link-local next hop needs oif"
nh_cmd sync "End.X nh6 2001:db8:77::1" end
check "unreachable nh6 fails the sync ($REPLY_LINE)" bash -c "[[ '$REPLY_LINE' == 'err nh6 2001:db8:77::1: '* ]]"
nh_cmd gc
check "failed syncs leave nothing behind and keep the old contexts ($REPLY_LINE)" \
	test "$REPLY_LINE" = "ok 0" -a "$before" = "$(rules6; rules4)"

# a reload whose sync succeeded but whose publish failed, then a reload whose
# sync failed, then gc (srv6d's error path): the running config's contexts stay
nh_cmd sync "End.T table 100" end            # B: "sync ok, publish failed"
M_B=${MARKS[0]:-}
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth9" end   # C: fails
nh_cmd gc
check "gc after [sync ok, publish failed][sync failed] removes only B's context ($REPLY_LINE)" \
	test "$REPLY_LINE" = "ok 1" -a "$before" = "$(rules6; rules4)"
check "... and B's rule is gone" \
	bash -c "! ip netns exec $NS_RTR ip -6 rule show | grep -q 'fwmark $M_B '"
send_marked "$M_X"
check "... and the running End.X context still forwards (nh1 $AT1, nh2 $AT2)" \
	test "$QN" -ge 5 -a "$AT1" -ge 5 -a "$AT2" -eq 0

# abort: a synced config that will not be published goes, the running stays
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" "End.DX6 nh6 2001:db8:3::2" "End.T table 100" end
M_B=${MARKS[2]:-}
nh_cmd abort
check "abort removes the unpublished sync's new context ($REPLY_LINE)" \
	test "$REPLY_LINE" = "ok 1" -a "$before" = "$(rules6; rules4)"
nh_cmd gc
check "gc after abort removes nothing ($REPLY_LINE)" test "$REPLY_LINE" = "ok 0"

# ---- (b) close ----
nh_cmd close
nh_wait_exit
check "close removes every rule" test "$(ours6)" -eq 0 -a "$(ours4)" -eq 0
check "close removes every adjacency route" test "$(our_routes)" -eq 0
check "close leaves foreign rules and table 100 alone" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q 'lookup main' &&
		 ip netns exec $NS_RTR ip -6 route show table 100 | grep -q 2001:db8:ee::/48"

# ---- (c) crash recovery ----
nh_start && nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" "End.T table 100" \
	"End.DX4 nh4 10.9.0.2" end
printf 'crash\n' >&"${NH[1]}"
nh_wait_exit
check "a crashed instance leaves its rules and routes (3 ctx, gates, catch-alls)" \
	test "$(ours6)" -eq 5 -a "$(ours4)" -eq 4 -a "$(our_routes)" -eq 2
# a foreign rule at the same priority without our mark must survive
rtr ip -6 rule add pref 40000 fwmark 0x10 lookup 100
nh_start || fail "re-open after crash"
check "open after a crash removes the stale rules (gates and catch-alls too)" \
	test "$(ours6)" -eq 0 -a "$(ours4)" -eq 0
check "open after a crash removes the stale adjacency routes" test "$(our_routes)" -eq 0
check "open after a crash keeps a foreign pref 40000 rule" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^40000:.*fwmark 0x10 lookup 100'"
# (srv6d refuses to install behind it, see below)
rtr ip -6 rule del pref 40000 fwmark 0x10 lookup 100
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" end
send_marked "${MARKS[0]:-0x0}"
check "after recovery End.X works again (nh1 $AT1, nh2 $AT2)" test "$QN" -ge 5 -a "$AT1" -ge 5 -a "$AT2" -eq 0
nh_cmd close
nh_wait_exit

# a crash of an srv6d with the old layout (rule-pref 1000, the default
# before the contexts moved behind main): its gate at 0 would send our marks
# to its stale contexts.  Rules carrying our marks go, whatever their
# preference; a foreign rule at 1000 stays.
for fam in 6 4; do
	rtr ip -$fam rule add pref 1001 fwmark 0x6d000000/0xffff0000 unreachable
	rtr ip -$fam rule add pref 1000 not fwmark 0x6d000000/0xffff0000 goto 1001
	rtr ip -$fam rule add pref 1000 fwmark 0x6d000001 lookup 4200000001
	rtr ip -$fam rule add pref 0 fwmark 0x6d000000/0xffff0000 goto 1000
done
rtr ip -6 rule add pref 1000 fwmark 0x10 lookup 100
nh_start || fail "open with an old layout's rules"
check "open removes a crashed old-layout srv6d's rules (pref 0/1000/1001, both families)" \
	test "$(ours6)" -eq 0 -a "$(ours4)" -eq 0
check "... and keeps a foreign pref 1000 rule" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^1000:.*fwmark 0x10 lookup 100'"
nh_cmd close
nh_wait_exit

# a foreign rule at srv6d's preference: the isolation gate's goto lands on
# the first rule of 40000, so srv6d's results would meet it first
rtr ip -6 rule add pref 40000 lookup 100
nh_start || fail "open with a foreign rule at 40000"
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" end
check "a foreign rule at rule-pref is refused, naming the preference ($REPLY_LINE)" \
	test "$REPLY_LINE" = "err IPv6 rule preference 40000 holds a rule that is not srv6d's: srv6d's results would reach it (choose another rule-pref, or move it)"
check "... and srv6d installed no rule" test "$(ours6)" -eq 0 -a "$(ours4)" -eq 0
rtr ip -6 rule del pref 40000 lookup 100
nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" end
check "... without it the sync succeeds ($REPLY_LINE)" test "$REPLY_LINE" = ok
nh_cmd close
nh_wait_exit

# non-default parameters are honoured and validated
nh_start 0x7a000000 4100000000 2000 && nh_cmd sync "End.X nh6 2001:db8:2::2 oif eth1" end
check "custom mark/table/prio: rule 2000 fwmark 0x7a000001 lookup 4100000001" \
	bash -c "ip netns exec $NS_RTR ip -6 rule show | grep -q '^2000:.*fwmark 0x7a000001 lookup 4100000001'"
nh_cmd close
nh_wait_exit
out=$(rtr "$TOOLS/nhctx_tool" 0x7a000001 0 0 </dev/null)
check "mark base with index bits is refused ($out)" \
	test "$out" = "err mark base 0x7a000001: low 16 bits must be 0"

# ---- (d) kernel seg6local routes beside srv6d ----
# (without seg6local in the kernel, only the sweep of srv6d's own stale
# state is tested: the checks naming the seg6local routes are skipped)
rtr sysctl -qw net.ipv6.conf.all.seg6_enabled=1 >/dev/null
SEG6L=
if needs "setup: two kernel seg6local routes" seg6local; then
	SEG6L=yes
	# one in srv6d's adjacency table range too, not of srv6d's protocol
	for r in "2001:db8:77::1 encap seg6local action End dev eth1" \
		 "2001:db8:77::2 encap seg6local action End dev eth1 table 4200000005"; do
		err=$(rtr ip -6 route add $r 2>&1) ||
			fail "setup: ip -6 route add $r" "$err"
	done
fi
# stale state of a crashed srv6d: an adjacency route, a fail-open blackhole
rtr ip -6 route add default via 2001:db8:2::2 dev eth1 table 4200000099 proto static
rtr ip -6 route add blackhole 2001:db8:ff::9 proto 109 metric $((0xffff0000 + 40000))  # + the default rule-pref
rtr ip -6 route add blackhole 2001:db8:ff::1 proto 109 metric $((0xffff0000 + 1000))   # + the pre-40000 default, a SID of d.conf
seg6l() { { rtr ip -6 route show; rtr ip -6 route show table 4200000005; } | grep -c 'seg6local action End'; }
[ -n "$SEG6L" ] && check "setup: two kernel seg6local routes" test "$(seg6l)" -eq 2
cat >"$TMPD/d.conf" <<EOC
queue 5
fail-open yes
sid 2001:db8:ff::1 action End
sid 2001:db8:ff::3 action End.X nh6 2001:db8:2::2 oif eth1
$(conf_extra)
EOC
d_start="srv6d starts beside kernel seg6local routes"
[ -n "$SEG6L" ] || d_start="srv6d starts (no kernel seg6local route beside it)"
if srv6d_start "$TMPD/d.conf" "$TMPD/d.stats" "$TMPD/d.log"; then
	ok "$d_start"
else
	fail "$d_start" "$(grep -m1 error "$TMPD/d.log")"
fi
needs "... and leaves both seg6local routes alone" seg6local &&
	check "... and leaves both seg6local routes alone" test "$(seg6l)" -eq 2
check "... and still removes a stale adjacency route (proto static, its table range)" \
	bash -c "! ip netns exec $NS_RTR ip -6 route show table 4200000099 | grep -q ."
check "... and still removes a stale fail-open blackhole" \
	bash -c "! ip netns exec $NS_RTR ip -6 route show | grep -q 'blackhole 2001:db8:ff::9 '"
check "... and takes over one a srv6d from before rule-pref 40000 left for its SID (metric 0xffff0000 + 1000)" \
	bash -c "! ip netns exec $NS_RTR ip -6 route show | grep -q 'blackhole 2001:db8:ff::1 .*metric $((0xffff0000 + 1000)) '"
check "... and installs its own (End.X context route, SID blackhole)" \
	bash -c "ip netns exec $NS_RTR ip -6 route show table all | grep -q '^default via 2001:db8:2::2 dev eth1 table 4200000001 proto static' &&
		 ip netns exec $NS_RTR ip -6 route show | grep -q 'blackhole 2001:db8:ff::1 .*metric $((0xffff0000 + 40000)) '"
srv6d_stop
check "srv6d stops cleanly (rc ${SRV6D_RC:-?})" test "${SRV6D_RC:-1}" -eq 0
needs "... and the seg6local routes stay" seg6local &&
	check "... and the seg6local routes stay" test "$(seg6l)" -eq 2
sanitizer_reports "$TMPD"

summary
