#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/kmirror_churn.sh [N] [ROUNDS] - the kernel mirror's churn
# (`sids-from kernel`): N End SIDs (default 10000) added to the kernel as
# seg6local routes with one `ip -6 -batch` and deleted with another, ROUNDS
# times (default 3), while End traffic to a kernel SID that stays
# (2001:db8:ff::9, mirrored) runs through rtr at RATE pps (default 200).
# Reports per round the seconds the kernel took (ip -batch) and until srv6d
# had mirrored all N (entries/s), the same for the deletion, srv6d's RSS at
# the peak and after; for the whole run what the traffic lost and whether
# srv6d processed every packet of the stable SID (its counter against the
# packets sent: a SID lost for a moment would have been left to the kernel's
# seg6local, which would deliver it too, so delivery alone would not tell).
# Needs a kernel with seg6local: the kernel-oracle VM
#   tests/vm/run.sh env BUILD=$PWD/build bench/kmirror_churn.sh
# Not a test (no thresholds): docs/PERFORMANCE.md quotes its output.
#
#   src --(End traffic to ff::9, RATE pps)--> rtr [kernel: N seg6local routes,
#                                                  srv6d: sids-from kernel] --> dst
set -u
N=${1:-10000}
ROUNDS=${2:-3}
RATE=${RATE:-200}
source "$(dirname "$0")/../tests/net/lib.sh"
test_begin --srv6ctl
if ! kfeat seg6local; then
	echo "kmirror_churn: $(kfeat_why seg6local) (run it in the VM: tests/vm/run.sh)" >&2
	exit 4
fi

SOCK=$TMPD/ctl.sock
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
sids() { ctl -j status | jget 'd["sids"]' 2>/dev/null || echo -1; }
# give_up T0 WHAT: stop the run when a wait has lasted LIMIT seconds (600)
give_up() {
	[ $((SECONDS - $1)) -lt "${LIMIT:-600}" ] && return 1
	echo "kmirror_churn: $2 after ${LIMIT:-600} s: giving up"; exit 1
}
rss() { awk '/^VmRSS/ {print $2}' "/proc/$SRV6D_PID/status"; }
now() { date +%s.%N; }
# the batches: N routes 2001:db8:f0::1.. (hex), added and deleted
"$PY" -c "
import sys
n, dev = $N, '$RTR_IF_SRC'
with open('$TMPD/add', 'w') as a, open('$TMPD/del', 'w') as d:
    for i in range(1, n + 1):
        p = '2001:db8:f0::%x:%x/128' % (i >> 16, i & 0xffff)
        a.write('route add %s encap seg6local action End dev %s\n' % (p, dev))
        d.write('route del %s\n' % p)
"
in_rtr ip -6 route add 2001:db8:ff::9/128 encap seg6local action End dev "$RTR_IF_SRC"
printf 'control-socket %s\nsids-from kernel table main proto boot\n' "$SOCK" >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" || { echo "srv6d did not start"; exit 1; }
wait_until 20 eval '[ "$(sids)" -eq 1 ]' || { echo "the stable SID was not mirrored"; exit 1; }
rss0=$(rss)
steer() { in_rtr ip6tables -t raw -S | grep -c NFQUEUE; }
st0=$(steer)
c0=$(ctl -j -s sid show 2001:db8:ff::9 | jget 'd[0]["stats"]["packets"]')
# traffic for the whole run, with a guess of its length (emulated, a round
# of 10k took 14 s; said below when the rounds outlasted it)
secs=$((ROUNDS * (N / 400 + 10) + 10))
count=$((RATE * secs))
pkt_to_dst --timeout 5 stream --dst 2001:db8:ff::9 --count "$count" --rate "$RATE" >"$TMPD/stream" &
SP=$!
sleep 2
echo "# N=$N rounds=$ROUNDS rate=$RATE pps; srv6d RSS at start ${rss0} kB"
for r in $(seq "$ROUNDS"); do
	t0=$(now)
	in_rtr ip -6 -batch "$TMPD/add" || { echo "ip -batch add failed"; exit 1; }
	tk=$(now)
	peak=0 tick=$SECONDS start=$SECONDS
	until [ "$(sids)" -ge $((N + 1)) ]; do
		give_up "$start" "not all $N mirrored"
		v=$(rss); [ "$v" -gt "$peak" ] && peak=$v
		if [ $((SECONDS - tick)) -ge 10 ]; then
			tick=$SECONDS
			echo "#   $(printf '%.1f' "$("$PY" -c "print($(now) - $t0)")") s: $(sids) SIDs; $(ctl status | grep -E '^(sids|routes)-from' | cut -d: -f2-)"
		fi
		sleep 0.05
	done
	t1=$(now)
	v=$(rss); [ "$v" -gt "$peak" ] && peak=$v
	in_rtr ip -6 -batch "$TMPD/del" || { echo "ip -batch del failed"; exit 1; }
	tk2=$(now)
	start=$SECONDS
	until [ "$(sids)" -eq 1 ]; do give_up "$start" "not all $N gone"; sleep 0.05; done
	t2=$(now)
	"$PY" -c "a, k, b, k2, c, n = $t0, $tk, $t1, $tk2, $t2, $N
print('round $r: %d added: kernel %.2f s, all mirrored %.2f s (%.0f entries/s); deleted: kernel %.2f s, all gone %.2f s (%.0f entries/s); RSS peak %s kB, after %s kB' % (n, k - a, b - a, n / (b - a), k2 - b, c - b, n / (c - b), '$peak', '$(rss)'))"
done
kill -0 "$SP" 2>/dev/null || echo "# (the traffic ended before the last round did: it covers the first part only)"
wait "$SP"
c1=$(ctl -j -s sid show 2001:db8:ff::9 | jget 'd[0]["stats"]["packets"]')
echo "# traffic to the stable kernel SID meanwhile: $(cat "$TMPD/stream"); srv6d processed $((c1 - c0)) of them"
echo "# left: $(sids) SIDs (1 at start), $(steer) steering rules ($st0 at start)"
ctl status | grep '^sids-from'
srv6d_stop
