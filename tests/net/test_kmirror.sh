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
# the kernel's, byte for byte.
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
summary
