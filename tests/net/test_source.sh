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
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
EG="$LIB_DIR/egress.py"

require_env
trap cleanup EXIT
topo_create || { echo "cannot create the topology"; exit 1; }
S=$RTR_IF_SRC D=$RTR_IF_DST
KROUTES=(
	"2001:db8:ff::18 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $S"
	"2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 dev $S"
)
CONF_LINES="sid 2001:db8:ff::18 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $S
route 2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 dev $S"

send() { "$PY" "$EG" send --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" --case "$1" --timeout 3 --expect 1; }
l3() { awk '$1 == "RX" {print $5}'; }
outer_src() { echo "${1:16:32}"; }   # hex of the outer IPv6 source
kernel() { # CASE -> hex at dst through the kernel's routes
	local r out
	for r in "${KROUTES[@]}"; do ip -n "$NS_RTR" -6 route add $r || return 1; done
	out=$(send "$1" | l3)
	for r in "${KROUTES[@]}"; do ip -n "$NS_RTR" -6 route del $r || return 1; done
	echo "$out"
}
start() { # TAG
	printf 'queue 0\nsteer auto\n%s\n' "$CONF_LINES" >"$TMPD/$1.conf"
	srv6d_start "$TMPD/$1.conf" "$TMPD/stats.$1" "$TMPD/srv6d.$1.log"
}
compare() { # NAME CASE KERNEL-HEX
	local got; got=$(send "$2" | l3)
	if [ -n "$3" ] && [ "$got" = "$3" ]; then
		ok "$1: byte-identical to the kernel (outer source $(outer_src "$got"))"
	else
		fail "$1: differs from the kernel" "kernel: $3" "srv6d:  $got"
	fi
}
want_src() { # NAME HEX ADDR-HEX
	check "$1 (outer source $(outer_src "$2"))" test "$(outer_src "$2")" = "$3"
}
ADDR_1_2=20010db8000100000000000000000002 ADDR_1_3=20010db8000100000000000000000003
ADDR_1_77=20010db8000100000000000000000077

# ---- dev ----
declare -A K
for c in src-b6 src-pol; do
	K[$c]=$(kernel $c) || fail "kernel routes for $c"
	want_src "kernel $c: source from dev $S" "${K[$c]}" $ADDR_1_2
done
if srv6d_built && start dev; then
	compare "End.B6.Encaps dev $S" src-b6 "${K[src-b6]}"
	compare "policy encap dev $S" src-pol "${K[src-pol]}"
	srv6d_stop
else
	fail "srv6d starts (dev)"
fi

# ---- tunsrc ----
in_rtr ip sr tunsrc set 2001:db8:1::77
k=$(kernel src-b6)
want_src "kernel: tunsrc wins over dev" "$k" $ADDR_1_77
if start tunsrc; then
	compare "End.B6.Encaps, tunsrc set" src-b6 "$k"
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
	want_src "kernel after the change" "$(kernel src-pol)" $ADDR_1_3
else
	fail "srv6d starts (follow)"
fi
summary
