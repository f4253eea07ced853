#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_steer.sh - srv6d's steering chain (src/kernel/steer.c), driven by
# tests/net/tools/steer_tool.c in the router namespace of lib.sh's topology:
#
#   +-------------+        +------------------------------+        +-------------+
#   | src         |        | rtr  raw PREROUTING -> SRV6D |        | dst         |
#   |             |        | mangle POSTROUTING -> SRV6D  |        |             |
#   |        eth0 +--------+ eth0                    eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | 2001:db8:1::2   2001:db8:2::1|        | 2001:db8:2::2/64
#   +-------------+        +------------------------------+        +-------------+
#     UDP to SIDs           2001:db8::/32 via dst                   counts arrivals
#
# Checks: ip6tables-save/iptables-save show exactly the expected chain, one
# PREROUTING jump, reinstall is idempotent, a changed config replaces the rules,
# a stale chain with duplicate jumps (crashed srv6d) is repaired, remove leaves
# nothing, srv6_steer_format's text installs the same rules by hand (steer
# none), and on the wire: queued packets reach the queue, --queue-bypass lets
# them through with no listener, without it they are dropped; the context
# gate's place, repair, other instances' gates and removal (issue 25).
set -u
source "$(dirname "$0")/lib.sh"

TOOL="$BUILD/tests/net/steer_tool"
test_begin --tool ip6tables-save --built "$TOOL"

steer() { in_rtr "$TOOL" "$@"; }
# saved FAMILY: the raw table as the save tool prints it, without comments
# and counters.
saved() {
	if [ "$1" = 6 ]; then in_rtr ip6tables-save -t raw; else in_rtr iptables-save -t raw; fi |
		grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'
}
# mangled FAMILY: srv6d's part of the mangle table (policies: what the FIB
# sends to srv6d's device, queued at POSTROUTING), -S form
mangled() {
	if [ "$1" = 6 ]; then in_rtr ip6tables -t mangle -S; else in_rtr iptables -t mangle -S; fi |
		grep -E -- '-A POSTROUTING|SRV6D'
}

ARGS=(-q 0-1 -b -i srv6d0 -s 2001:db8:ff::1 -s 2001:db8:100::/48 -6 2001:db8:99::/64 -4 10.1.0.0/16)
EXP6='*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A SRV6D -i srv6d0 -j ACCEPT
-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:100::/48 -j NFQUEUE --queue-balance 0:1 --queue-bypass
COMMIT'
# policies are kernel routes through srv6d0: one rule per family, whatever
# the prefixes, and no IPv4 raw chain at all
MANGLE='-N SRV6D
-A POSTROUTING -j SRV6D
-A SRV6D -o srv6d0 -j NFQUEUE --queue-balance 0:1 --queue-bypass'
EXP4='*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
COMMIT'
EMPTY='*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
COMMIT'

# ---- install ----
if steer install "${ARGS[@]}"; then ok "install"; else fail "install"; fi
got=$(saved 6)
if [ "$got" = "$EXP6" ]; then ok "ip6tables-save shows the SRV6D chain"
else fail "ip6tables-save shows the SRV6D chain" "$(diff <(echo "$EXP6") <(echo "$got"))"; fi
got=$(saved 4)
if [ "$got" = "$EXP4" ]; then ok "iptables-save shows the IPv4 SRV6D chain"
else fail "iptables-save shows the IPv4 SRV6D chain" "$(diff <(echo "$EXP4") <(echo "$got"))"; fi
for f in 6 4; do
	got=$(mangled $f)
	if [ "$got" = "$MANGLE" ]; then ok "IPv$f policies: one rule at mangle POSTROUTING, -o srv6d0"
	else fail "IPv$f policies: one rule at mangle POSTROUTING, -o srv6d0" "$(diff <(echo "$MANGLE") <(echo "$got"))"; fi
done

steer install "${ARGS[@]}"
check "reinstall is idempotent (IPv6)" test "$(saved 6)$(mangled 6)" = "$EXP6$MANGLE"
check "reinstall is idempotent (IPv4)" test "$(saved 4)$(mangled 4)" = "$EXP4$MANGLE"

# a changed config replaces the rules; IPv4 chain goes with the IPv4 policies
steer install -q 3 -s 2001:db8:ff::2
check "new config: one rule, --queue-num 3, no bypass" test "$(saved 6)" = '*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A SRV6D -d 2001:db8:ff::2/128 -j NFQUEUE --queue-num 3
COMMIT'
check "no IPv4 policies: the IPv4 chain is removed" test "$(saved 4)" = "$EMPTY" -a -z "$(mangled 4)"
check "no IPv6 policies: the mangle chain is removed" test -z "$(mangled 6)"
steer install -q 0-3 -c -s 2001:db8:ff::2
check "--queue-cpu-fanout when asked" \
	bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D | grep -qx -- '-A SRV6D -d 2001:db8:ff::2/128 -j NFQUEUE --queue-balance 0:3 --queue-cpu-fanout'"
steer install -q 0 -s 2001:db8:ff::2/120
check "host bits of a prefix are masked" \
	bash -c "ip netns exec $NS_RTR ip6tables -t raw -S SRV6D | grep -qx -- '-A SRV6D -d 2001:db8:ff::/120 -j NFQUEUE --queue-num 0'"

# crash recovery: stale chain with duplicate jumps (a chain holding rules
# srv6d does not write is refused: test_steer_robust.sh)
in_rtr ip6tables -t raw -A PREROUTING -j SRV6D
in_rtr ip6tables -t raw -I PREROUTING -j SRV6D
in_rtr ip6tables -t raw -A PREROUTING -d 2001:db8:42::/48 -j NOTRACK
steer install "${ARGS[@]}"
check "stale chain: replaced, duplicate jumps removed, foreign rule kept" test "$(saved 6)" = '*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A PREROUTING -d 2001:db8:42::/48 -j NOTRACK
-A SRV6D -i srv6d0 -j ACCEPT
-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:100::/48 -j NFQUEUE --queue-balance 0:1 --queue-bypass
COMMIT'
in_rtr ip6tables -t raw -D PREROUTING -d 2001:db8:42::/48 -j NOTRACK

# ---- remove ----
steer remove
check "remove: IPv6 raw table back to empty" test "$(saved 6)" = "$EMPTY"
check "remove: IPv4 raw table back to empty" test "$(saved 4)" = "$EMPTY"
check "remove: srv6d's mangle chains gone" test -z "$(mangled 6)$(mangled 4)"
check "remove when nothing is installed succeeds" steer remove

# ---- bad input ----
out=$(steer install -q 3-1 -s 2001:db8:ff::1 2>&1)
check "inverted queue range is refused with a message ($out)" \
	test "$out" = "steer: invalid queue range 3-1 or prefix length"
check "refused install changed nothing" test "$(saved 6)" = "$EMPTY"

# ---- format (steer none): the text installs what install installs ----
steer format6 "${ARGS[@]}" | in_rtr ip6tables-restore --noflush
steer format4 "${ARGS[@]}" | in_rtr iptables-restore --noflush
check "format6 text fed to ip6tables-restore --noflush gives the same chains" \
	test "$(saved 6)$(mangled 6)" = "$EXP6$MANGLE"
check "format4 text fed to iptables-restore --noflush gives the same chain" \
	test "$(saved 4)$(mangled 4)" = "$EXP4$MANGLE"
steer remove

# ---- on the wire ----
# udp_to ADDR N WANT: N datagrams from src to ADDR, then one to the sentinel
# 2001:db8:ff::fe, which nothing steers; prints "A R": A = datagrams to ADDR
# that reached dst's eth0, R = frames rtr's eth0 received meanwhile.  Waits
# (bounded) until the sentinel and WANT datagrams arrived: the sentinel
# follows the datagrams on the same path, so once it is at dst an expected 0
# is a 0, not "not yet".  A failed listing prints "?", which no check accepts.
SENTINEL=2001:db8:ff::fe
for a in $SENTINEL 2001:db8:ff::1 2001:db8:ff::2; do in_dst ip6tables -t raw -A PREROUTING -d $a; done
dst_count() { # ADDR: packets to ADDR seen at dst
	in_dst ip6tables -t raw -L PREROUTING -vnx 2>/dev/null |
		awk -v a="$1" '$NF == a || $NF == a "/128" {print $1; exit}'
}
rtr_rx() { in_rtr cat "/sys/class/net/$RTR_IF_SRC/statistics/rx_packets"; }
arrived() { [ "$(dst_count $SENTINEL)" = 1 ] && [ "$(dst_count "$1")" -ge "$2" ]; }
udp_to() {
	in_dst ip6tables -t raw -Z PREROUTING
	local r0; r0=$(rtr_rx)
	in_src "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])): s.sendto(b"steer", (sys.argv[1], 9))
s.sendto(b"sentinel", (sys.argv[3], 9))' "$1" "$2" $SENTINEL
	wait_until 5 arrived "$1" "$3" ||
		echo "# udp_to $1: sentinel $(dst_count $SENTINEL), datagrams $(dst_count "$1") after 5 s" >&2
	local a; a=$(dst_count "$1")
	echo "${a:-?} $(( $(rtr_rx) - r0 ))"
}
N=5

read -r n r < <(udp_to 2001:db8:ff::1 $N $N)
check "no steering: packets to the SID are routed to dst ($n of $N, rtr got $r)" test "$n" = $N
steer install -q 0 -b -s 2001:db8:ff::1
read -r n r < <(udp_to 2001:db8:ff::1 $N $N)
check "fail-open (--queue-bypass), no listener: packets pass ($n of $N)" test "$n" = $N
steer install -q 0 -s 2001:db8:ff::1
read -r n r < <(udp_to 2001:db8:ff::1 $N 0)
check "fail-closed, no listener: the $N packets reached rtr ($r frames) and none reached dst ($n)" \
	test "$r" -ge $((N + 1)) -a "$n" = 0
read -r n r < <(udp_to 2001:db8:ff::2 $N $N)
check "fail-closed: other destinations are not steered ($n of $N)" test "$n" = $N
NFQ="$BUILD/tests/net/nfq_mark"
if [ -x "$NFQ" ]; then
	: >"$TMPD/nfq"   # now: no older "ready" to be waited on
	in_rtr "$NFQ" 0 0 2 >>"$TMPD/nfq" 2>&1 &
	pid=$!
	wait_until 5 grep -q ready "$TMPD/nfq"
	read -r n r < <(udp_to 2001:db8:ff::1 $N $N)
	wait "$pid"
	q=$(awk '/^packets/ {print $2}' "$TMPD/nfq")
	check "with a listener on queue 0: all $N queued (${q:-?}) and accepted to dst ($n)" \
		test "${q:-?}" = $N -a "$n" = $N
else
	fail "nfq_mark not built"
fi
steer remove
check "final remove leaves nothing" test "$(saved 6)" = "$EMPTY" -a "$(saved 4)" = "$EMPTY"

# ---- the context gate (issue 25): first in mangle PREROUTING, once, per family ----
G6='-A PREROUTING -m mark --mark 0x6d000000/0xffff0000 -j ACCEPT'
OTHER='-A PREROUTING -m mark --mark 0x6e000000/0xffff0000 -j ACCEPT'   # another instance's
pre() {
	if [ "$1" = 6 ]; then in_rtr ip6tables -t mangle -S PREROUTING; else in_rtr iptables -t mangle -S PREROUTING; fi |
		grep -v '^-P'
}
steer install -q 0 -s 2001:db8:ff::1 -g 0x6d000000/0xffff0000 -G
check "gate installed first in IPv6 and IPv4 mangle PREROUTING" \
	test "$(pre 6)" = "$G6" -a "$(pre 4)" = "$G6"
# a rule in front, a duplicate and another instance's gate: one install puts
# ours first after the other instance's, once, and leaves the rest
in_rtr ip6tables -t mangle -I PREROUTING 1 -j CONNMARK --restore-mark
in_rtr ip6tables -t mangle -A PREROUTING -m mark --mark 0x6d000000/0xffff0000 -j ACCEPT
steer install -q 0 -s 2001:db8:ff::1 -g 0x6d000000/0xffff0000 -G
check "reinstall: a rule in front and a duplicate repaired" \
	test "$(pre 6)" = "$G6"$'\n''-A PREROUTING -j CONNMARK --restore-mark --nfmask 0xffffffff --ctmask 0xffffffff'
in_rtr ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark
in_rtr ip6tables -t mangle -I PREROUTING 1 -m mark --mark 0x6e000000/0xffff0000 -j ACCEPT
steer install -q 0 -s 2001:db8:ff::1 -g 0x6d000000/0xffff0000 -G
check "another instance's gate in front is left there, ours follows it" \
	test "$(pre 6)" = "$OTHER"$'\n'"$G6"
steer install -q 0 -s 2001:db8:ff::1 -g 0x6d000000/0xffff0000
check "no IPv4 contexts: the IPv4 gate goes, the IPv6 one stays" \
	test "$(pre 4)" = "" -a "$(pre 6)" = "$OTHER"$'\n'"$G6"
steer install -q 0 -s 2001:db8:ff::1 -g 0x6d000000/0xffff0000 -G
steer remove -g 0x6d000000/0xffff0000
check "remove takes our gates and leaves the other instance's" \
	test "$(pre 6)" = "$OTHER" -a "$(pre 4)" = ""
in_rtr ip6tables -t mangle -D PREROUTING -m mark --mark 0x6e000000/0xffff0000 -j ACCEPT

summary
