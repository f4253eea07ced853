#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/run_tcp.sh - bulk TCP through an End SID (issue 14): Gbit/s of one
# iperf3 stream for the kernel's seg6local End and srv6d, medians of REPEAT
# interleaved rounds.  Topology of tests/net/lib.sh (src - rtr - dst veths);
# src inserts the SRH (`encap seg6 mode inline segs SID`), rtr's ingress veth
# has GRO on (bench/veth_gro.py), src's TSO sends GSO super-packets.
#
# Usage: bench/run_tcp.sh [MODES...]
#   MODES: kernel (seg6local End), off (srv6d, egress inject, gso off),
#   on (srv6d, egress inject, gso on), verdict (srv6d, egress verdict);
#   default: kernel off on.
# Environment: DUR (seconds per run, 5), REPEAT (rounds, 5), OUT (also append
#   the table here).  Needs iperf3 (apt-get install iperf3).
set -u
source "$(dirname "$0")/../tests/net/lib.sh"
DUR=${DUR:-5}
REPEAT=${REPEAT:-5}
MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(kernel off on)
command -v iperf3 >/dev/null || { echo "iperf3 not installed"; exit 4; }
require_env
trap cleanup EXIT
topo_create || { echo "cannot create the topology"; exit 1; }
SID=2001:db8:ff::1
in_dst sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.eth0.seg6_enabled=1
in_src ip -6 route add $DST_ADDR/128 encap seg6 mode inline segs $SID via $RTR_ADDR_SRC dev eth0
in_rtr "$PY" "$TOP_DIR/bench/veth_gro.py" "$RTR_IF_SRC" 1

gbps() { # one iperf3 run -> Gbit/s received
	in_dst iperf3 -s -p 5299 -1 >/dev/null 2>&1 &
	local spid=$! i
	for i in $(seq 50); do in_dst ss -H -ltn "( sport = :5299 )" | grep -q . && break; sleep 0.1; done
	in_src iperf3 -c $DST_ADDR -p 5299 -t "$DUR" -J 2>/dev/null |
		"$PY" -c 'import json,sys
try: print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e9))
except Exception: print("0")'
	wait "$spid" 2>/dev/null
}

run_mode() { # MODE -> Gbit/s
	local m=$1 r
	case "$m" in
	kernel)
		in_rtr ip -6 route add $SID/128 encap seg6local action End dev "$RTR_IF_DST"
		r=$(gbps)
		in_rtr ip -6 route del $SID/128
		;;
	off|on|verdict)
		{
			printf 'queue 0\nsteer auto\nsid %s action End\n' $SID
			case "$m" in
			off) printf 'egress inject\n' ;;
			on) printf 'egress inject\ngso on\n' ;;
			verdict) printf 'egress verdict\n' ;;
			esac
		} >"$TMPD/$m.conf"
		srv6d_start "$TMPD/$m.conf" "$TMPD/$m.stats" "$TMPD/$m.log" >/dev/null || { echo 0; return; }
		r=$(gbps)
		srv6d_stats
		[ "$m" = on ] && echo "# on: $(grep -o 'gso-injected=[0-9]* gso-sent=[0-9]*' "$TMPD/on.stats" | head -1)" >&2
		srv6d_stop
		;;
	esac
	echo "${r:-0}"
}

declare -A res
for ((round = 1; round <= REPEAT; round++)); do
	for m in "${MODES[@]}"; do
		v=$(run_mode "$m")
		res[$m]="${res[$m]:-} $v"
		echo "# round $round $m $v Gbit/s" >&2
	done
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{ l[NR] = $1 } END { printf "%s %s %s", l[1], l[int((NR + 1) / 2)], l[NR] }'; }
k=$(echo "${res[kernel]:-}" | med | awk '{print $2}')
{
	echo "| mode | Gbit/s min | median | max | median / kernel |"
	echo "|---|---|---|---|---|"
	for m in "${MODES[@]}"; do
		read -r lo mi hi < <(echo "${res[$m]}" | med)
		ratio=$(awk -v a="$mi" -v b="${k:-0}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
		echo "| $m | $lo | $mi | $hi | $ratio |"
	done
	echo "(iperf3 -t $DUR, $REPEAT interleaved rounds, $(nproc) CPUs, $(uname -r))"
} | tee -a "${OUT:-/dev/null}"
