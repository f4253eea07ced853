#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/fpm_churn.sh [N] [ROUNDS] - FPM churn: N End SIDs (default 10000)
# streamed to srv6d's FPM listener in one session and removed again, ROUNDS
# times (default 3), while End traffic to a conf SID (2001:db8:ff::1) runs
# through rtr at 500 pps.  Reports per round the seconds until all N were
# running and until all were gone (entries/s), srv6d's RSS before, at the
# peak and after, and for the whole run what the traffic lost.  Not a test
# (no thresholds): `make bench` does not run it; docs/PERFORMANCE.md quotes
# its output.  As root; the topology is tests/net/lib.sh's.
#
#   src --(End traffic to ff::1, 500 pps)--> rtr [srv6d, fpm listen 127.0.0.1 2620] --> dst
#                                             ^ fpm_client.py: many N / unmany N
set -u
N=${1:-10000}
ROUNDS=${2:-3}
source "$(dirname "$0")/../tests/net/lib.sh"
test_begin --srv6ctl

SOCK=$TMPD/ctl.sock
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
sids() { ctl -j status | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["sids"])'; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$SRV6D_PID/status"; }
now() { date +%s.%N; }
printf 'control-socket %s\nfpm listen 127.0.0.1 2620 grace 2\nsid 2001:db8:ff::1 action End\n' \
	"$SOCK" >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" || { echo "srv6d did not start"; exit 1; }
rss0=$(rss)
# traffic for the whole run: ROUNDS x (add + del) at well under a second
# per 1000 entries, plus margin
count=$((500 * (ROUNDS * N / 1000 + 20)))
pkt_to_dst --timeout 5 stream --dst 2001:db8:ff::1 --count "$count" --rate 500 >"$TMPD/stream" &
SP=$!
sleep 2
echo "# N=$N rounds=$ROUNDS; srv6d RSS at start ${rss0} kB"
for r in $(seq "$ROUNDS"); do
	t0=$(now)
	in_rtr "$PY" "$TOP_DIR/tests/net/fpm_client.py" 127.0.0.1 2620 many "$N" 2001:db8:f0::/64 \
		wait "$TMPD/done$r" &
	CP=$!
	peak=0
	until [ "$(sids)" -ge $((N + 1)) ]; do
		v=$(rss); [ "$v" -gt "$peak" ] && peak=$v
		sleep 0.05
	done
	t1=$(now)
	v=$(rss); [ "$v" -gt "$peak" ] && peak=$v
	touch "$TMPD/done$r"; wait "$CP"
	in_rtr "$PY" "$TOP_DIR/tests/net/fpm_client.py" 127.0.0.1 2620 unmany "$N" 2001:db8:f0::/64 sleep 0.2
	until [ "$(sids)" -eq 1 ]; do sleep 0.05; done
	t2=$(now)
	"$PY" -c "a, b, c, n = $t0, $t1, $t2, $N
print('round $r: %d added in %.2f s (%.0f entries/s), removed in %.2f s (%.0f entries/s), RSS peak %s kB, after %s kB' % (n, b - a, n / (b - a), c - b, n / (c - b), '$peak', '$(rss)'))"
done
wait "$SP"
echo "# traffic to the conf SID meanwhile: $(cat "$TMPD/stream")"
ctl status | grep '^fpm'
srv6d_stop
