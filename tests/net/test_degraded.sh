#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_degraded.sh - degraded start (issue 9 item 4, issue 10): an interface
# that does not exist yet, a link that goes down, a first segment without a
# route do not stop srv6d.  It starts, installs what it can, logs and counts
# the rest as "pending" and completes it from rtnetlink events.
#
#   +---------------+      +------------------------------------+      +----------------+
#   | src           |      | rtr  srv6d                         |      | dst            |
#   |          eth0 +------+ eth0                          eth1 +------+ eth0           |
#   | 2001:db8:1::1 |      | 2001:db8:1::2        2001:db8:2::1 |      | 2001:db8:2::2  |
#   | sends         |      |                                    |      | captures       |
#   +---------------+      |                      eth2 (created +------+ eth1 (later)   |
#                          |                  later) 2001:db8:3::1     | 2001:db8:3::2  |
#                          +------------------------------------+      +----------------+
#   sid 2001:db8:ff::1 End.X nh6 2001:db8:3::2 oif eth2   (eth2 missing at start)
#   sid 2001:db8:ff::2 End                                 (always complete)
#   route 2001:db8:99::/64 encap segs fc00:77::1          (no route toward
#       fc00:77::1 at start, so no outer source: pending until one is added)
#   rtr's main table sends 2001:db8::/32 to dst's eth0: an End.X result seen
#   on dst's eth1 took the adjacency, not the main table.
#
# Checks: --check warns and exits 0; srv6d starts (ready, exit status of a
# start not needed) with 2 pending, says so in the log, STATUS= and the stats;
# a packet to the pending SID is dropped and counted "pending"; eth2 appears
# -> End.X forwards through it (scapy capture on dst's eth1); eth2 down ->
# pending again (dropped, counted), up with its address -> forwards again;
# the policy completes when a route toward its first segment is added
# (encapsulated packets at dst); a reload with a missing interface keeps
# srv6d running (the End SID still works); a conf syntax error still exits 1;
# with encap-source, a publish of completed entries that fails is retried
# (SRV6D_TEST_PUBLISH_FAIL) until the SID forwards.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
NS_SRC="degr-src-$$-$RANDOM" NS_RTR="degr-rtr-$$-$RANDOM" NS_DST="degr-dst-$$-$RANDOM"

test_begin --srv6d --trap 'kill "${NOTIFY_PID:-}" 2>/dev/null'

X=2001:db8:ff::1 E=2001:db8:ff::2
CONF=$TMPD/srv6d.conf
{
	echo "queue 0"
	echo "steer auto"
	echo "sid $X action End.X nh6 2001:db8:3::2 oif eth2"
	echo "sid $E action End"
	echo "route 2001:db8:99::/64 encap seg6 mode encap segs fc00:77::1"
	echo "sid 2001:db8:ff::4 action End.DX4 nh4 192.0.2.2"
	echo "control-socket $TMPD/ctl.sock"
	conf_extra
} >"$CONF"
SID_LINE=3 ROUTE_LINE=5 DX4_LINE=6

# End packets (SRH [2001:db8:bb::1, SID], SL 1) to SID $1: DA after = bb::1
sid_pkt() { "$PY" "$PKT" build end | sed -n 2p | sed "s/20010db800ff00000000000000000001/$1/g"; }
X_HEX=20010db800ff00000000000000000001 E_HEX=20010db800ff00000000000000000002
BB=20010db800bb00000000000000000001
# DA of what arrives at dst on interface $2 for the hex packet $1 (one line each)
arrived() { "$PY" "$PKT" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" --cap-if "$2" \
		send --hex "$1" | awk '$1 == "RX" {print substr($4, 49, 32)}'; }
x_via_eth2() { [ "$(arrived "$(sid_pkt $X_HEX)" eth1)" = $BB ]; }
pending_total() { srv6d_stats && awk '$1 == "pending" && $2 ~ /^total=/ {sub("total=", "", $2); print $2}' "$SRV6D_STATS"; }
log_has() { grep -q -- "$1" "$SRV6D_LOG"; }

# ---- --check: warnings for what completes later, exit 0 ----
out=$(in_rtr "$SRV6D" --check -c "$CONF" 2>&1); rc=$?
check "--check exits 0 with a missing interface (got $rc)" test "$rc" -eq 0
check "--check warns: interface eth2 missing, the SID starts pending" \
	bash -c '[[ "$1" == *"$2:$3: warning: "*eth2*pending* ]]' _ "$out" "$CONF" $SID_LINE
check "--check warns: no source toward the first segment, the route starts pending" \
	bash -c '[[ "$1" == *"$2:$3: warning: no source address toward fc00:77::1"*pending* ]]' \
	_ "$out" "$CONF" $ROUTE_LINE

nh_conf=$TMPD/nh.conf
printf 'queue 0\nsid 2001:db8:ff::8 action End.X nh6 fc00:88::1\n' >"$nh_conf"
out=$(in_rtr "$SRV6D" --check -c "$nh_conf" 2>&1); rc=$?
check "--check: End.X nh6 without a route warns and exits 0 (got $rc)" \
	bash -c '[ "$2" -eq 0 ] && [[ "$1" == *"nh6 fc00:88::1: no route toward the next hop"*pending* ]]' \
	_ "$out" "$rc"

# ---- start degraded ----
SOCK="@srv6d-degr-$$-$RANDOM" NOUT=$TMPD/notify.out
ip netns exec "$NS_RTR" "$PY" "$LIB_DIR/notify.py" "$SOCK" "$NOUT" true &
NOTIFY_PID=$!
wait_until 5 test -s "$NOUT.ready" || fail "notify listener did not start"
if ! NOTIFY_SOCKET=$SOCK srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log"; then
	fail "srv6d starts with a missing interface and an unroutable first segment" \
		"exit ${SRV6D_RC:-?}"
	summary; exit
fi
ok "srv6d starts with a missing interface and an unroutable first segment"
check "log: started with 3 pending" log_has "started: .*3 pending"
check "log: the SID is pending, naming eth2 (once)" \
	test "$(grep -c "srv6d.conf:$SID_LINE: sid $X/128 End.X pending: unknown interface \"eth2\"" "$SRV6D_LOG")" -eq 1
check "log: the route is pending (no source toward fc00:77::1)" \
	log_has "srv6d.conf:$ROUTE_LINE: route 2001:db8:99::/64 encap pending: no source address toward fc00:77::1"
check "log: End.DX4 without a route toward nh4 is pending" \
	log_has "srv6d.conf:$DX4_LINE: sid 2001:db8:ff::4/128 End.DX4 pending: nh4 192.0.2.2"
check "STATUS= says 3 pending" wait_until 5 grep -q 'READY=1|STATUS=running: .*, 3 pending' "$NOUT"
check "stats: pending total=3" test "$(pending_total)" = 3
if [ -x "$BUILD/srv6ctl" ]; then
	check "srv6ctl status says 3 pending" \
		bash -c 'ip netns exec "$1" "$2" -S "$3" status | grep -q "^pending 3 "' _ \
		"$NS_RTR" "$BUILD/srv6ctl" "$TMPD/ctl.sock"
	check "srv6ctl -j status: \"pending\": 3" \
		bash -c 'ip netns exec "$1" "$2" -S "$3" -j status |
			"$4" -c "import json, sys; sys.exit(json.load(sys.stdin)[\"pending\"] != 3)"' _ \
		"$NS_RTR" "$BUILD/srv6ctl" "$TMPD/ctl.sock" "$PY"
fi
check "stats: the SID listed with its reason" grep -q "^pending sid $X/128 End.X .*eth2" "$SRV6D_STATS"
check "the complete End SID works meanwhile" test "$(arrived "$(sid_pkt $E_HEX)" eth0)" = $BB
out=$(arrived "$(sid_pkt $X_HEX)" eth0)
check "a packet to the pending SID goes nowhere (got '$out')" test -z "$out"
srv6d_stats
check "... and is counted as dropped \"pending\" ($(counter $X pending))" test "$(counter $X pending)" -ge 1

# ---- the interface appears ----
ip -n "$NS_DST" link add eth1 type veth peer name eth2 netns "$NS_RTR"
ip -n "$NS_DST" addr add 2001:db8:3::2/64 dev eth1 nodad
ip -n "$NS_DST" link set eth1 up
ip -n "$NS_DST" addr add 192.0.2.2/24 dev eth1
rtr_eth2_up() {
	ip -n "$NS_RTR" addr replace 192.0.2.1/24 dev eth2
	ip -n "$NS_RTR" addr replace 2001:db8:3::1/64 dev eth2 nodad
	ip -n "$NS_RTR" link set eth2 up
	ip -n "$NS_RTR" neigh replace 2001:db8:3::2 lladdr "$(mac_of "$NS_DST" eth1)" dev eth2 nud permanent
}
rtr_eth2_up
sid_complete() { log_has "srv6d.conf:$SID_LINE: sid $X/128 End.X complete"; }
check "eth2 appears: the SID completes (log)" wait_until 10 sid_complete
check "End.X forwards through eth2 to dst's eth1" wait_until 5 x_via_eth2
dx4_state() { grep -oE "sid 2001:db8:ff::4/128 End.DX4 (pending|complete)" "$SRV6D_LOG" | tail -1 | awk '{print $4}'; }
check "eth2 appears with 192.0.2.1/24: End.DX4 completes (log)" wait_until 10 eval '[ "$(dx4_state)" = complete ]'
check "stats: pending total=1 (the route)" test "$(pending_total)" = 1
check "STATUS= says 1 pending" wait_until 5 grep -q 'STATUS=running: .*, 1 pending' "$NOUT"

# ---- link down, then up ----
ip -n "$NS_RTR" link set eth2 down
sid_pending_again() { [ "$(grep -c "sid $X/128 End.X pending" "$SRV6D_LOG")" -ge 2 ]; }
check "eth2 down: the SID is pending again (log)" wait_until 10 sid_pending_again
srv6d_stats; before=$(counter $X pending)
out=$(arrived "$(sid_pkt $X_HEX)" eth1)
srv6d_stats
check "... its packets are dropped and counted ($before -> $(counter $X pending))" \
	test -z "$out" -a "$(counter $X pending)" -gt "$before"
check "eth2 down: End.DX4 pending again (IPv4 removed its route silently)" \
	wait_until 10 eval '[ "$(dx4_state)" = pending ]'
rtr_eth2_up
check "eth2 up: End.DX4 completes again" wait_until 10 eval '[ "$(dx4_state)" = complete ]'
sid_complete_again() { [ "$(grep -c "sid $X/128 End.X complete" "$SRV6D_LOG")" -ge 2 ]; }
check "eth2 up again: the SID completes (log)" wait_until 10 sid_complete_again
check "End.X forwards through eth2 again" wait_until 5 x_via_eth2

# ---- the first segment gets a route ----
encap_da() { "$PY" "$PKT" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap-ns "$NS_DST" \
		send --case policy-encap | awk '$1 == "RX" {print substr($4, 49, 32)}' | sort -u; }
out=$(encap_da)
srv6d_stats
check "before: policy traffic goes nowhere (got '$out'), counted \"pending\" ($(counter 2001:db8:99::/64 pending))" \
	test -z "$out" -a "$(counter 2001:db8:99::/64 pending)" -eq 2
ip -n "$NS_RTR" -6 route add fc00:77::/64 via "$DST_ADDR" dev "$RTR_IF_DST"
route_complete() { log_has "srv6d.conf:$ROUTE_LINE: route 2001:db8:99::/64 encap complete"; }
check "a route toward fc00:77::1 appears: the policy completes (log)" wait_until 10 route_complete
check "policy traffic arrives encapsulated toward fc00:77::1" \
	test "$(encap_da)" = fc000077000000000000000000000001
check "stats: pending total=0" test "$(pending_total)" = 0

# ---- reload with a missing interface ----
echo "sid 2001:db8:ff::9 action End.X nh6 2001:db8:4::2 oif eth9" >>"$CONF"
kill -HUP "$SRV6D_PID"
reloaded() { log_has "reloaded .*1 pending"; }
check "reload with a missing interface succeeds degraded (log)" wait_until 10 reloaded
check "... srv6d keeps running" srv6d_alive
check "... the End SID still works" test "$(arrived "$(sid_pkt $E_HEX)" eth0)" = $BB
check "... End.X through eth2 still works" x_via_eth2
check "srv6d stops cleanly" srv6d_stop

# ---- errors that still stop the start ----
bad=$TMPD/bad.conf
{ cat "$CONF"; echo "sid 2001:db8:ff::7 action End.DX5"; } >"$bad"
in_rtr timeout 10 "$SRV6D" -f -c "$bad" >"$TMPD/bad.log" 2>&1; rc=$?
check "a conf syntax error still exits 1 (got $rc)" test "$rc" -eq 1

# ---- a failed publish of completed entries is retried (with encap-source) ----
# SRV6D_TEST_PUBLISH_FAIL: while the file exists every publish fails (a test
# hook standing for an out-of-memory publish).  encap-source: no outer source
# is ever refreshed, and the retry must not depend on that refresh.
Y=2001:db8:ff::5 Y_HEX=20010db800ff00000000000000000005 FP=$TMPD/failpub
CONF2=$TMPD/srv6d2.conf
{
	echo "queue 0"
	echo "steer auto"
	echo "encap-source $RTR_ADDR_SRC"
	echo "sid $Y action End.X nh6 2001:db8:5::2 oif eth5"
	echo "sid $E action End"
	conf_extra
} >"$CONF2"
y_via_eth5() { [ "$(arrived "$(sid_pkt $Y_HEX)" eth3)" = $BB ]; }
if SRV6D_TEST_PUBLISH_FAIL=$FP srv6d_start "$CONF2" "$TMPD/stats2" "$TMPD/srv6d2.log"; then
	check "publish retry: started with 1 pending (eth5 missing)" log_has "started: .*1 pending"
	touch "$FP"
	ip -n "$NS_DST" link add eth3 type veth peer name eth5 netns "$NS_RTR"
	ip -n "$NS_DST" addr add 2001:db8:5::2/64 dev eth3 nodad
	ip -n "$NS_DST" link set eth3 up
	ip -n "$NS_RTR" addr add 2001:db8:5::1/64 dev eth5 nodad
	ip -n "$NS_RTR" link set eth5 up
	ip -n "$NS_RTR" neigh replace 2001:db8:5::2 lladdr "$(mac_of "$NS_DST" eth3)" dev eth5 nud permanent
	check "publish retry: eth5 appears, the SID completes but its publish fails (log)" \
		wait_until 10 log_has "publishing completed entries: publish: Cannot allocate memory"
	out=$(arrived "$(sid_pkt $Y_HEX)" eth3)
	check "publish retry: ... the tables still hold it pending (got '$out')" test -z "$out"
	rm -f "$FP"
	check "publish retry: the publish is retried once it can succeed (log)" \
		wait_until 10 log_has "republished the running configuration after a failed publish"
	check "publish retry: End.X now forwards through eth5" wait_until 5 y_via_eth5
	check "publish retry: srv6d stops cleanly" srv6d_stop
else
	fail "publish retry: srv6d starts with encap-source and a missing interface"
fi
summary
