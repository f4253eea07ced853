#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_worker_sched.sh - issue 14: `worker-sched fifo PRIO` runs each worker
# thread (and only the workers) SCHED_FIFO at PRIO on its cpu-affinity CPU;
# `worker-sched other` (the default) leaves every thread SCHED_OTHER; without
# CAP_SYS_NICE and RLIMIT_RTPRIO the start still succeeds, with one warning,
# and the worker stays SCHED_OTHER.  In each case an End packet is processed.
#
#   +---------------+        +---------------------------------+        +---------------+
#   | src           |        | rtr                             |        | dst           |
#   |          eth0 +--------+ eth0  srv6d                eth1 +--------+ eth0          |
#   | 2001:db8:1::1 |        |  queue 0-1, cpu-affinity 0,0    |        | 2001:db8:2::2 |
#   |  End packet   |        |  worker-sched fifo 7 | other    |        |  captures     |
#   |  to ff::9     |        |  sid 2001:db8:ff::9 action End  |        |  DA aa::1     |
#   +---------------+        +---------------------------------+        +---------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --tool chrt --srv6d

conf=$TMPD/srv6d.conf
write_conf() { # write_conf SCHED-LINE
	{
		echo "queue 0-1"
		echo "cpu-affinity 0,0"
		echo "control-socket none"
		[ -n "$1" ] && echo "$1"
		echo "sid 2001:db8:ff::9 action End"
		conf_extra
	} >"$conf"
}
# threads: "TID POLICY PRIO" for every thread of srv6d
threads() {
	local t
	for t in /proc/"$SRV6D_PID"/task/*; do
		t=${t##*/}
		chrt -p "$t" 2>/dev/null | awk -v t="$t" '
			/policy/ { sub(/.*policy: */, ""); p = $0 }
			/priority/ { sub(/.*priority: */, ""); r = $0 }
			END { print t, p, r }'
	done
}
end_ok() {
	local r
	r=$(pkt_to_dst send --case end-sid9 | awk '$1 == "RX" {print substr($4, 49, 32)}')
	[ "$r" = 20010db800aa00000000000000000001 ]
}

# ---- 1. worker-sched fifo 7 ---------------------------------------------
# nfifo N: N threads run SCHED_FIFO 7 (each worker sets its own policy as
# it starts, which may come after srv6d's "started" line)
nfifo() { [ "$(threads | grep -c "SCHED_FIFO 7$")" -eq "$1" ]; }
write_conf "worker-sched fifo 7"
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.fifo.log"; then
	wait_until 5 nfifo 2
	th=$(threads)
	nfifo=$(echo "$th" | grep -c "SCHED_FIFO 7$")
	nother=$(echo "$th" | grep -c "SCHED_OTHER")
	echo "$th" | sed 's/^/# /'
	check "fifo 7: the two workers run SCHED_FIFO 7 ($nfifo threads)" test "$nfifo" -eq 2
	check "fifo 7: the other threads keep SCHED_OTHER ($nother, main included)" \
		test "$nother" -ge 1 -a "$(echo "$th" | awk -v p="$SRV6D_PID" '$1 == p {print $2}')" = SCHED_OTHER
	aff=$(for t in $(echo "$th" | awk '$2 == "SCHED_FIFO" {print $1}'); do taskset -pc "$t" | sed 's/.*: //'; done | sort -u)
	check "fifo 7: the workers stay on their cpu-affinity CPU (${aff//$'\n'/ })" test "$aff" = 0
	check "fifo 7: End processed" end_ok
	check "fifo 7: no scheduling warning" test "$(grep -c "cannot run the worker" "$TMPD/srv6d.fifo.log")" -eq 0
	srv6d_stop
else
	fail "fifo 7: srv6d started"
fi

# ---- 2. default (other) ---------------------------------------------------
write_conf ""
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.other.log"; then
	check "default: End processed" end_ok
	th=$(threads)   # after traffic: every worker has started (and set nothing)
	check "default: no thread runs SCHED_FIFO" test "$(echo "$th" | grep -c SCHED_FIFO)" -eq 0
	srv6d_stop
else
	fail "default: srv6d started"
fi

# ---- 3. fifo without the privilege: a warning, SCHED_OTHER, still working --
wrap=$TMPD/srv6d-noprio
printf '#!/bin/sh\nexec prlimit --rtprio=0 setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice -- %s "$@"\n' \
	"$SRV6D" >"$wrap"
chmod +x "$wrap"
write_conf "worker-sched fifo 7"
SRV6D_REAL=$SRV6D SRV6D=$wrap
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.noprio.log"; then
	# the warnings come from the workers as they start
	wait_until 5 eval '[ "$(grep -c "cannot run the worker SCHED_FIFO 7" "$TMPD/srv6d.noprio.log")" -ge 2 ]'
	th=$(threads)
	check "no privilege: no thread runs SCHED_FIFO" test "$(echo "$th" | grep -c SCHED_FIFO)" -eq 0
	nw=$(grep -c "cannot run the worker SCHED_FIFO 7" "$TMPD/srv6d.noprio.log")
	check "no privilege: one warning per worker ($nw)" test "$nw" -eq 2
	check "no privilege: End processed" end_ok
	srv6d_stop
else
	fail "no privilege: srv6d started"
fi
SRV6D=$SRV6D_REAL

summary
