#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_steer_robust.sh - issue 9.6: the lifecycle of srv6d's steering chain
# (src/kernel/steer.c, src/daemon/main.c) against what else happens in raw
# PREROUTING.
#
#   +-------------+        +------------------------------------+        +-------------+
#   | src         |        | rtr  raw PREROUTING:               |        | dst         |
#   |        eth0 +--------+ eth0   [-j SRV6D first]       eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     |        -d 2001:db8:ff::/64 -j ACCEPT|       | counts what |
#   | UDP to the SID       | SRV6D: -d ff::1 -j NFQUEUE (no     |        | was not     |
#   +-------------+        |   listener, fail-closed: dropped)  |        | queued      |
#                          +------------------------------------+        +-------------+
#
# Checks: the jump is inserted before an earlier terminal rule (packets to the
# SID are queued, not accepted past srv6d); a chain holding a rule srv6d does
# not write is never flushed or removed; `steer none` after a crashed (SIGKILL)
# `steer auto` run removes the stale chain, but leaves rules the operator
# installed by hand alone; a flushed table, a removed jump and a rule
# inserted in front of the jump are found by srv6d's timer and on SIGHUP,
# reinstalled, counted ("steering repairs=N") and logged; the policies'
# chain in mangle POSTROUTING likewise.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

TOOL="$BUILD/tests/net/steer_tool"
marker_glob() { echo "/run/srv6d/steer.$(in_rtr stat -L -c %i /proc/self/ns/net).*"; }
test_begin --tool ip6tables-save --built "$TOOL" --trap 'rm -f $(marker_glob) 2>/dev/null'

steer() { in_rtr "$TOOL" "$@"; }
saved6() { in_rtr ip6tables-save -t raw | grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'; }
first_pre() { in_rtr ip6tables -t raw -S PREROUTING | sed -n 2p; }
in_dst ip6tables -t raw -A PREROUTING -d 2001:db8:ff::/64
udp_to() { # ADDR N: N datagrams from src; prints how many reached dst
	in_dst ip6tables -t raw -Z PREROUTING
	in_src "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])): s.sendto(b"steer", (sys.argv[1], 9))' "$1" "$2"
	sleep 0.2
	in_dst ip6tables -t raw -L PREROUTING -vnx | awk '/2001:db8:ff::\/64/ {print $1; exit}'
}

# ---- the jump goes first ----------------------------------------------------
in_rtr ip6tables -t raw -A PREROUTING -d 2001:db8:ff::/64 -j ACCEPT
steer install -q 0 -s 2001:db8:ff::1
check "jump inserted as the first rule of raw PREROUTING ($(first_pre))" \
	test "$(first_pre)" = "-A PREROUTING -j SRV6D"
n=$(udp_to 2001:db8:ff::1 5)
check "an earlier ACCEPT does not bypass srv6d: SID packets queued, none routed ($n)" \
	test "${n:-x}" -eq 0
steer remove
in_rtr ip6tables -t raw -D PREROUTING -d 2001:db8:ff::/64 -j ACCEPT

# ---- a chain srv6d did not write is never flushed ------------------------------
in_rtr ip6tables -t raw -N SRV6D
in_rtr ip6tables -t raw -A SRV6D -d 2001:db8:ee::/64 -j DROP
before=$(saved6)
out=$(steer install -q 0 -s 2001:db8:ff::1 2>&1); rc=$?
check "install into a foreign chain refused, naming its rule ($out)" \
	eval '[ $rc -ne 0 ] && [ "$out" = "steer: chain SRV6D holds a rule srv6d did not write (-A SRV6D -d 2001:db8:ee::/64 -j DROP): not touching it" ]'
check "the foreign chain is untouched" test "$(saved6)" = "$before"
out=$(steer remove 2>&1); rc=$?
check "remove refuses it too ($out)" eval '[ $rc -ne 0 ] && [ "$(saved6)" = "$before" ]'
in_rtr ip6tables -t raw -F SRV6D; in_rtr ip6tables -t raw -X SRV6D
rm -f $(marker_glob)

if ! srv6d_built; then
	fail "srv6d steering" "srv6d not built ($SRV6D)"; summary; exit
fi
conf=$TMPD/srv6d.conf
write_conf() { printf 'queue 0\nsteer %s\nsid 2001:db8:ff::1 action End\n' "$1" >"$conf"; }

# ---- steer none after a crashed steer auto ------------------------------------
write_conf auto
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.crash.log"; then
	kill -KILL "$SRV6D_PID"; wait "$SRV6D_PID" 2>/dev/null; SRV6D_PID=
	check "after SIGKILL the chain is still there" bash -c "ip netns exec $NS_RTR ip6tables -t raw -S | grep -q NFQUEUE"
	write_conf none
	if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.none.log"; then
		# srv6d is "ready" once its queue is bound; steering comes after:
		# wait for its start-up line
		wait_until 10 grep -q "started:" "$SRV6D_LOG"
		check "steer none removed the stale chain" \
			bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q 'SRV6D'"
		check "and said so" grep -q "removed the stale chain SRV6D" "$SRV6D_LOG"
		srv6d_stop
	else
		fail "steer none start" "srv6d did not start"
	fi
	# the operator's own rules (srv6_steer_format's text) under steer none stay
	steer format6 -q 0 -s 2001:db8:ff::1 | in_rtr ip6tables-restore --noflush
	if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.none2.log"; then
		wait_until 10 grep -q "started:" "$SRV6D_LOG"
		check "steer none keeps rules the operator installed" \
			bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D | grep -q NFQUEUE"
		srv6d_stop
	else
		fail "steer none with operator rules" "srv6d did not start"
	fi
	check "and they are still there after srv6d stopped" \
		bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D | grep -q NFQUEUE"
	in_rtr ip6tables -t raw -D PREROUTING -j SRV6D
	in_rtr ip6tables -t raw -F SRV6D; in_rtr ip6tables -t raw -X SRV6D
else
	fail "crashed steer auto" "srv6d did not start"
fi

# ---- vanished or bypassed chain: found, reinstalled, counted -------------------
repairs() { srv6d_stats >/dev/null; awk '/^steering repairs=/ {sub(/.*=/, ""); print}' "$SRV6D_STATS"; }
intact() { [ "$(first_pre)" = "-A PREROUTING -j SRV6D" ] &&
	in_rtr ip6tables -t raw -S SRV6D 2>/dev/null | grep -q NFQUEUE; }
write_conf auto
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.watch.log"; then
	check "no repair while nothing changed ($(repairs))" test "$(repairs)" = 0
	# a firewall reload / nft flush ruleset: one transaction (the timer
	# could otherwise run between a flush and a delete)
	printf '*raw\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n' | in_rtr ip6tables-restore
	check "a flushed raw table is found by the timer and reinstalled" wait_until 15 intact
	check "counted ($(repairs))" test "$(repairs)" = 1
	check "logged" grep -q "steering (timer check): IPv6 chain SRV6D is gone: installing it again" "$SRV6D_LOG"
	# a rule inserted in front of the jump
	in_rtr ip6tables -t raw -I PREROUTING 1 -d 2001:db8:ff::/64 -j ACCEPT
	check "a rule inserted in front is found and the jump moved back to the top" wait_until 15 intact
	check "counted ($(repairs))" test "$(repairs)" = 2
	n=$(udp_to 2001:db8:ff::1 3)
	check "and SID packets reach srv6d again, none routed past it ($n)" test "${n:-x}" -eq 0
	in_rtr ip6tables -t raw -D PREROUTING -d 2001:db8:ff::/64 -j ACCEPT
	# the jump removed, then SIGHUP: found at the reload
	in_rtr ip6tables -t raw -D PREROUTING -j SRV6D
	kill -HUP "$SRV6D_PID"
	check "a removed jump is found at SIGHUP" wait_until 10 grep -q "steering (reload check): IPv6 jump to SRV6D is gone" "$SRV6D_LOG"
	check "and reinstalled" wait_until 10 intact
	check "counted ($(repairs))" test "$(repairs)" -ge 3
	srv6d_stop
	check "srv6d removes its chain at exit" bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q SRV6D"
else
	fail "steering watch" "srv6d did not start"
fi

# ---- the policies' chain in mangle POSTROUTING is watched too ----------------
mangle_intact() { in_rtr ip6tables -t mangle -S POSTROUTING | sed -n 2p | grep -qx -- '-A POSTROUTING -j SRV6D' &&
	in_rtr ip6tables -t mangle -S SRV6D 2>/dev/null | grep -q -- '-o srv6d0 -j NFQUEUE'; }
{ write_conf auto; echo 'route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1'; } >"$conf.p"
mv "$conf.p" "$conf"
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.mangle.log"; then
	check "policies: srv6d's chain at mangle POSTROUTING" mangle_intact
	printf '*mangle\n:PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n' |
		in_rtr ip6tables-restore
	check "a flushed mangle table is found by the timer and reinstalled" wait_until 15 mangle_intact
	check "logged" grep -q "steering (timer check): IPv6 mangle chain SRV6D is gone: installing it again" \
		"$SRV6D_LOG"
	srv6d_stop
	check "srv6d removes its mangle chain at exit" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t mangle -S | grep -q SRV6D"
else
	fail "policies: steering watch" "srv6d did not start"
fi

summary
