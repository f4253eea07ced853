#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_source.sh - the outer source address of srv6d's encapsulations equals
# the kernel's: `ip sr tunsrc` when set, else the source selected on the `dev`
# of the route carrying the SRv6 state, and it follows address changes.
#
#   +---------------+      +----------------------------------+      +---------------+
#   | src           |      | rtr                              |      | dst           |
#   |          eth0 +------+ eth0                        eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2      2001:db8:2::1 |      | 2001:db8:2::2 |
#   +---------------+      |  End.B6.Encaps 2001:db8:ff::18   |      |  capture      |
#                          |  policy 2001:db8:96::/64         |      +---------------+
#                          |  both with "dev eth0": the first |
#                          |  segment is routed out of eth1   |
#                          +----------------------------------+
#
# Cases, each first through the kernel's own routes, then through srv6d with
# the same words (no encap-source), byte for byte at dst:
#   dev: outer source 2001:db8:1::2 (eth0's), not 2001:db8:2::1 (what a
#        lookup toward the first segment would pick);
#   tunsrc: `ip sr tunsrc set 2001:db8:1::77` wins over dev;
#   follow: with srv6d running, eth0's address changes to 2001:db8:1::3; the
#        kernel uses the new one at once, srv6d within a few seconds.
# srv6d's outer source is also checked against the expected address itself,
# so a kernel without seg6local / seg6 encap (whose checks are skipped)
# still tests srv6d.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
EG="$LIB_DIR/egress.py"

test_begin
S=$RTR_IF_SRC D=$RTR_IF_DST
# the kernel's own route of each case, and the kernel feature it needs
declare -A KROUTE=(
	[src-b6]="2001:db8:ff::18 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $S"
	[src-pol]="2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 dev $S"
)
declare -A KFEAT=([src-b6]=seg6local [src-pol]=seg6encap)
CONF_LINES="sid 2001:db8:ff::18 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $S
route 2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 dev $S"

send() { "$PY" "$EG" send --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" --case "$1" --timeout 3 --expect 1; }
l3() { awk '$1 == "RX" {print $5}'; }
outer_src() { echo "${1:16:32}"; }   # hex of the outer IPv6 source
want_src() { # NAME HEX ADDR-HEX
	check "$1 (outer source $(outer_src "$2"))" test "$(outer_src "$2")" = "$3"
}
# kernel NAME CASE ADDR-HEX: through the kernel's own route (End.B6.Encaps
# is seg6local, the policy seg6 encap), CASE's outer source is ADDR; sets
# KHEX, the hex at dst ("" when the check is skipped or the route command
# failed: a [FAIL] naming it)
kernel() {
	local r=${KROUTE[$2]} err
	KHEX=
	needs "$1" "${KFEAT[$2]}" || return 0
	if ! err=$(ip -n "$NS_RTR" -6 route add $r 2>&1); then
		fail "$1" "ip -6 route add $r: $err"
		return 1
	fi
	KHEX=$(send "$2" | l3)
	err=$(ip -n "$NS_RTR" -6 route del $r 2>&1) || fail "$1: ip -6 route del $r" "$err"
	want_src "$1" "$KHEX" "$3"
}
start() { # TAG
	printf 'queue 0\nsteer auto\n%s\n' "$CONF_LINES" >"$TMPD/$1.conf"
	srv6d_start "$TMPD/$1.conf" "$TMPD/stats.$1" "$TMPD/srv6d.$1.log"
}
compare() { # NAME CASE KERNEL-HEX ADDR-HEX: srv6d's outer source, and its packet against the kernel's
	local got; got=$(send "$2" | l3)
	want_src "$1: srv6d's source" "$got" "$4"
	needs "$1: byte-identical to the kernel" "${KFEAT[$2]}" || return 0
	if [ -n "$3" ] && [ "$got" = "$3" ]; then
		ok "$1: byte-identical to the kernel (outer source $(outer_src "$got"))"
	else
		fail "$1: differs from the kernel" "kernel: $3" "srv6d:  $got"
	fi
}
ADDR_1_2=20010db8000100000000000000000002 ADDR_1_3=20010db8000100000000000000000003
ADDR_1_77=20010db8000100000000000000000077

# ---- dev ----
declare -A K
for c in src-b6 src-pol; do
	kernel "kernel $c: source from dev $S" $c $ADDR_1_2
	K[$c]=$KHEX
done
if srv6d_built && start dev; then
	compare "End.B6.Encaps dev $S" src-b6 "${K[src-b6]}" $ADDR_1_2
	compare "policy encap dev $S" src-pol "${K[src-pol]}" $ADDR_1_2
	srv6d_stop
else
	fail "srv6d starts (dev)"
fi

# ---- tunsrc ----
in_rtr ip sr tunsrc set 2001:db8:1::77
kernel "kernel: tunsrc wins over dev" src-b6 $ADDR_1_77
if start tunsrc; then
	compare "End.B6.Encaps, tunsrc set" src-b6 "$KHEX" $ADDR_1_77
	srv6d_stop
else
	fail "srv6d starts (tunsrc)"
fi
in_rtr ip sr tunsrc set ::

# ---- follow an address change ----
if start follow; then
	got=$(send src-pol | l3)
	want_src "srv6d before the change" "$got" $ADDR_1_2
	ip -n "$NS_RTR" addr add 2001:db8:1::3/64 dev "$S" nodad
	ip -n "$NS_RTR" addr del 2001:db8:1::2/64 dev "$S"
	follows() { [ "$(outer_src "$(send src-pol | l3)")" = $ADDR_1_3 ]; }
	check "srv6d follows the new address within 10 s" wait_until 10 follows
	check "srv6d logged the change" grep -q "outer source address changed" "$SRV6D_LOG"
	srv6d_stop
	# the kernel (srv6d gone, its steering with it) agrees on the new source
	kernel "kernel after the change" src-pol $ADDR_1_3
else
	fail "srv6d starts (follow)"
fi
summary
