#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/run_inject_paths.sh - the injection egress candidates (docs/ARCHITECTURE.md):
# AF_PACKET into a veth pair, a raw IPPROTO_RAW socket, TUN; CPU per packet of
# the sending thread (which runs the kernel's forwarding work synchronously)
# and packets counted at the sink.  REPEAT rounds, interleaved; medians.
#
#   +--------------------------------------------+        +-------------+
#   | $NS (forwarding=1)                         |        | $NS_SINK    |
#   |  inject_paths --(injp => inj)  packet      |        |             |
#   |               --(raw socket)   raw         |  o1    | o1p         |
#   |               --(/dev/net/tun) tun    ---> + -------+ fc00:9::2   |
#   |  2001:db8:aa::/64 via fc00:9::2 (main and  |        | raw DROP,   |
#   |  table 42, fwmark 0x42)                    |        | counted     |
#   +--------------------------------------------+        +-------------+
#
# Usage: BUILD=build bench/run_inject_paths.sh   (COUNT=500000 REPEAT=5 CPU=1
#        MODES="packet bypass ring raw tun")
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
COUNT=${COUNT:-500000}
REPEAT=${REPEAT:-5}
CPU=${CPU:-1}
MODES=${MODES:-packet bypass ring raw tun}
B="$BUILD/bench/inject_paths"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 4; }
[ -x "$B" ] || { echo "missing $B (make BUILD=$BUILD all)"; exit 1; }
NS=ipb-$$-$RANDOM NS_SINK=ips-$$-$RANDOM
TMPD=$(mktemp -d /tmp/srv6d-injb.XXXXXX)
cleanup() { ip netns del "$NS" 2>/dev/null; ip netns del "$NS_SINK" 2>/dev/null; rm -rf "$TMPD"; }
trap cleanup EXIT

ip netns add "$NS"; ip netns add "$NS_SINK"
R() { ip netns exec "$NS" "$@"; }
R sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
ip -n "$NS" link set lo up
ip -n "$NS" link add inj type veth peer name injp
R sysctl -qw net.ipv6.conf.injp.disable_ipv6=1
ip -n "$NS" link set inj addrgenmode none
ip -n "$NS" link set inj up; ip -n "$NS" link set injp up
ip -n "$NS" link add o1 type veth peer name o1p netns "$NS_SINK"
ip -n "$NS" addr add fc00:9::1/64 dev o1 nodad
ip -n "$NS_SINK" addr add fc00:9::2/64 dev o1p nodad
ip -n "$NS" link set o1 up; ip -n "$NS_SINK" link set o1p up; ip -n "$NS_SINK" link set lo up
ip -n "$NS" neigh replace fc00:9::2 lladdr "$(ip -n "$NS_SINK" -br link show o1p | awk '{print $3}')" dev o1 nud permanent
ip -n "$NS" -6 route add 2001:db8:aa::/64 via fc00:9::2
ip -n "$NS" -6 route add 2001:db8:aa::/64 via fc00:9::2 table 42
ip -n "$NS" -6 rule add fwmark 0x42 lookup 42
ip netns exec "$NS_SINK" ip6tables -t raw -A PREROUTING -d 2001:db8:aa::1 -j DROP
sink() { ip netns exec "$NS_SINK" ip6tables -t raw -L PREROUTING -v -x -n | awk '/DROP/ {print $1}'; }

one() { # MODE -> "cpu_ns delivered hlim_ok"
	local m=$1 before after line
	before=$(sink)
	if [ "$m" = tun ]; then
		coproc TUN { ip netns exec "$NS" taskset -c "$CPU" "$B" tun "$COUNT"; }
		read -r _ <&"${TUN[0]}"
		ip -n "$NS" link set injt up
		R sysctl -qw net.ipv6.conf.injt.forwarding=1 2>/dev/null
		echo go >&"${TUN[1]}"
		read -r line <&"${TUN[0]}"
		wait "$TUN_PID" 2>/dev/null
	else
		line=$(R taskset -c "$CPU" "$B" "$m" "$COUNT")
	fi
	after=$(sink)
	echo "$(echo "$line" | awk '{print $7}') $((after - before))"
}
declare -A CPUS DELIV
for ((r = 1; r <= REPEAT; r++)); do
	for m in $MODES; do
		read -r c d < <(one "$m")
		CPUS[$m]="${CPUS[$m]:-} $c"; DELIV[$m]="${DELIV[$m]:-} $d"
		echo "round $r $m: ${c} ns/pkt, ${d} of $COUNT at the sink" >&2
	done
done
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-7s %12s %10s  %s\n' path "ns/pkt(med)" "/packet" "delivered per round"
p=$(echo "${CPUS[packet]}" | med)
for m in $MODES; do
	c=$(echo "${CPUS[$m]}" | med)
	printf '%-7s %12s %10s  %s\n' "$m" "$c" "$(awk -v a="$c" -v b="$p" 'BEGIN {printf "%.2f", a / b}')" "${DELIV[$m]}"
done
