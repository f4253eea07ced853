#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_napi.sh - `ingress-napi threaded dev IF...` (srv6d.conf(5),
# docs/PERFORMANCE.md "Overload"): srv6d puts its ingress devices' receive
# processing in NAPI threads with RPS off while it runs, puts back what was
# there when it stops, and refuses to start (naming the device) when a device
# cannot do it.
#
#   +-----------+      +----------------------------------------+      +-----------+
#   | src       |      | rtr  eth0: GRO on (a veth's NAPI)      |      | dst       |
#   |      eth0 +------+ eth0      srv6d  ingress-napi ... eth0 eth1 +------+ eth0      |
#   +-----------+      +----------------------------------------+      +-----------+
#
# Checks: the start sets threaded 1 and rps_cpus 0 on eth0 and End traffic
# still flows; the stop restores the values it found (threaded 0, RPS 2);
# a device without NAPI (eth1, GRO off) and a missing device stop the start
# with one line naming them, and leave eth0 as it was.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6ctl
SYS=/sys/class/net
thr() { in_rtr cat "$SYS/$1/threaded"; }
rps() { in_rtr cat "$SYS/$1/queues/rx-0/rps_cpus"; }
if ! in_rtr "$PY" "$TOP_DIR/bench/veth_gro.py" "$RTR_IF_SRC" 1 2>/dev/null ||
	! in_rtr test -w "$SYS/$RTR_IF_SRC/threaded"; then
	skip "every case" "no GRO ioctl or no $SYS/DEV/threaded on this kernel"
	summary
	exit 0
fi
in_rtr sh -c "echo 2 > $SYS/$RTR_IF_SRC/queues/rx-0/rps_cpus"
t0=$(thr "$RTR_IF_SRC") r0=$(rps "$RTR_IF_SRC")

conf() {
	{
		echo "control-socket $TMPD/ctl.sock"
		echo "ingress-napi threaded dev $*"
		conf_extra
		echo "sid 2001:db8:ff::1 action End"
	} >"$TMPD/srv6d.conf"
}
conf "$RTR_IF_SRC"
nt0=$(pgrep -c "^napi/$RTR_IF_SRC-")   # kernel threads: every namespace's
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" || { fail "srv6d starts"; summary; exit 1; }
check "start: threaded NAPI on, RPS off ($RTR_IF_SRC was threaded $t0, rps $r0)" \
	eval '[ "$(thr "$RTR_IF_SRC")" = 1 ] && [ "$(rps "$RTR_IF_SRC")" = 0 ] &&
	      grep -q "ingress-napi: threaded NAPI, RPS off on 1 devices" "$SRV6D_LOG"'
check "... a NAPI thread serves it (napi/$RTR_IF_SRC-* threads: $nt0 before)" \
	eval '[ "$(pgrep -c "^napi/$RTR_IF_SRC-")" -gt "$nt0" ]'
pkt_to_dst send --case end >"$TMPD/end.cap"
check "... End traffic flows" grep -q "^RX end" "$TMPD/end.cap"
check "stop: srv6d exits 0" srv6d_stop
check "... and puts back what it found (threaded $t0, rps $r0)" \
	eval '[ "$(thr "$RTR_IF_SRC")" = "$t0" ] && [ "$(rps "$RTR_IF_SRC")" = "$r0" ]'

# eth1 has no NAPI context (a veth with GRO off): the start fails, eth0 untouched
in_rtr "$PY" "$TOP_DIR/bench/veth_gro.py" "$RTR_IF_DST" 0 2>/dev/null
conf "$RTR_IF_SRC" "$RTR_IF_DST"
out=$(in_rtr "$SRV6D" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats2" 2>&1); rc=$?
check "a device without NAPI: the start fails, naming it and the remedy (exit $rc)" \
	eval '[ "$rc" -ne 0 ] && echo "$out" | grep -q "ingress-napi: $RTR_IF_DST: threaded NAPI: .*(the device has no NAPI context; a veth has one with GRO on"'
check "... and the device before it is put back" \
	eval '[ "$(thr "$RTR_IF_SRC")" = "$t0" ] && [ "$(rps "$RTR_IF_SRC")" = "$r0" ]'
conf nosuchdev0
out=$(in_rtr "$SRV6D" -f -c "$TMPD/srv6d.conf" -s "$TMPD/stats3" 2>&1); rc=$?
check "a missing device: the start fails, naming it" \
	eval '[ "$rc" -ne 0 ] && echo "$out" | grep -q "ingress-napi: nosuchdev0: no such device"'
printf 'ingress-napi threaded\n' >"$TMPD/bad.conf"
check "conf: without dev, one line saying what is missing" \
	eval '! in_rtr "$SRV6D" --check -c "$TMPD/bad.conf" >"$TMPD/e" 2>&1 &&
	      grep -q "bad.conf:1: \"ingress-napi threaded\" needs dev IF" "$TMPD/e"'
summary
