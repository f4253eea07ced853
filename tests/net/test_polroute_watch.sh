#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_polroute_watch.sh - a policy's kernel route (`PREFIX dev srv6d0 proto
# 109 metric M`, test_lpm.sh) that someone removes while srv6d runs comes
# back at once (rtnetlink events, src/kernel/linkwatch.c: SRV6_LW_POLROUTE),
# logged and counted; a foreign route that takes its place (`ip route
# replace`) is named, never removed; srv6d's own removals (a reload) are not
# undone.  Before, a removed policy route stayed missing until the next
# reload: the policy silently carried nothing.  A policy that a foreign
# route of its prefix at a better metric shadows is warned of once, not
# again at each reload (nor each retry of a failed apply) that finds the same.
#
#   +---------------+      +----------------------------------------------+      +---------------+
#   | src           |      | rtr                                          |      | dst           |
#   |          eth0 +------+ eth0 2001:db8:1::2            2001:db8:2::1 eth1 +---+ eth0 capture  |
#   | 2001:db8:1::1 |      |  srv6d: route 2001:db8::/32     (metric 1024)  |      | 2001:db8:2::2 |
#   | 10.0.1.1      |      |         route 10.0.0.0/8        (metric 0)     |      | 10.0.2.2      |
#   +---------------+      |         route 2001:db8:77::/48  metric 300     |      +---------------+
#                          |  encap segs 2001:db8:aa::1,2001:db8:aa::2      |
#                          |  2001:db8:aa::/48 via dst (underlay)           |
#                          |  a while: 2001:db8:77::/48 via dst metric 100  |
#                          +----------------------------------------------+
#
# What dst receives for the same frames from src (test_lpm's, lpm.py) before
# a removal and after the restore must be identical, byte for byte.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d

lpm_setup
# side OUT: the forwarded frames, IPv6 then IPv4; one "RX hex" line each, in
# send order (--each: a late result keeps its place)
side() {
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" \
		--hex $FWD6 >"$1.fwd6"
	"$PY" "$LPM" --cap-ns "$NS_DST" --each 3 --wait 0.5 --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" \
		--hex $FWD4 >"$1.fwd4"
}
# rx FILE N: the hex of packet N of FILE
rx() { awk -v n="$2" '$1 == "RX" && ++i == n {print $2}' "$1"; }
# outer FILE N: the outer destination of packet N of FILE
outer() {
	rx "$1" "$2" | "$PY" -c '
import sys, ipaddress
h = sys.stdin.read().strip()
b = bytes.fromhex(h) if h else b""
if not b: print("none")
elif b[0] >> 4 == 6: print(ipaddress.IPv6Address(b[24:40]), "hlim", b[7])
else: print(ipaddress.IPv4Address(b[16:20]), "ttl", b[8])'
}
# same_as_before OUT LABEL: every packet of side OUT byte-identical to the
# baseline's
same_as_before() {
	local f n exp got
	for f in fwd6 fwd4; do
		for n in 1 2; do
			exp=$(rx "$TMPD/before.$f" $n) got=$(rx "$1.$f" $n)
			if [ -n "$exp" ] && [ "$exp" = "$got" ]; then
				ok "$2: $f packet $n byte-identical to before ($(outer "$1.$f" $n))"
			else
				fail "$2: $f packet $n byte-identical to before" \
					"before: $(outer "$TMPD/before.$f" $n)" "now:    $(outer "$1.$f" $n)" \
					"$(hexdiff "$exp" "$got")"
			fi
		done
	done
}

# ours PREFIX METRIC: srv6d's route for PREFIX at METRIC is in the main table
# (`ip route show` prints no "metric 0" for IPv4)
ours() {
	local f=-6 l
	case $1 in *.*) f=-4 ;; esac
	l=$(ip -n "$NS_RTR" $f route show table main proto 109 "$1" | grep "^$1 dev srv6d0 ") ||
		return 1
	if [ "$2" = 0 ]; then ! grep -q ' metric ' <<<"$l"; else grep -Eq " metric $2( |\$)" <<<"$l"; fi
}
ours6() { ours 2001:db8::/32 1024; }
ours4() { ours 10.0.0.0/8 0; }
ours77() { ours 2001:db8:77::/48 300; }
all3() { ours6 && ours4 && ours77; }
gone6() { ! ours6; }
gone77() { ! ours77; }
# said TEXT: how many lines of srv6d's log hold TEXT
said() { grep -c -- "$1" "$SRV6D_LOG"; }
# restored PREFIX METRIC: how many times srv6d logged its restore (notice)
restored() { said "notice: policy route $1 metric $2 was removed from the kernel: restored"; }
restores() { srv6d_stats >/dev/null; awk '/^policy-routes restored=/ {sub(/.*=/, ""); print}' "$SRV6D_STATS"; }

conf=$TMPD/srv6d.conf
{
	printf 'queue 0\nsteer auto\negress inject\nencap-source %s\n' "$TUNSRC"
	printf 'route 2001:db8::/32 encap seg6 mode encap segs %s\n' "$SEGS"
	printf 'route 10.0.0.0/8 encap seg6 mode encap segs %s\n' "$SEGS"
	printf 'route 2001:db8:77::/48 encap seg6 mode encap segs %s metric 300\n' "$SEGS"
	conf_extra
} >"$conf"
if ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	fail "srv6d starts"
	summary; exit
fi
check "the three policies are kernel routes through srv6d0" all3
side "$TMPD/before"
check "before: forwarded to 99::1 encapsulated ($(outer "$TMPD/before.fwd6" 1))" \
	grep -q '^2001:db8:aa::1 hlim 63$' <<<"$(outer "$TMPD/before.fwd6" 1)"
check "before: IPv4 forwarded to 10.9.9.1 encapsulated ($(outer "$TMPD/before.fwd4" 1))" \
	grep -q '^2001:db8:aa::1 ' <<<"$(outer "$TMPD/before.fwd4" 1)"

# ---- removed by hand: back at once, logged, counted, same traffic ----
ip -n "$NS_RTR" -6 route del 2001:db8::/32 dev srv6d0 proto 109
check "ip -6 route del 2001:db8::/32 dev srv6d0 proto 109: back within 5 s" wait_until 5 ours6
n6() { [ "$(restored 2001:db8::/32 1024)" = "$1" ]; }
n4() { [ "$(restored 10.0.0.0/8 0)" = "$1" ]; }
n77() { [ "$(restored 2001:db8:77::/48 300)" = "$1" ]; }
check "... logged: policy route 2001:db8::/32 metric 1024 was removed from the kernel: restored" \
	wait_until 5 n6 1
ip -n "$NS_RTR" -4 route del 10.0.0.0/8 dev srv6d0 proto 109
check "ip route del 10.0.0.0/8 dev srv6d0 proto 109 (IPv4, metric 0): back within 5 s" wait_until 5 ours4
check "... logged: policy route 10.0.0.0/8 metric 0 was removed from the kernel: restored" \
	wait_until 5 n4 1
side "$TMPD/after"
same_as_before "$TMPD/after" "after the restore"
n=$(restores)
check "counted: policy-routes restored=${n:-none} (2)" test "${n:-}" = 2

# ---- srv6d0 down (the kernel flushes its routes) and up again ----
ip -n "$NS_RTR" link set srv6d0 down
check "srv6d0 down: the kernel flushed the policy routes" wait_until 5 gone6
check "... srv6d says why they are gone" \
	wait_until 5 grep -q 'srv6d0 is down: the routes of the 3 policies went with it' "$SRV6D_LOG"
ip -n "$NS_RTR" link set srv6d0 up
check "srv6d0 up again: the three routes are back within 5 s" wait_until 5 all3
each() { n6 2 && n4 2 && n77 1; }
check "... each one logged" wait_until 5 each
side "$TMPD/updown"
same_as_before "$TMPD/updown" "after srv6d0 down and up"

# ---- a foreign route takes the place: left alone, named once ----
# `replace` swaps the route of that prefix and metric, whatever its
# protocol: srv6d's goes, and the kernel sends no RTM_DELROUTE for it
ip -n "$NS_RTR" -6 route replace 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST" metric 1024
conflict="error: policy route 2001:db8::/32 metric 1024: a route that is not srv6d's took its place"
check "ip -6 route replace by a foreign route: srv6d logs the conflict (error)" \
	wait_until 5 grep -q -- "$conflict" "$SRV6D_LOG"
foreign() {
	ip -n "$NS_RTR" -6 route show table main 2001:db8::/32 |
		grep -q "^2001:db8::/32 via $DST_ADDR dev $RTR_IF_DST .*metric 1024"
}
left_alone() { foreign && ! ours6; }
# holds SECONDS CMD...: CMD true at every poll for SECONDS (a later tick
# must not undo it)
holds() {
	local deadline=$(( $(date +%s%N) + ${1%.*} * 1000000000 + 500000000 )); shift
	while [ "$(date +%s%N)" -lt "$deadline" ]; do "$@" || return 1; sleep 0.1; done
}
check "... leaves the foreign route alone and adds none of its own beside it (1.5 s, ticks included)" \
	holds 1 left_alone
ip -n "$NS_RTR" -6 route del 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST" metric 1024
check "the foreign route removed: srv6d's is back within 5 s" wait_until 5 ours6
check "... logged as restored" wait_until 5 n6 3
check "... and the conflict was said once ($(said "$conflict"))" test "$(said "$conflict")" = 1

# ---- a shadowed policy: warned of once, not at each reload ----
ip -n "$NS_RTR" -6 route add 2001:db8:77::/48 via "$DST_ADDR" dev "$RTR_IF_DST" metric 100
shadowed="route 2001:db8:77::/48: a route of the same prefix at the better metric 100 wins over the policy's (300)"
reloads() { said 'notice: reloaded '; }
for _ in 1 2; do
	n=$(reloads)
	kill -HUP "$SRV6D_PID"
	wait_until 10 eval '[ "$(reloads)" -gt '"$n"' ]'
done
check "2001:db8:77::/48 shadowed at metric 100, two reloads: srv6d warns of it ($(said "$shadowed"))" \
	test "$(said "$shadowed")" -ge 1
check "... once ($(said "$shadowed"))" test "$(said "$shadowed")" = 1
ip -n "$NS_RTR" -6 route del 2001:db8:77::/48 via "$DST_ADDR" dev "$RTR_IF_DST" metric 100

# ---- srv6d's own removal (a reload) is not undone ----
grep -v '^route 2001:db8:77::/48' "$conf" >"$conf.new" && mv "$conf.new" "$conf"
lines=$(wc -l <"$SRV6D_LOG")
kill -HUP "$SRV6D_PID"
reloaded() { tail -n +$((lines + 1)) "$SRV6D_LOG" | grep -q 'notice: reloaded .*: 0 SIDs, 2 routes'; }
wait_until 10 reloaded
check "a reload without 2001:db8:77::/48: its route is removed" gone77
# a later removal is restored once its event is read: the reload's own
# removal, read before it, has been acted on by then
ip -n "$NS_RTR" -4 route del 10.0.0.0/8 dev srv6d0 proto 109
check "a removal after the reload is restored within 5 s" wait_until 5 ours4
since_reload() { tail -n +$((lines + 1)) "$SRV6D_LOG" | grep -E 'policy route .*(restored|took its place|cannot be added)'; }
only_that() { [ "$(since_reload)" = "srv6d: notice: policy route 10.0.0.0/8 metric 0 was removed from the kernel: restored" ]; }
check "... and the reload's removal stays: 2001:db8:77::/48 not re-added" gone77
check "... and no other restore or conflict logged since the reload (its own removal is quiet)" \
	wait_until 5 only_that
n=$(restores)
check "counted: policy-routes restored=${n:-none} (7)" test "${n:-}" = 7

# ---- srv6d0 deleted by someone else: said once (srv6d does not create it again) ----
ip -n "$NS_RTR" link del srv6d0
deleted="error: srv6d0 was deleted (not by srv6d): the routes of the 2 policies went with it"
check "srv6d0 deleted: srv6d says so (error), and that it needs a restart" \
	wait_until 5 grep -q -- "$deleted.*restart srv6d" "$SRV6D_LOG"
# another event of a policy's place: a look, which says nothing new
ip -n "$NS_RTR" -6 route add 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST" metric 1024
ip -n "$NS_RTR" -6 route del 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST" metric 1024
sleep 1.2   # quiet by design: nothing to poll for; events are read within a tick (1 s)
check "... once ($(said "$deleted"))" test "$(said "$deleted")" = 1
check "srv6d still running" srv6d_alive
srv6d_stop
# (that srv6d removes its routes at stop is test_lpm's: here srv6d0, and
# its routes with it, are already gone)
summary
