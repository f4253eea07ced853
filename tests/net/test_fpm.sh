#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_fpm.sh - zebra's FPM stream as a source of SIDs and policies
# (`fpm listen`, docs/CONTROL.md "zebra's FPM").  A stand-in for zebra
# (fpm_client.py: frames of rtnetlink messages as dplane_fpm_nl sends them)
# programs srv6d; the real zebra (Debian's frr 8.4, -M dplane_fpm_nl) talks
# to the same listener at the end.
#
#   +-----------+      +-------------------------------------------+      +-----------+
#   | src       |      | rtr                                       |      | dst       |
#   |      eth0 +------+ eth0   srv6d  fpm listen 127.0.0.1 2620    eth1 +------+ eth0      |
#   +-----------+      |        ^ 127.0.0.1: fpm_client.py / zebra |      +-----------+
#                      +-------------------------------------------+
#
# Checks: the listener's conf errors; a SID learned over FPM is listed with
# origin fpm, steered and processes traffic; a conf line wins over an FPM
# entry with its prefix (said once); VRF-table, plain and malformed routes
# are counted and named, and a route the kernel refuses costs only itself;
# a headend policy over FPM; a dropped session keeps the entries for the
# grace time, a replay keeps their counters, what is not replayed goes when
# the time is up; a second connection while a session is up is refused; a
# malformed frame closes the session; reload keeps the
# FPM entries; 1000 SIDs added and removed in batches leave nothing behind;
# a conf line's pending warning is said at start and reload, not per batch;
# real zebra connects, sends its nexthop objects and plain routes (counted,
# not stored) and its disconnect is seen.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

ZD=
zebra_cleanup() {
	[ -n "$ZD" ] || return 0
	[ -s "$ZD/zebra.pid" ] && kill "$(cat "$ZD/zebra.pid")" 2>/dev/null
	rm -rf "$ZD"
}
test_begin --srv6ctl --trap zebra_cleanup

SOCK=$TMPD/ctl.sock
CONF=$TMPD/srv6d.conf
FPMC="$LIB_DIR/fpm_client.py"
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
fstat() { ctl -j status | jget "d['fpm']['$1']"; }
sids() { ctl -j status | jget "d['sids']"; }
client() { in_rtr "$PY" "$FPMC" 127.0.0.1 2620 "$@"; }
has_sid() { ctl sid show 2>/dev/null | grep -q "^$1 "; }
sid_packets() { ctl -j -s sid show "$1" | jget 'd[0]["stats"]["packets"]'; }
steered() { in_rtr ip6tables -t raw -S | grep -q -- "-d $1/128 -j NFQUEUE"; }

# ---- the conf line ----
bad_fpm() {   # LINE MESSAGE: srv6d --check refuses LINE, naming it
	printf 'control-socket none\n%s\n' "$1" >"$TMPD/bad.conf"
	local out
	out=$(in_rtr "$SRV6D" --check -c "$TMPD/bad.conf" 2>&1) && return 1
	echo "$out" | grep -qF "bad.conf:2: $2" || { echo "# got: $out"; return 1; }
}
check "conf: a non-loopback address needs \"remote\"" \
	bad_fpm "fpm listen 2001:db8:1::2" 'fpm address "2001:db8:1::2" is not a loopback address'
check "conf: a bad port is named" bad_fpm "fpm listen 127.0.0.1 70000" 'fpm port "70000"'
check "conf: an unknown word is named" bad_fpm "fpm listen ::1 2620 grase 3" 'unexpected "grase"'
check "conf: fpm without listen" bad_fpm "fpm 127.0.0.1" 'unknown fpm word "127.0.0.1"'

{
	echo "control-socket $SOCK"
	echo "encap-source $RTR_ADDR_SRC"
	echo "fpm listen 127.0.0.1 2620 grace 4"
	conf_extra
	echo "sid 2001:db8:ff::1 action End"
	# pending (no route toward its next hop): said once, not per batch
	echo "sid 2001:db8:ff::7 action End.X nh6 fc00:88::1"
} >"$CONF"
PEND7="sid 2001:db8:ff::7/128 End.X pending: nh6 fc00:88::1"
srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log" || { fail "srv6d starts"; summary; exit 1; }
check "status: the listener, no session yet" \
	eval 'ctl status | grep -q "^fpm listening 127.0.0.1:2620, no session: 0 entries, 0 routes waiting"'

# ---- session 1: SIDs, a policy, what is refused ----
client sid 2001:db8:ff::9/128 End \
	sid 2001:db8:ff::1/128 End.X nh6 "$DST_ADDR" \
	sid 2001:db8:ff::20/128 End table 100 \
	plain 2001:db8:5::/64 \
	sid 2001:db8:ff::2/128 End.X nh6 ::1 \
	route 2001:db8:77::/64 2001:db8:aa::1,2001:db8:bb::1 \
	nhsid 2001:db8:ff::21/128 7 \
	wait "$TMPD/close1" &
CLIENT=$!
wait_until 20 eval 'has_sid 2001:db8:ff::9 && has_sid 2001:db8:ff::21 &&
	[ "$(fstat adds)" -ge 7 ] && grep -q "2001:db8:ff::2/128 not applied" "$SRV6D_LOG"'
check "an FPM SID is listed with origin fpm" \
	eval 'ctl sid show | grep -qx "2001:db8:ff::9 action End dev lo  # origin fpm" &&
	      [ "$(ctl -j sid show 2001:db8:ff::9 | jget "d[0][\"origin\"]")" = fpm ] &&
	      [ "$(ctl -j sid show 2001:db8:ff::1 | jget "d[0][\"origin\"]")" = conf ]'
check "... and steered" steered 2001:db8:ff::9
pkt_to_dst send --case end-sid9 >"$TMPD/sid9.cap"
check "... and processes traffic" \
	eval '[ "$(sid_packets 2001:db8:ff::9)" -ge 1 ] &&
	      grep -q "^RX end-sid9 .*20010db800aa00000000000000000001" "$TMPD/sid9.cap"'
check "a route naming a nexthop object takes its encap" \
	eval 'ctl sid show | grep -qx "2001:db8:ff::21 action End dev lo  # origin fpm"'
check "a conf line wins over an FPM entry with its prefix, said once" \
	eval 'ctl sid show 2001:db8:ff::1 | grep -qx "2001:db8:ff::1 action End" &&
	      [ "$(grep -c "fpm: SID 2001:db8:ff::1/128: .* has it; the conf.s line wins" "$SRV6D_LOG")" = 1 ] &&
	      grep -q "fpm: SID 2001:db8:ff::1/128: $CONF:[0-9]* has it" "$SRV6D_LOG"'
check "a VRF table's route: refused, counted, named" \
	eval '[ "$(fstat refused_table)" = 1 ] &&
	      grep -q "fpm: route 2001:db8:ff::20/128 table 100 refused: not in the main table" "$SRV6D_LOG" &&
	      ! has_sid 2001:db8:ff::20'
check "a plain route: counted as not SRv6, not stored" \
	eval '[ "$(fstat not_srv6)" -ge 1 ] && [ "$(fstat entries)" = 5 ]'
check "a SID the kernel refuses costs only itself (the others run)" \
	eval '! has_sid 2001:db8:ff::2 && has_sid 2001:db8:ff::9 && has_sid 2001:db8:ff::21 &&
	      grep -q "fpm: SID 2001:db8:ff::2/128 not applied: nh6 ::1" "$SRV6D_LOG" && [ "$(fstat rejected)" = 1 ]'
check "a headend policy over FPM: route show, origin fpm" \
	eval 'ctl route show | grep -q "^2001:db8:77::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:bb::1 .* # origin fpm$"'
check "a conf line's pending warning is not repeated by the batches ($(grep -c "$PEND7" "$SRV6D_LOG") times)" \
	test "$(grep -c "$PEND7" "$SRV6D_LOG")" = 1
client sid 2001:db8:ff::50/128 End sleep 0.5 >/dev/null 2>&1
check "a second connection while the session is up: refused, counted, the session stays" \
	eval '[ "$(fstat refused_conns)" = 1 ] && ! has_sid 2001:db8:ff::50 &&
	      grep -q "fpm: connection from 127.0.0.1:[0-9]* refused: the session from" "$SRV6D_LOG" &&
	      ctl status | grep -q "^fpm listening 127.0.0.1:2620, session from"'
check "reload keeps the FPM entries" \
	eval 'ctl reload >/dev/null && has_sid 2001:db8:ff::9 && has_sid 2001:db8:ff::21 &&
	      ctl route show | grep -q "^2001:db8:77::/64"'
before=$(sid_packets 2001:db8:ff::9)

# ---- the session drops: grace, then a replay of part of it ----
touch "$TMPD/close1"; wait "$CLIENT"
wait_until 10 eval 'ctl status | grep -q "^fpm listening 127.0.0.1:2620, no session (stale"'
check "a dropped session keeps its entries for the grace time" \
	eval 'has_sid 2001:db8:ff::9 && has_sid 2001:db8:ff::21 && grep -q "ended (closed by zebra): 5 entries kept for 4 s" "$SRV6D_LOG"'
client sid 2001:db8:ff::9/128 End wait "$TMPD/close2" &
CLIENT=$!
wait_until 10 eval '[ "$(fstat sessions)" = 2 ]'
wait_until 20 eval '! has_sid 2001:db8:ff::21'
check "after the grace time what zebra did not send again is gone" \
	eval '! has_sid 2001:db8:ff::21 && ! ctl route show | grep -q "^2001:db8:77::/64" &&
	      [ "$(fstat expired)" = 4 ] && ! steered 2001:db8:ff::21'
check "the replayed SID stayed, its counters kept ($before packets)" \
	eval 'has_sid 2001:db8:ff::9 && [ "$(sid_packets 2001:db8:ff::9)" -ge "$before" ] && [ "$before" -ge 1 ]'
touch "$TMPD/close2"; wait "$CLIENT"

# ---- a malformed frame closes the session ----
client sid 2001:db8:ff::30/128 End garbage sleep 1
wait_until 10 eval 'grep -q "ended (a malformed frame" "$SRV6D_LOG"'
check "a malformed frame: the session closes, counted; the frames before it apply" \
	eval '[ "$(fstat bad)" = 1 ] && grep -q "ended (a malformed frame" "$SRV6D_LOG" && has_sid 2001:db8:ff::30'

# ---- batches: 1000 SIDs added, then removed ----
n0=$(sids)
rss0=$(awk '/^VmRSS/ {print $2}' "/proc/$SRV6D_PID/status")
client many 1000 2001:db8:f0::/64 wait "$TMPD/close3" &
CLIENT=$!
wait_until 60 eval '[ "$(sids)" -ge $((n0 + 1000)) ]'
check "1000 SIDs over FPM: all running" eval '[ "$(sids)" -ge $((n0 + 1000)) ] && steered 2001:db8:f0::3e8'
touch "$TMPD/close3"; wait "$CLIENT"
client unmany 1000 2001:db8:f0::/64 sleep 0.5
wait_until 60 eval '[ "$(sids)" = "$n0" ]'
check "... and all removed: no SID, no steering rule left" \
	eval '[ "$(sids)" = "$n0" ] && ! in_rtr ip6tables -t raw -S | grep -q "2001:db8:f0::"'
check "... said again by the reload only, not by the 1000-SID batches ($(grep -c "$PEND7" "$SRV6D_LOG") times)" \
	test "$(grep -c "$PEND7" "$SRV6D_LOG")" = 2
rss1=$(awk '/^VmRSS/ {print $2}' "/proc/$SRV6D_PID/status")
echo "# RSS ${rss0} kB before the 1000 SIDs, ${rss1} kB after their removal"

# ---- the real zebra ----
ZEBRA=/usr/lib/frr/zebra
if [ -x "$ZEBRA" ] && [ -f /usr/lib/x86_64-linux-gnu/frr/modules/dplane_fpm_nl.so ] && id frr >/dev/null 2>&1; then
	# zebra runs as frr: its directory is its own, not under $TMPD (0700)
	ZD=$(mktemp -d /tmp/srv6d-zebra.XXXXXX); chown frr:frr "$ZD"
	cat >"$ZD/zebra.conf" <<-EOF
	hostname rtr
	fpm address 127.0.0.1 port 2620
	interface lo
	 ipv6 address 2001:db8:ff:1::1/128
	!
	EOF
	chown frr:frr "$ZD/zebra.conf"
	s0=$(fstat sessions); p0=$(fstat not_srv6)
	e0=$(grep -c "ended (closed by zebra)" "$SRV6D_LOG")
	in_rtr "$ZEBRA" -d -M dplane_fpm_nl -f "$ZD/zebra.conf" -i "$ZD/zebra.pid" -z "$ZD/zserv.api" \
		--vty_socket "$ZD" -u frr -g frr >"$ZD/out" 2>&1
	wait_until 60 eval '[ "$(fstat sessions)" -gt "$s0" ] && [ "$(fstat not_srv6)" -gt "$p0" ]'
	check "real zebra: its session, nexthop objects and plain routes (counted, not stored)" \
		eval '[ "$(fstat sessions)" -gt "$s0" ] && [ "$(fstat nexthops)" -ge 1 ] &&
		      [ "$(fstat not_srv6)" -gt "$p0" ] && [ "$(fstat bad)" = 1 ]'
	zpid=$(cat "$ZD/zebra.pid" 2>/dev/null)
	[ -n "$zpid" ] && kill "$zpid"
	wait_until 30 eval '[ "$(grep -c "ended (closed by zebra)" "$SRV6D_LOG")" -gt "$e0" ]'
	check "real zebra stopped: srv6d sees the session end" \
		eval '[ "$(grep -c "ended (closed by zebra)" "$SRV6D_LOG")" -gt "$e0" ] &&
		      ctl status | grep -q "^fpm listening 127.0.0.1:2620, no session"'
else
	skip "real zebra" "frr's zebra with dplane_fpm_nl is not installed (apt-get install frr)"
fi

check "srv6d stops cleanly" srv6d_stop
summary
