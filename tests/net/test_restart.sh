#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_restart.sh - what a restart (or an upgrade: stop, new binary, start)
# does to SRv6 traffic, measured under traffic.  srv6d is stopped and started
# as systemd would (SIGTERM, wait for exit, ExecStartPre=srv6d --check,
# srv6d, which returns once it is up) while src pings a SID at 500 packets/s;
# srv6d answers Echo Requests to its SIDs, so every reply is a packet srv6d
# processed (tests/net/echo_stream.py sends and timestamps them).
#
#   +-------------+        +------------------------------+        +-------------+
#   | src         |        | rtr   srv6d  (steer auto)    |        | dst         |
#   |        eth0 +--------+ eth0                    eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | 2001:db8:1::2   2001:db8:2::1|        | 2001:db8:2::2/64
#   +-------------+        +------------------------------+        +-------------+
#   Echo Requests to SID    sid 2001:db8:ff::1 action End
#   every 2 ms
#
# Checks: replies before and after the restart; srv6d's counters after the
# restart count the new packets; no Echo Reply comes from anything but srv6d
# (while it is down the SID's packets are plain IPv6 to the kernel, which
# routes them toward dst: Time Exceeded, never a reply).  Reports the gap
# (the longest time without a reply) and its parts; the figure is printed,
# not asserted (no timing thresholds).
set -u
source "$(dirname "$0")/lib.sh"

test_begin --srv6d --trap 'pid=$(cat "$TMPD/srv6d.pid" 2>/dev/null) && kill -TERM "$pid" 2>/dev/null'

SID=2001:db8:ff::1
CONF=$TMPD/srv6d.conf
printf 'queue 0\nsid %s action End\n' "$SID" >"$CONF"
PIDF=$TMPD/srv6d.pid STATS=$TMPD/stats
now_us() { echo $(( $(date +%s%N) / 1000 )); }
# running PID: alive and not a zombie (the forked srv6d is reaped by init,
# whenever init gets to it).
running() { kill -0 "$1" 2>/dev/null && ! awk '{ exit $3 != "Z" }' "/proc/$1/stat" 2>/dev/null; }
start() { in_rtr "$SRV6D" -c "$CONF" -p "$PIDF" -s "$STATS" >>"$TMPD/srv6d.out" 2>&1; }

check "srv6d starts (forks when up)" start
echo_stream() { in_src "$PY" "$LIB_DIR/echo_stream.py" "$SID" "$@"; }
check "srv6d answers an Echo Request to its SID" eval 'echo_stream 1 0.1 | grep -q "^R 0 "'

# ~6 s of pings; restart after 1 s (a stop and start take up to ~2 s
# under ASan: replies after it must still be asked for).
NPING=3000
echo_stream $NPING 0.002 >"$TMPD/ping.out" 2>&1 &
PING=$!
sleep 1
t0=$(now_us)
pid=$(cat "$PIDF")
kill -TERM "$pid"
wait_until 10 eval '! running '"$pid"''
t1=$(now_us)
in_rtr "$SRV6D" --check -c "$CONF" >/dev/null 2>&1
t2=$(now_us)
check "srv6d starts again" start
t3=$(now_us)
wait "$PING"

# Reply arrival times (µs).
awk '$1 == "R" { print $4 }' "$TMPD/ping.out" >"$TMPD/replies"
n=$(wc -l <"$TMPD/replies")
before=$(awk -v t="$t0" '$1 < t' "$TMPD/replies" | wc -l)
after=$(awk -v t="$t3" '$1 > t' "$TMPD/replies" | wc -l)
during=$(awk -v a="$t1" -v b="$t2" '$1 > a && $1 < b' "$TMPD/replies" | wc -l)
exceeded=$(grep -c '^X 3 ' "$TMPD/ping.out")
gap=$(awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { print int(g / 1000) }' "$TMPD/replies")
check "replies before the restart ($before)" test "$before" -gt 0
check "replies after the restart ($after)" test "$after" -gt 0
check "no reply while srv6d was down (between exit and --check's end: $during)" test "$during" -eq 0
rm -f "$STATS"   # the old srv6d wrote one at exit
in_rtr kill -USR1 "$(cat "$PIDF")"
wait_until 5 test -s "$STATS"
pk=$(awk -v s="$SID" '$1 == s || $1 == s "/128" { print $3 }' "$STATS")
check "the new srv6d counted the packets it answered (${pk:-0} >= $after)" test "${pk:-0}" -ge "$after"
echo "# restart gap: ${gap} ms without a reply (${n} of $NPING answered, $((NPING - n)) lost;" \
	"$exceeded Time Exceeded from the kernel's routing while srv6d was down)"
echo "#   stop (SIGTERM to exit) $(( (t1 - t0) / 1000 )) ms, --check $(( (t2 - t1) / 1000 )) ms," \
	"start (exec to up) $(( (t3 - t2) / 1000 )) ms"
summary
