#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_service.sh - srv6d as a service (src/daemon/service.c, main.c's
# start-up): the unit's own ExecStartPre/ExecStart lines run in the router
# namespace of lib.sh's topology with NOTIFY_SOCKET pointed at a test socket
# (tests/net/notify.py), and srv6d started the way an init script would.
#
#   +-------------+        +------------------------------+        +-------------+
#   | src         |        | rtr   srv6d (queues 0-1)     |        | dst         |
#   |        eth0 +--------+ eth0                    eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | 2001:db8:1::2   2001:db8:2::1|        | 2001:db8:2::2/64
#   +-------------+        +------------------------------+        +-------------+
#                           notify.py on @srv6d-notify-PID-RANDOM
#
# Checks: the unit verifies (systemd-analyze verify, when systemd is there);
# the notify sequence MAINPID, READY=1, RELOADING=1 + MONOTONIC_USEC,
# READY=1, STOPPING=1 in that order, with WATCHDOG=1 pings under
# WATCHDOG_USEC; at the moment READY=1 arrives the queues are bound, the rules
# installed and the workers running; stderr carries <N> priorities under a
# service manager; log-level filters; the pid file.  Forking: the command
# returns only once srv6d is up (rules and queues there without waiting),
# and a failed start is a non-zero exit of that command: queue already bound
# by another srv6d, pid file locked, no iptables, bad configuration.  --check
# warns about a missing interface and fails without the steering tools.
set -u
source "$(dirname "$0")/lib.sh"

test_begin --srv6d --trap cleanup_svc

NOTIFY_PID='' DPID=''
cleanup_svc() {
	[ -n "$NOTIFY_PID" ] && kill "$NOTIFY_PID" 2>/dev/null
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null
	true
}

CONF=$TMPD/srv6d.conf
cat >"$CONF" <<CONF
queue 0-1
log-level info
sid 2001:db8:ff::1 action End
sid 2001:db8:ff::3 action End.X nh6 2001:db8:2::2 oif $RTR_IF_DST
route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ff::1,2001:db8:aa::1
CONF

# ---- the unit -------------------------------------------------------------
# The unit as `make install` writes it, with the build's srv6d, the test conf
# and %t (the runtime directory) in $TMPD/run.
mkdir -p "$TMPD/etc/srv6d" "$TMPD/run/srv6d"
cp "$CONF" "$TMPD/etc/srv6d/srv6d.conf"
UNIT=$TMPD/srv6d.service
sed -e "s|@SBINDIR@|$(dirname "$SRV6D")|g" -e "s|@SYSCONFDIR@|$TMPD/etc|g" \
	"$TOP_DIR/systemd/srv6d.service.in" >"$UNIT"
if command -v systemd-analyze >/dev/null; then
	if out=$(systemd-analyze verify --man=no "$UNIT" 2>&1) && [ -z "$out" ]; then
		ok "unit: systemd-analyze verify"
	else
		fail "unit: systemd-analyze verify" "$out"
	fi
else
	skip "unit: systemd-analyze verify" "systemd-analyze not installed"
fi
unit_cmd() { # KEY: the command line of KEY= with %t expanded
	sed -n "s/^$1=//p" "$UNIT" | sed "s|%t|$TMPD/run|g"
}
read -ra PRE <<<"$(unit_cmd ExecStartPre)"
read -ra START <<<"$(unit_cmd ExecStart)"
check "unit: ExecStart runs srv6d in the foreground" \
	test "${START[0]}" = "$SRV6D" -a "${START[1]}" = --foreground
if out=$(in_rtr "${PRE[@]}" 2>&1); then ok "unit: ExecStartPre (--check) passes"
else fail "unit: ExecStartPre (--check) passes" "$out"; fi

# ---- the notify sequence -----------------------------------------------------
SOCK="@srv6d-notify-$$-$RANDOM"
NOUT=$TMPD/notify.log
# What must hold when READY=1 arrives: both queues bound, the SID rules in
# raw, a thread per worker (main + 2 workers at least).
READY_CHECK='[ "$(wc -l </proc/net/netfilter/nfnetlink_queue)" -eq 2 ] &&
	ip6tables -t raw -S SRV6D | grep -q "2001:db8:ff::1/128.*NFQUEUE" &&
	[ "$(ls /proc/$MAINPID/task | wc -l)" -ge 3 ]'
ip netns exec "$NS_RTR" "$PY" "$LIB_DIR/notify.py" "$SOCK" "$NOUT" "$READY_CHECK" &
NOTIFY_PID=$!
wait_until 5 test -s "$NOUT.ready" || fail "notify listener did not start"

ip netns exec "$NS_RTR" env NOTIFY_SOCKET="$SOCK" WATCHDOG_USEC=2000000 "${START[@]}" \
	>"$TMPD/unit.log" 2>&1 &
DPID=$!
notified() { grep -q "$1" "$NOUT" 2>/dev/null; }
if wait_until 10 notified '^READY=1'; then
	ok "notify: READY=1"
	wait_until 5 notified '^#ready-check'
	check "notify: at READY=1 queues are bound, rules installed, workers running" \
		notified '^#ready-check 0$'
	check "notify: READY=1 carries STATUS" notified '^READY=1|STATUS=running: 2 SIDs, 1 routes, queues 0-1'
	check "notify: MAINPID is srv6d's pid" notified "^MAINPID=$DPID\$"
else
	fail "notify: READY=1" "$(cat "$TMPD/unit.log")"
fi
check "pid file holds srv6d's pid" test "$(cat "$TMPD/run/srv6d/srv6d.pid" 2>/dev/null)" = "$DPID"
check "log: <N> priority prefixes under a service manager" \
	grep -q '^<5>started: ' "$TMPD/unit.log"
# Every 1 s (half of WATCHDOG_USEC, 2 s: margin for a loaded machine),
# each one after every worker's heartbeat moved.
check "notify: WATCHDOG=1 pings with WATCHDOG_USEC set (3 of them)" \
	wait_until 10 eval '[ "$(grep -c "^WATCHDOG=1$" "$NOUT")" -ge 3 ]'

check "watchdog: no worker reported stuck" eval '! grep -q "made no progress" "$TMPD/unit.log"'

in_rtr ip6tables -t raw -S SRV6D >"$TMPD/auto.rules" 2>&1

kill -HUP "$DPID"
check "notify: RELOADING=1 with MONOTONIC_USEC on SIGHUP" \
	wait_until 5 notified '^RELOADING=1|MONOTONIC_USEC=[1-9][0-9]*$'
wait_until 5 eval '[ "$(grep -c "^READY=1" "$NOUT")" -ge 2 ]'
kill -TERM "$DPID"
wait "$DPID"; rc=$?; DPID=
check "SIGTERM: exit 0" test "$rc" -eq 0
check "pid file removed at exit" test ! -e "$TMPD/run/srv6d/srv6d.pid"
kill "$NOTIFY_PID" 2>/dev/null; wait "$NOTIFY_PID" 2>/dev/null; NOTIFY_PID=
# The sequence, pings left out: keys of each datagram's first line.
seq=$(grep -v -e '^WATCHDOG=1$' -e '^#' "$NOUT" | cut -d'|' -f1 | cut -d= -f1 | paste -sd' ')
check "notify: sequence MAINPID READY RELOADING READY STOPPING (got: $seq)" \
	test "$seq" = "MAINPID READY RELOADING READY STOPPING"
check "stderr lines all carry a priority prefix" \
	eval '! grep -qv "^<[0-7]>" "$TMPD/unit.log"'

# ---- --check -v: canonical form and the steer none rules ---------------------------
in_rtr "$SRV6D" --check -v -c "$CONF" >"$TMPD/canon.conf" 2>/dev/null
in_rtr "$SRV6D" --check -v -c "$TMPD/canon.conf" >"$TMPD/canon2.conf" 2>/dev/null; rc=$?
check "--check -v: the canonical form parses (got $rc)" test "$rc" -eq 0
check "--check -v: ... and prints itself unchanged" cmp -s "$TMPD/canon.conf" "$TMPD/canon2.conf"
check "--check -v: ... with every SID and route" \
	test "$(grep -c '^sid \|^route ' "$TMPD/canon.conf")" -eq 3
# Every global keyword, none at its default: each line comes back as written.
cat >"$TMPD/globals.conf" <<'CONF'
queue 3-4
queue-maxlen 1000
fail-open yes
queue-cpu-fanout yes
steer none
egress inject
encap-source 2001:db8:2::1
cpu-affinity 0,1
worker-sched fifo 20
log-level debug
CONF
in_rtr "$SRV6D" --check -v -c "$TMPD/globals.conf" 2>/dev/null | grep -v '^#' >"$TMPD/globals.out"
if cmp -s "$TMPD/globals.conf" "$TMPD/globals.out"; then
	ok "--check -v: every global keyword printed as given"
else
	fail "--check -v: every global keyword printed as given" "$(diff "$TMPD/globals.conf" "$TMPD/globals.out")"
fi
# The printed rules, loaded by hand, are exactly what steer auto installed.
sed -n 's/^#6 //p' "$TMPD/canon.conf" | in_rtr ip6tables-restore --noflush
in_rtr ip6tables -t raw -S SRV6D >"$TMPD/none.rules" 2>&1
if [ -s "$TMPD/auto.rules" ] && cmp -s "$TMPD/auto.rules" "$TMPD/none.rules"; then
	ok "--check -v: the steer none rules are the ones steer auto installs"
else
	fail "--check -v: the steer none rules are the ones steer auto installs" \
		"$(diff "$TMPD/auto.rules" "$TMPD/none.rules")"
fi
in_rtr ip6tables -t raw -D PREROUTING -j SRV6D
in_rtr ip6tables -t raw -F SRV6D
in_rtr ip6tables -t raw -X SRV6D

# ---- log-level --------------------------------------------------------------
sed 's/^log-level info/log-level warning/' "$CONF" >"$TMPD/quiet.conf"
check "log-level warning: srv6d starts" srv6d_start "$TMPD/quiet.conf" "$TMPD/quiet.stats" "$TMPD/quiet.log"
srv6d_stop
check "log-level warning: no notice lines (\"started\", \"stopping\")" \
	eval '! grep -q "notice" "$TMPD/quiet.log"'
check "log-level info: they are there" grep -q '^<5>.*: stopping' "$TMPD/unit.log"

# ---- forking only when up --------------------------------------------------
nqueues() { in_rtr cat /proc/net/netfilter/nfnetlink_queue | wc -l; }
PIDF=$TMPD/d.pid
in_rtr "$SRV6D" -c "$CONF" -p "$PIDF" >"$TMPD/d.out" 2>&1; rc=$?
check "fork: the command exits 0 once srv6d is up" test "$rc" -eq 0
# No waiting: when the command returned, everything had to be there.
check "fork: rules installed when the command returns" \
	eval 'in_rtr ip6tables -t raw -S SRV6D | grep -q "2001:db8:ff::1/128"'
check "fork: queues bound when the command returns" \
	test "$(nqueues)" -eq 2
DPID=$(cat "$PIDF" 2>/dev/null)
check "fork: pid file names a live srv6d" kill -0 "${DPID:-0}"

in_rtr "$SRV6D" -c "$CONF" -p "$PIDF" >"$TMPD/d2.out" 2>&1; rc=$?
check "fork: pid file locked -> exit 3 (got $rc)" test "$rc" -eq 3
check "fork: the lock holder is named" grep -q "locked by a running srv6d (pid $DPID)" "$TMPD/d2.out"
in_rtr "$SRV6D" -c "$CONF" -p "$TMPD/other.pid" >"$TMPD/d3.out" 2>&1; rc=$?
check "fork: a second srv6d on the same resources -> exit 3 (got $rc)" test "$rc" -eq 3
# the instance lock (same chain, marks, tables) refuses it before its queues
check "fork: ... with the reason on stderr" grep -q 'error: another srv6d in this network namespace uses' "$TMPD/d3.out"
check "fork: the running srv6d keeps its rules" \
	eval 'in_rtr ip6tables -t raw -S SRV6D | grep -q "2001:db8:ff::1/128"'
check "fork: the running srv6d is alive" kill -0 "$DPID"
kill -TERM "$DPID"; wait_until 10 eval '! kill -0 '"$DPID"' 2>/dev/null'; DPID=
check "fork: pid file removed at exit" test ! -e "$PIDF"

printf 'queue 0\nsid 2001:db8:ff::1 action End.X5\n' >"$TMPD/bad.conf"
in_rtr "$SRV6D" -c "$TMPD/bad.conf" -p "$TMPD/bad.pid" >"$TMPD/bad.out" 2>&1; rc=$?
check "fork: bad configuration -> exit 1 (got $rc)" test "$rc" -eq 1
check "fork: ... FILE:LINE on stderr" grep -q "bad.conf:2: " "$TMPD/bad.out"

# No iptables: hide /usr/sbin (where the tools live; /sbin links to it) in a
# private mount namespace.
mkdir -p "$TMPD/empty"
noipt() { in_rtr unshare -m sh -c 'mount --bind "$0" /usr/sbin && exec "$@"' "$TMPD/empty" "$@"; }
if noipt true 2>/dev/null && ! noipt test -e /usr/sbin/ip6tables-restore; then
	noipt "$SRV6D" -c "$CONF" -p "$TMPD/noipt.pid" >"$TMPD/noipt.out" 2>&1; rc=$?
	check "fork: no ip6tables-restore -> exit 3 (got $rc)" test "$rc" -eq 3
	check "fork: ... and nothing left bound" \
		test "$(nqueues)" -eq 0
	noipt "$SRV6D" --check -c "$CONF" >"$TMPD/noipt.chk" 2>&1; rc=$?
	check "--check: no steering tools -> exit 1 (got $rc)" test "$rc" -eq 1
	check "--check: ... naming the tool" grep -q 'steer auto needs ip6tables-save: not found' "$TMPD/noipt.chk"
	printf 'steer none\nqueue 0\nsid 2001:db8:ff::1 action End\n' >"$TMPD/none.conf"
	noipt "$SRV6D" --check -c "$TMPD/none.conf" >/dev/null 2>&1; rc=$?
	check "--check: steer none needs no tools (got $rc)" test "$rc" -eq 0
else
	skip "no iptables" "cannot bind-mount over /usr/sbin in a mount namespace"
fi

# ---- --check ------------------------------------------------------------------
sed "s/oif $RTR_IF_DST/oif nosuch0/" "$CONF" >"$TMPD/noif.conf"
in_rtr "$SRV6D" -n -c "$TMPD/noif.conf" >"$TMPD/noif.out" 2>&1; rc=$?
check "--check: missing interface is a warning, exit 0 (got $rc)" test "$rc" -eq 0
check "--check: ... naming line and interface" \
	grep -q 'noif.conf:4: warning: interface "nosuch0" does not exist (yet)' "$TMPD/noif.out"
in_rtr sysctl -qw net.ipv6.conf.all.forwarding=0
in_rtr "$SRV6D" -n -c "$CONF" >"$TMPD/fwd.out" 2>&1
check "--check: forwarding off is reported" grep -q 'forwarding is 0' "$TMPD/fwd.out"
in_rtr sysctl -qw net.ipv6.conf.all.forwarding=1
in_rtr "$SRV6D" -n -c "$CONF" >"$TMPD/fwd.out" 2>&1
check "--check: ... and not when on" eval '! grep -q "forwarding is 0" "$TMPD/fwd.out"'
printf 'encap-source 2001:db8:77::1\nroute 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1\n' \
	>"$TMPD/src.conf"
in_rtr "$SRV6D" -n -c "$TMPD/src.conf" >"$TMPD/src.out" 2>&1
check "--check: encap-source not local is reported" \
	grep -q 'encap-source 2001:db8:77::1 is not an address of this host' "$TMPD/src.out"
printf 'route 2001:db8:99::/64 encap seg6 mode encap segs 3fff::1\n' >"$TMPD/nosrc.conf"
in_rtr ip -6 route add unreachable 3fff::/16
in_rtr "$SRV6D" -n -c "$TMPD/nosrc.conf" >"$TMPD/nosrc.out" 2>&1
check "--check: no source toward the first segment is reported" \
	grep -q 'nosrc.conf:1: warning: no source address toward 3fff::1' "$TMPD/nosrc.out"

summary
