#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_steer.sh - srv6d's steering chain (src/daemon/steer.c), driven by
# tests/net/tools/steer_tool.c in the router namespace of lib.sh's topology:
#
#   +-------------+        +------------------------------+        +-------------+
#   | src         |        | rtr  raw PREROUTING -> SRV6D |        | dst         |
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
# them through with no listener, without it they are dropped.
set -u
source "$(dirname "$0")/lib.sh"

TOOL="$BUILD/tests/net/steer_tool"
require_env
command -v ip6tables-save >/dev/null || { echo "SKIP: ip6tables-save not found"; exit $ksft_skip; }
[ -x "$TOOL" ] || { echo "[FAIL] $TOOL not built (make BUILD=... all)"; exit 1; }
trap cleanup EXIT
topo_create || { echo "cannot create the topology"; exit 1; }

steer() { in_rtr "$TOOL" "$@"; }
# saved FAMILY: the raw table as the save tool prints it, without comments
# and counters.
saved() {
	if [ "$1" = 6 ]; then in_rtr ip6tables-save -t raw; else in_rtr iptables-save -t raw; fi |
		grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'
}

ARGS=(-q 0-1 -b -s 2001:db8:ff::1 -s 2001:db8:100::/48 -6 2001:db8:99::/64 -4 10.1.0.0/16)
EXP6='*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:100::/48 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:99::/64 -j NFQUEUE --queue-balance 0:1 --queue-bypass
COMMIT'
EXP4='*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A SRV6D -d 10.1.0.0/16 -j NFQUEUE --queue-balance 0:1 --queue-bypass
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

steer install "${ARGS[@]}"
check "reinstall is idempotent (IPv6)" test "$(saved 6)" = "$EXP6"
check "reinstall is idempotent (IPv4)" test "$(saved 4)" = "$EXP4"

# a changed config replaces the rules; IPv4 chain goes with the IPv4 policies
steer install -q 3 -s 2001:db8:ff::2
check "new config: one rule, --queue-num 3, no bypass" test "$(saved 6)" = '*raw
:PREROUTING ACCEPT
:OUTPUT ACCEPT
:SRV6D -
-A PREROUTING -j SRV6D
-A SRV6D -d 2001:db8:ff::2/128 -j NFQUEUE --queue-num 3
COMMIT'
check "no IPv4 policies: the IPv4 chain is removed" test "$(saved 4)" = "$EMPTY"
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
-A SRV6D -d 2001:db8:ff::1/128 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:100::/48 -j NFQUEUE --queue-balance 0:1 --queue-bypass
-A SRV6D -d 2001:db8:99::/64 -j NFQUEUE --queue-balance 0:1 --queue-bypass
COMMIT'
in_rtr ip6tables -t raw -D PREROUTING -d 2001:db8:42::/48 -j NOTRACK

# ---- remove ----
steer remove
check "remove: IPv6 raw table back to empty" test "$(saved 6)" = "$EMPTY"
check "remove: IPv4 raw table back to empty" test "$(saved 4)" = "$EMPTY"
check "remove when nothing is installed succeeds" steer remove

# ---- bad input ----
out=$(steer install -q 3-1 -s 2001:db8:ff::1 2>&1)
check "inverted queue range is refused with a message ($out)" \
	test "$out" = "steer: invalid queue range 3-1 or prefix length"
check "refused install changed nothing" test "$(saved 6)" = "$EMPTY"

# ---- format (steer none): the text installs what install installs ----
steer format6 "${ARGS[@]}" | in_rtr ip6tables-restore --noflush
steer format4 "${ARGS[@]}" | in_rtr iptables-restore --noflush
check "format6 text fed to ip6tables-restore --noflush gives the same chain" test "$(saved 6)" = "$EXP6"
check "format4 text fed to iptables-restore --noflush gives the same chain" test "$(saved 4)" = "$EXP4"
steer remove

# ---- on the wire ----
# udp_to ADDR N: N datagrams from src; prints how many reached dst's eth0.
in_dst ip6tables -t raw -A PREROUTING -d 2001:db8:ff::/64
udp_to() {
	in_dst ip6tables -t raw -Z PREROUTING
	in_src "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])): s.sendto(b"steer", (sys.argv[1], 9))' "$1" "$2"
	sleep 0.2
	in_dst ip6tables -t raw -L PREROUTING -vnx | awk '/2001:db8:ff::\/64/ {print $1; exit}'
}

n=$(udp_to 2001:db8:ff::1 5)
check "no steering: packets to the SID are routed to dst ($n)" test "${n:-0}" -eq 5
steer install -q 0 -b -s 2001:db8:ff::1
n=$(udp_to 2001:db8:ff::1 5)
check "fail-open (--queue-bypass), no listener: packets pass ($n)" test "${n:-0}" -eq 5
steer install -q 0 -s 2001:db8:ff::1
n=$(udp_to 2001:db8:ff::1 5)
check "fail-closed, no listener: packets to the SID are dropped ($n)" test "${n:-0}" -eq 0
n=$(udp_to 2001:db8:ff::2 5)
check "fail-closed: other destinations are not steered ($n)" test "${n:-0}" -eq 5
NFQ="$BUILD/tests/net/nfq_mark"
if [ -x "$NFQ" ]; then
	in_rtr "$NFQ" 0 0 2 >"$TMPD/nfq" 2>&1 &
	pid=$!
	wait_until 5 grep -q ready "$TMPD/nfq"
	n=$(udp_to 2001:db8:ff::1 5)
	wait "$pid"
	q=$(awk '/^packets/ {print $2}' "$TMPD/nfq")
	check "with a listener on queue 0: all 5 queued ($q) and accepted to dst ($n)" \
		test "${q:-0}" -eq 5 -a "${n:-0}" -eq 5
else
	fail "nfq_mark not built"
fi
steer remove
check "final remove leaves nothing" test "$(saved 6)" = "$EMPTY" -a "$(saved 4)" = "$EMPTY"

summary
