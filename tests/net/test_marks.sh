#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_marks.sh - srv6d shares the packet mark (issue 8, item 4): it owns the
# bits of `mark-mask`, its verdict sets (old & ~mask) | context, its fwmark
# rules match only the mask; with `steer auto` its context gate, the first
# rule of mangle PREROUTING, takes results with a context past rules that
# would rewrite its bits (issue 25), and with `steer none` it warns about them.
#
#   +---------------+      +------------------------------------------+      +---------------+
#   | src           |      | rtr   mark-mask 0xffff0000                |      | dst           |
#   |          eth0 +------+ eth0  End.X 2001:db8:ff::3           eth1 +------+ eth0         |
#   | 2001:db8:1::1 |      |       nh6 2001:db8:2::2 oif eth1          |      |  capture      |
#   +---------------+      |  mk1 +--+ mk0  (veth, both ends in rtr:  |      +---------------+
#                          |          the mark an AF_PACKET sender   |
#                          |          sets with SO_MARK survives)    |
#                          |  mangle PREROUTING:                     |
#                          |    CONNMARK --restore-mark --mask 0xff00|
#                          |  mangle FORWARD: count -m mark 0x1/0x1  |
#                          +------------------------------------------+
#
# The next segment 2001:db8:cc::1 is unreachable in rtr's main table: only the
# End.X context (the mark's srv6d bits) gets the packet to dst.
#   1. masked restore: End.X works;
#   2. a packet arriving with mark 0x1 (bit outside the mask) leaves End.X
#      with that bit kept (the FORWARD counter) and through the adjacency;
#   3. unmasked restore (default mark-mask, every bit): End.X still reaches
#      dst, in both egress modes, as the kernel's End.X does (its results
#      never cross mangle PREROUTING); the gate is mangle PREROUTING's first
#      rule, is put back in front of a rule inserted before it, and goes at
#      stop; without it (`steer none`, the operator's rules lacking the
#      gate) srv6d warns naming the rule and End.X loses its context (the
#      control: the gate is what makes the difference), where a masked
#      restore gives no warning and End.X works;
#   4. a mark-base outside mark-mask is refused (srv6d --check), and so is a
#      conf needing more contexts than the mask's index bits hold.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d
D=$RTR_IF_DST
ip -n "$NS_RTR" link add mk0 type veth peer name mk1
ip -n "$NS_RTR" link set mk0 up
ip -n "$NS_RTR" link set mk1 up
MK1_MAC=$(mac_of "$NS_RTR" mk1)
MK0_MAC=$(mac_of "$NS_RTR" mk0)

CONF=$TMPD/srv6d.conf
{
	printf 'queue 0\nsteer auto\nmark-mask 0xffff0000\n'
	printf 'sid 2001:db8:ff::3 action End.X nh6 %s oif %s\n' "$DST_ADDR" "$D"
	conf_extra
} >"$CONF"

# arrived: how many of the two end-x packets reach dst as End.X results
arrived() { pkt_to_dst send --case end-x | awk '$1 == "RX"' | wc -l; }

# send_marked MARK: the first end-x packet, sent on mk0 with SO_MARK MARK
# (mk1 receives it in rtr with that mark: same netns, not scrubbed)
send_marked() {
	local hex
	hex=$("$PY" "$PKT" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" \
		build end-x | head -1)
	in_rtr "$PY" - "$1" "$hex" "$MK1_MAC" "$MK0_MAC" <<'EOF'
import socket, sys
mark, data = int(sys.argv[1], 0), bytes.fromhex(sys.argv[2])
eth = bytes.fromhex(sys.argv[3].replace(":", "")) + bytes.fromhex(sys.argv[4].replace(":", "")) + b"\x86\xdd"
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.setsockopt(socket.SOL_SOCKET, 36, mark)   # SO_MARK
s.bind(("mk0", 0))
s.send(eth + data)
EOF
}

fwd_marked() {
	in_rtr ip6tables -t mangle -L FORWARD -vnx | awk '/mark match 0x1\/0x1/ {print $1; exit}'
}

# ---- 1, 2: a masked restore ------------------------------------------------
in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark --mask 0xff00
in_rtr ip6tables -t mangle -A FORWARD -o "$D" -m mark --mark 0x1/0x1
if srv6d_start "$CONF" "$TMPD/stats" "$TMPD/masked.log"; then
	n=$(arrived)
	check "masked CONNMARK restore: End.X reaches dst through its adjacency ($n of 2)" \
		test "$n" -eq 2
	send_marked 0x1
	wait_until 3 test "$(fwd_marked)" -ge 1
	n=$(fwd_marked)
	check "mark bit 0x1 (outside the mask) survives the End.X verdict ($n of 1)" test "$n" -eq 1
	r=$(in_rtr ip -6 rule show | grep -c 'fwmark 0x6d000000/0xff000000')
	check "srv6d's rules match only its bits (fwmark 0x6d000000/0xff000000: $r rules)" \
		test "$r" -ge 2
	srv6d_stop
else
	fail "srv6d starts with mark-mask 0xffff0000"
fi

# ---- 3: an unmasked restore --------------------------------------------------
in_rtr ip6tables -t mangle -F PREROUTING
in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark
GATE='-A PREROUTING -m mark --mark 0x6d000000/0xffff0000 -j ACCEPT'
# gate_first: the gate is mangle PREROUTING's first rule, and there once
gate_first() {
	local r
	r=$(in_rtr ip6tables -t mangle -S PREROUTING)
	[ "$(sed -n 2p <<<"$r")" = "$GATE" ] && [ "$(grep -cxF -- "$GATE" <<<"$r")" -eq 1 ]
}
for eg in verdict inject; do
	{
		printf 'queue 0\nsteer auto\negress %s\n' "$eg"
		printf 'sid 2001:db8:ff::3 action End.X nh6 %s oif %s\n' "$DST_ADDR" "$D"
		conf_extra | grep -v '^egress'   # this test names its egress
	} >"$TMPD/unmasked-$eg.conf"
	if ! srv6d_start "$TMPD/unmasked-$eg.conf" "$TMPD/stats" "$TMPD/unmasked-$eg.log"; then
		fail "srv6d starts with an unmasked restore rule (egress $eg)" \
			"$(tail -5 "$TMPD/unmasked-$eg.log")"
		continue
	fi
	check "unmasked restore, egress $eg: the context gate is mangle PREROUTING's first rule" \
		gate_first
	n=$(arrived)
	check "unmasked restore, egress $eg: End.X reaches dst through its adjacency ($n of 2)" \
		test "$n" -eq 2
	if grep -q 'mark rule' "$TMPD/unmasked-$eg.log"; then
		fail "unmasked restore, egress $eg: no warning with steer auto" \
			"$(grep 'mark rule' "$TMPD/unmasked-$eg.log")"
	else
		ok "unmasked restore, egress $eg: no warning with steer auto"
	fi
	if [ "$eg" = verdict ]; then
		# a rule inserted in front of the gate: the steering watch puts the
		# gate back first
		in_rtr ip6tables -t mangle -I PREROUTING 1 -j CONNMARK --restore-mark
		wait_until 30 gate_first
		check "a rule inserted before the gate: the gate is first again" gate_first
		n=$(arrived)
		check "after the repair: End.X reaches dst ($n of 2)" test "$n" -eq 2
		in_rtr ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark
		# a reload to a conf without contexts takes the gate away, one
		# back to End.X puts it back
		cp "$TMPD/unmasked-$eg.conf" "$TMPD/unmasked-$eg.keep"
		sed -i 's/action End.X .*/action End/' "$TMPD/unmasked-$eg.conf"
		kill -HUP "$SRV6D_PID"
		wait_until 20 eval '! gate_first'
		check "reload without contexts: the gate is removed" eval '! gate_first'
		cp "$TMPD/unmasked-$eg.keep" "$TMPD/unmasked-$eg.conf"
		kill -HUP "$SRV6D_PID"
		wait_until 20 gate_first
		check "reload with End.X again: the gate is back first" gate_first
	fi
	srv6d_stop
	check "egress $eg: the gate goes at stop" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t mangle -S PREROUTING | grep -q -- '--mark 0x6d000000'"
done
# the control: steer none with the operator's rules without the gate.
# First a masked restore: no warning (srv6d warns only with steer none, so
# this is where a false warning would show); then the unmasked one.
in_rtr ip6tables -t raw -N SRV6D
in_rtr ip6tables -t raw -A SRV6D -d 2001:db8:ff::3/128 -j NFQUEUE --queue-num 0
in_rtr ip6tables -t raw -I PREROUTING 1 -j SRV6D
in_rtr ip6tables -t mangle -F PREROUTING
in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark --mask 0xff00
for kind in masked unmasked; do
	{
		printf 'queue 0\nsteer none\negress verdict\n'
		[ "$kind" = masked ] && printf 'mark-mask 0xffff0000\n'
		printf 'sid 2001:db8:ff::3 action End.X nh6 %s oif %s\n' "$DST_ADDR" "$D"
		conf_extra | grep -v '^egress'
	} >"$TMPD/nogate-$kind.conf"
	if ! srv6d_start "$TMPD/nogate-$kind.conf" "$TMPD/stats" "$TMPD/nogate-$kind.log"; then
		fail "srv6d starts with steer none ($kind restore)" "$(tail -5 "$TMPD/nogate-$kind.log")"
		continue
	fi
	if [ "$kind" = masked ]; then
		if grep -q 'mark rule' "$TMPD/nogate-masked.log"; then
			fail "steer none, masked restore: no warning at start" \
				"$(grep 'mark rule' "$TMPD/nogate-masked.log")"
		else
			ok "steer none, masked restore: no warning at start"
		fi
		n=$(arrived)
		check "steer none, masked restore: End.X reaches dst ($n of 2)" test "$n" -eq 2
	else
		check "steer none, unmasked restore, no gate: srv6d warns at start" \
			grep -q 'mark rule ".*CONNMARK --restore-mark.*" can change srv6d' "$TMPD/nogate-unmasked.log"
		n=$(arrived)
		check "steer none without the gate: End.X loses its context ($n of 2 reach dst)" \
			test "$n" -eq 0
	fi
	srv6d_stop
	in_rtr ip6tables -t mangle -F PREROUTING
	in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark
done
in_rtr ip6tables -t raw -D PREROUTING -j SRV6D
in_rtr ip6tables -t raw -F SRV6D
in_rtr ip6tables -t raw -X SRV6D
in_rtr ip6tables -t mangle -F PREROUTING

# ---- 4: a base that does not fit the mask --------------------------------------
printf 'queue 0\nmark-mask 0x0000ffff\n' >"$TMPD/bad.conf"
out=$(in_rtr "$SRV6D" -n -c "$TMPD/bad.conf" 2>&1)
check "mark-base outside mark-mask is refused" \
	grep -q 'mark-base 0x6d000000 does not fit mark-mask 0x0000ffff' <<<"$out"
printf 'queue 0\nmark-mask 0xff000000\n' >"$TMPD/bad2.conf"
out=$(in_rtr "$SRV6D" -n -c "$TMPD/bad2.conf" 2>&1)
check "mark-mask with no index bits below mark-base is refused" \
	grep -q 'does not fit mark-mask 0xff000000' <<<"$out"
# a mask with room for one context: the second one is refused
{
	printf 'queue 0\nsteer auto\nmark-mask 0xff010000\n'
	printf 'sid 2001:db8:ff::3 action End.X nh6 %s oif %s\n' "$DST_ADDR" "$D"
	printf 'sid 2001:db8:ff::4 action End.T table 100\n'
	conf_extra
} >"$TMPD/small.conf"
if srv6d_start "$TMPD/small.conf" "$TMPD/stats" "$TMPD/small.log"; then
	fail "more contexts than mark-mask holds are refused" "$(cat "$TMPD/small.log")"
	srv6d_stop
else
	check "more contexts than mark-mask holds are refused" \
		grep -q 'too many next-hop contexts: mark-mask 0xff010000 leaves room for 1' "$TMPD/small.log"
fi
summary
