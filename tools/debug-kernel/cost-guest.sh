#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tools/debug-kernel/cost-guest.sh - the fixed workload tools/debug-kernel/
# cost.sh times on each kernel, run in the VM as root from the top of the
# tree (BUILD: srv6d's build, for bench/srv6_blast).  COST_ROUNDS rounds (3)
# of:
#   ns:   COST_TOPOS (10) times the suite's three-namespace topology
#         (tests/net/lib.sh topo_create: two veth pairs, addresses, static
#         neighbours, routes) plus a seg6local End SID made, then deleted;
#         timed until the kernel has torn every namespace down completely
#         (tests/reinject/lib.sh rj_netns_drained)
#   end:  one topology, the kernel's seg6local End on rtr
#         (2001:db8:5::1); bench/srv6_blast sends IPv6+SRH+UDP as fast as
#         it can for COST_SECS (3) seconds on CPU 0, closed loop
#   fwd:  the same, plain IPv6 forwarding (no SRH, no SID)
# Prints one "cost: ROUND PART key value..." line per part: seconds for ns;
# for end and fwd the generator's packets per second and its own CPU time
# per packet (user + system, which on veth includes rtr's receive softirq
# run in its context) and the packets counted at dst.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../tests/reinject/lib.sh"
ROUNDS=${COST_ROUNDS:-3}
TOPOS=${COST_TOPOS:-10}
SECS=${COST_SECS:-3}
trap cleanup EXIT
DMESG_BASE=$(dmesg | wc -l)   # the boot's own lines ("RCU lockdep checking is enabled") are no report
BLAST=$BUILD/bench/srv6_blast
[ -x "$BLAST" ] || { echo "cost-guest: $BLAST missing (make)" >&2; exit 1; }
echo "cost: 0 boot uptime $(cut -d' ' -f1 /proc/uptime) kernel $(uname -r) cmdline $(tr ' ' '\n' </proc/cmdline | grep -E '^(no_debug_objects|lockdep|kasan|debug_)' | paste -sd,)"
base_src=$NS_SRC base_rtr=$NS_RTR base_dst=$NS_DST
name() { NS_SRC=$base_src-$1 NS_RTR=$base_rtr-$1 NS_DST=$base_dst-$1; }
sid_end() { in_rtr ip -6 route add 2001:db8:5::1/128 encap seg6local action End dev "$RTR_IF_SRC"; }
# blast PART ARGS...: one trial, its "cost:" line
blast() {
	local part=$1 out d0 d n pps cpu; shift
	d0=$(in_dst ip6tables -t raw -L PREROUTING -v -x -n | awk '$3 == "DROP" {print $1}')
	out=$(in_src "$BLAST" -i eth0 -M "$RTR_MAC_SRC" -s $SRC_ADDR -r 0 -t "$SECS" -c 0 "$@")
	d=$(( $(in_dst ip6tables -t raw -L PREROUTING -v -x -n | awk '$3 == "DROP" {print $1}') - d0 ))
	# "sent N seconds T pps P cpu C offered O refused F"
	set -- $out
	n=$2 pps=$6 cpu=$8
	echo "cost: $r $part pps $pps cpu_ns_per_pkt $(awk -v c="$cpu" -v n="$n" 'BEGIN {printf "%.0f", n ? c * 1e9 / n : 0}') sent $n at_dst $d"
}
for r in $(seq 1 "$ROUNDS"); do
	t0=$(date +%s.%N)
	for i in $(seq 1 "$TOPOS"); do
		name "$r-$i"
		topo_create >/dev/null || { echo "cost-guest: topology $i failed" >&2; exit 1; }
		sid_end
		for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do ip netns del "$ns"; done
	done
	rj_netns_drained || { echo "cost-guest: namespaces not torn down" >&2; exit 1; }
	echo "cost: $r ns seconds $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') topologies $TOPOS"
	name "$r-dp"
	topo_create >/dev/null && sid_end || { echo "cost-guest: data path topology failed" >&2; exit 1; }
	in_dst ip6tables -t raw -A PREROUTING -p udp -j DROP
	blast end -S 2001:db8:5::1,$DST_ADDR
	blast fwd -P -S $DST_ADDR
	for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do ip netns del "$ns"; done
done
rj_netns_drained
dmesg_clean && echo "cost: 0 dmesg clean" || echo "cost: 0 dmesg REPORT"
