#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_kmirror.sh - `sids-from kernel`: srv6d mirrors the kernel's seg6local
# routes into its SIDs, follows them as they come and go, and leaves them to
# the kernel when it stops (docs/CONTROL.md "The kernel mirror").  Needs a
# kernel with seg6local (the kernel-oracle VM; a named skip elsewhere).
#
#   +-----------+      +------------------------------------------+      +-----------+
#   | src       |      | rtr                                      |      | dst       |
#   |      eth0 +------+ eth0  kernel: ip -6 route add SID     eth1 +------+ eth0      |
#   +-----------+      |         encap seg6local action End ...   |      +-----------+
#                      |       srv6d: sids-from kernel            |
#                      +------------------------------------------+
#
# Checks: SIDs present at start are mirrored (origin kernel) and srv6d
# processes their packets (its counters move); a route added later appears,
# a deleted one goes with its steering rule; routes of the SID's prefix with
# other metrics leave it alone, a replace by a protocol not taken removes it;
# a conf line wins over a kernel
# route with its prefix; other tables and protocols are filtered as
# configured; after srv6d stops the kernel's seg6local processes the same
# packets (the kernel is the fallback), and srv6d's output was the same as
# the kernel's, byte for byte.  Then `routes-from kernel`: a seg6 encap
# route becomes a policy one metric before it (IPv6 1024 -> 1023, IPv4
# 10 -> 9), an IPv4 route at metric 0 is refused by name, no SID is taken,
# srv6d's encapsulation is the kernel's byte for byte, the policy follows
# the kernel route's delete and add, and after srv6d stops the kernel's
# route encapsulates again.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6ctl
if ! kfeat seg6local; then
	skip "every case" "$(kfeat_why seg6local)"
	summary
	exit 0
fi

SOCK=$TMPD/ctl.sock
CONF=$TMPD/srv6d.conf
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
has_sid() { ctl sid show 2>/dev/null | grep -q "^$1 "; }
steered() { in_rtr ip6tables -t raw -S | grep -q -- "-d $1/128 -j NFQUEUE"; }
sid_packets() { ctl -j -s sid show "$1" | jget 'd[0]["stats"]["packets"]'; }
krt() { in_rtr ip -6 route "$@"; }

# the kernel's oracle for end-sid9 first (no srv6d)
krt add 2001:db8:ff::9/128 encap seg6local action End dev "$RTR_IF_SRC"
pkt_to_dst send --case end-sid9 >"$TMPD/kernel.cap"
check "the kernel processes end-sid9 alone (the oracle)" grep -q "^RX end-sid9" "$TMPD/kernel.cap"
krt add 2001:db8:ff::1/128 encap seg6local action End.X nh6 "$DST_ADDR" dev "$RTR_IF_DST"
krt add 2001:db8:ff::30/128 encap seg6local action End dev "$RTR_IF_SRC" table 100
krt add 2001:db8:ff::31/128 encap seg6local action End dev "$RTR_IF_SRC" proto static

{
	echo "control-socket $SOCK"
	echo "sids-from kernel table main proto boot"
	conf_extra
	echo "sid 2001:db8:ff::1 action End"
} >"$CONF"
srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log" || { fail "srv6d starts"; summary; exit 1; }
check "a kernel SID present at start: mirrored, origin kernel, steered" \
	eval 'ctl sid show | grep -q "^2001:db8:ff::9 action End dev $RTR_IF_SRC  # origin kernel$" &&
	      [ "$(ctl -j sid show 2001:db8:ff::9 | jget "d[0][\"origin\"]")" = kernel ] && steered 2001:db8:ff::9'
check "a conf line wins over the kernel's route with its prefix" \
	eval 'ctl sid show 2001:db8:ff::1 | grep -qx "2001:db8:ff::1 action End" &&
	      grep -q "kernel: SID 2001:db8:ff::1/128: .* has it; the conf.s line wins" "$SRV6D_LOG"'
check "another table, another protocol: filtered" \
	eval '! has_sid 2001:db8:ff::30 && ! has_sid 2001:db8:ff::31 &&
	      [ "$(ctl -j status | jget "d[\"kernel_mirror\"][\"filtered\"]")" -ge 2 ]'
pkt_to_dst send --case end-sid9 >"$TMPD/srv6d.cap"
check "srv6d processes the mirrored SID's packets (its counter)" \
	eval '[ "$(sid_packets 2001:db8:ff::9)" -ge 1 ]'
check "... byte for byte as the kernel did" \
	eval 'diff <(grep "^RX" "$TMPD/kernel.cap") <(grep "^RX" "$TMPD/srv6d.cap") >/dev/null'

krt add 2001:db8:ff::40/128 encap seg6local action End dev "$RTR_IF_SRC"
wait_until 20 eval 'has_sid 2001:db8:ff::40 && steered 2001:db8:ff::40'
check "a route added later appears (the event)" eval 'has_sid 2001:db8:ff::40 && steered 2001:db8:ff::40'
krt del 2001:db8:ff::40/128
wait_until 20 eval '! has_sid 2001:db8:ff::40'
check "a deleted one goes, with its steering rule" \
	eval '! has_sid 2001:db8:ff::40 && ! steered 2001:db8:ff::40'
krt add 2001:db8:ff::9/128 dev "$RTR_IF_DST" metric 2000
krt add 2001:db8:ff::41/128 encap seg6local action End dev "$RTR_IF_SRC"
wait_until 20 eval 'has_sid 2001:db8:ff::41'
krt del 2001:db8:ff::9/128 dev "$RTR_IF_DST" metric 2000
check "a plain route with the SID's prefix and another metric, added and deleted: the SID stays" \
	eval 'has_sid 2001:db8:ff::9 && steered 2001:db8:ff::9'
krt replace 2001:db8:ff::41/128 encap seg6local action End dev "$RTR_IF_SRC" proto static
wait_until 20 eval '! has_sid 2001:db8:ff::41'
check "a SID replaced by a route of a protocol not taken: gone" \
	eval '! has_sid 2001:db8:ff::41 && ! steered 2001:db8:ff::41'
krt del 2001:db8:ff::41/128
krt replace 2001:db8:ff::9/128 encap seg6local action End flavors psp dev "$RTR_IF_SRC" 2>/dev/null ||
	krt replace 2001:db8:ff::9/128 encap seg6local action End.X nh6 "$DST_ADDR" dev "$RTR_IF_DST"
wait_until 20 eval '! ctl sid show 2001:db8:ff::9 | grep -q "^2001:db8:ff::9 action End dev"'
check "a replaced route is replaced" \
	eval '! ctl sid show 2001:db8:ff::9 | grep -q "^2001:db8:ff::9 action End dev" && has_sid 2001:db8:ff::9'
krt replace 2001:db8:ff::9/128 encap seg6local action End dev "$RTR_IF_SRC"
wait_until 20 eval 'ctl sid show | grep -q "^2001:db8:ff::9 action End dev $RTR_IF_SRC  # origin kernel$"'
check "srv6d stops cleanly" srv6d_stop
check "... and its steering is gone" eval '! steered 2001:db8:ff::9'
pkt_to_dst send --case end-sid9 >"$TMPD/after.cap"
check "the kernel's route processes the packets again (the fallback)" \
	eval 'diff <(grep "^RX" "$TMPD/kernel.cap") <(grep "^RX" "$TMPD/after.cap") >/dev/null'

# ---- routes-from kernel: the kernel's seg6 encap routes as srv6d's policies
# (srv6d's route one metric before the kernel's, which stays the fallback)
in_rtr ip sr tunsrc set "$RTR_ADDR_SRC"
krt add 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev "$RTR_IF_DST"
pkt_to_dst send --case policy-encap >"$TMPD/kpol.cap"
check "the kernel encapsulates policy-encap alone (the oracle)" \
	eval '[ "$(grep -c "^RX policy-encap" "$TMPD/kpol.cap")" -eq 2 ]'
in_rtr ip route add 10.99.0.0/16 encap seg6 mode encap segs 2001:db8:aa::1 dev "$RTR_IF_DST"
in_rtr ip route add 10.98.0.0/16 encap seg6 mode encap segs 2001:db8:aa::1 dev "$RTR_IF_DST" metric 10
{
	echo "control-socket $SOCK"
	echo "encap-source $RTR_ADDR_SRC"
	echo "routes-from kernel"
	conf_extra
} >"$CONF"
srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log" || { fail "srv6d starts (routes-from)"; summary; exit 1; }
nf0=$n_fail
pol_line="2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 .*metric 1023  # origin kernel"
check "a kernel seg6 route: a policy of origin kernel, at the kernel's metric - 1" \
	eval 'ctl route show | grep -q "^$pol_line$" &&
	      [ "$(ctl -j route show 2001:db8:99::/64 | jget "d[0][\"origin\"]")" = kernel ]'
check "... srv6d's route before the kernel's, the kernel's still there" \
	eval 'krt show 2001:db8:99::/64 | grep -q "dev srv6d0 proto 109 metric 1023" &&
	      krt show 2001:db8:99::/64 | grep -q "encap seg6 mode encap .* metric 1024"'
check "an IPv4 route at metric 10: srv6d's at 9" \
	eval 'ctl route show | grep -q "^10.98.0.0/16 encap seg6 mode encap segs 2001:db8:aa::1 .*metric 9  # origin kernel$" &&
	      in_rtr ip route show 10.98.0.0/16 | grep -q "dev srv6d0 proto 109 .*metric 9"'
if [ "$n_fail" -gt "$nf0" ]; then
	echo "# srv6ctl route show:"; ctl route show | sed 's/^/#   /'
	echo "# ip route:"; { krt show; in_rtr ip -4 route show; } | sed 's/^/#   /'
fi
check "an IPv4 route at metric 0: refused by name, left to the kernel" \
	eval '! ctl route show | grep -q "^10.99.0.0/16" &&
	      grep -q "10.99.0.0/16.*metric 0: srv6d.s route cannot come before it" "$SRV6D_LOG" &&
	      [ "$(ctl -j status | jget "d[\"kernel_mirror\"][\"refused\"]")" -ge 1 ]'
check "routes-from alone takes no SID (counted as not SRv6)" \
	eval 'ctl sid show >/dev/null && ! has_sid 2001:db8:ff::9 && ! steered 2001:db8:ff::9 &&
	      [ "$(ctl -j status | jget "d[\"kernel_mirror\"][\"not_srv6\"]")" -ge 1 ] &&
	      [ "$(ctl -j status | jget "d[\"kernel_mirror\"][\"sids\"]")" = False ]'
pkt_to_dst send --case policy-encap >"$TMPD/spol.cap"
check "srv6d encapsulates the policy's packets (its counter)" \
	eval '[ "$(ctl -j -s route show 2001:db8:99::/64 | jget "d[0][\"stats\"][\"packets\"]")" -eq 2 ]'
check "... byte for byte as the kernel did" \
	eval 'diff <(grep "^RX" "$TMPD/kpol.cap") <(grep "^RX" "$TMPD/spol.cap") >/dev/null'
krt del 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev "$RTR_IF_DST"
wait_until 20 eval '! ctl route show | grep -q "^2001:db8:99::/64"'
check "the kernel's route deleted: the policy and srv6d's route go" \
	eval '! ctl route show | grep -q "^2001:db8:99::/64" && ! krt show 2001:db8:99::/64 | grep -q srv6d0'
krt add 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev "$RTR_IF_DST"
wait_until 20 eval 'krt show 2001:db8:99::/64 | grep -q "dev srv6d0 proto 109 metric 1023"'
check "added again: back, before the kernel's" eval 'krt show 2001:db8:99::/64 | grep -q "dev srv6d0 proto 109 metric 1023"'
check "srv6d stops cleanly (routes-from)" srv6d_stop
check "... its routes are gone, the kernel's stay" \
	eval '! krt show 2001:db8:99::/64 | grep -q srv6d0 && krt show 2001:db8:99::/64 | grep -q "encap seg6" &&
	      ! in_rtr ip route show 10.98.0.0/16 | grep -q srv6d0'
pkt_to_dst send --case policy-encap >"$TMPD/kpol2.cap"
check "the kernel encapsulates again (the fallback), as before" \
	eval 'diff <(grep "^RX" "$TMPD/kpol.cap") <(grep "^RX" "$TMPD/kpol2.cap") >/dev/null'
summary
