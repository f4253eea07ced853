#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/check_behav.sh - checks bench/nfq_behav against the kernel: for
# End.X, End.DX6, End.B6.Encaps and H.Encaps, one packet of the shape
# bench/run_datapath.sh PLACE=onecore sends, through the kernel's
# seg6local/seg6 route and through nfq_behav (verdict with the rewritten
# payload, and the mark for End.X/End.DX6 with the bench's ip rule), captured
# on dst: the two must be byte-for-byte identical (the topology of
# run_datapath.sh).  Prints "BEHAVIOR identical LEN LEN" or the two packets,
# then "# check_behav: N identical, N differ, N skipped".
#
# Usage: BUILD=build bench/check_behav.sh     (root; tcpdump, scapy)
# Exit status: 0 every behavior compared and identical; 1 a difference, a
# missing capture or a setup command that failed; 4 (the kselftest skip, as
# the other bench scripts) nothing failed but a behavior could not be
# compared: no root, no tcpdump, or a kernel without seg6local / seg6
# (CONFIG_IPV6_SEG6_LWTUNNEL: there is no kernel to compare with; the SKIP
# line says which).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
B=$BUILD/bench
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 4; }
command -v tcpdump >/dev/null || { echo "SKIP: tcpdump missing"; exit 4; }
for b in srv6_blast nfq_behav; do
	[ -x "$B/$b" ] || { echo "missing $B/$b (make BUILD=... all)"; exit 1; }
done
. tests/kfeat.sh   # kfeat FEATURE, kfeat_why FEATURE
n_same=0 n_diff=0 n_skip=0
T=$(mktemp -d /tmp/check_behav.XXXXXX)
BG=
S=pbchk$$; SRC=$S-s RTR=$S-r DST=$S-d
trap 'for n in $SRC $RTR $DST; do ip netns del $n 2>/dev/null; done; [ -n "$BG" ] && kill $BG 2>/dev/null; rm -rf "$T"' EXIT
for n in $SRC $RTR $DST; do ip netns add $n; ip -n $n link set lo up; done
ip link add veth0 netns $SRC address 02:00:00:00:00:01 type veth peer name veth1 netns $RTR address 02:00:00:00:01:01
ip link add veth2 netns $RTR address 02:00:00:00:01:02 type veth peer name veth3 netns $DST address 02:00:00:00:02:01
ip -n $SRC addr add fc00:1::1/64 dev veth0 nodad; ip -n $RTR addr add fc00:1::2/64 dev veth1 nodad
ip -n $RTR addr add fc00:2::1/64 dev veth2 nodad; ip -n $DST addr add fc00:2::2/64 dev veth3 nodad
for x in "$SRC veth0" "$RTR veth1" "$RTR veth2" "$DST veth3"; do set -- $x; ip -n $1 link set $2 up; done
ip netns exec $RTR sysctl -qw net.ipv6.conf.all.forwarding=1
ip -n $RTR neigh add fc00:2::2 lladdr 02:00:00:00:02:01 dev veth2 nud permanent
ip -n $RTR -6 route add fc00:3::/64 via fc00:2::2
ip -n $RTR -6 route add default via fc00:2::2 dev veth2 table 100
ip -n $RTR -6 rule add pref 100 fwmark 0x1 lookup 100
ip netns exec $DST ip6tables -t raw -A PREROUTING -j DROP
sleep 1
# cap NAME GENARGS: the first packet on dst, sent once tcpdump listens:
# bursts of 32 every 0.1 s for 0.3 s (a 10 us run sent nothing on a slow,
# emulated CPU: its time was up before the first burst)
cap() {
	ip netns exec $DST timeout 10 tcpdump -c 1 -i veth3 -w $T/$1.pcap ip6 and not dst net ff00::/8 \
		2>$T/$1.err & local t=$!
	for _ in $(seq 100); do grep -q "listening on" $T/$1.err && break; sleep 0.1; done
	ip netns exec $SRC taskset -c 0 $B/srv6_blast -i veth0 -M 02:00:00:00:01:01 -s fc00:1::1 $2 -r 320 -t 0.3 -l 64 >/dev/null
	wait $t
}
for b in x dx6 b6 henc; do
	case $b in
	x) g="-S fc00:ff::1,fc00:5::2"; k="fc00:ff::1/128 encap seg6local action End.X nh6 fc00:2::2 dev veth2"; q=fc00:ff::1/128; a="-a x -k 1" ;;
	dx6) g="-S fc00:ff::1 -D fc00:5::2"; k="fc00:ff::1/128 encap seg6local action End.DX6 nh6 fc00:2::2 dev veth2"; q=fc00:ff::1/128; a="-a dx6 -k 1" ;;
	b6) g="-S fc00:ff::1,fc00:5::2"; k="fc00:ff::1/128 encap seg6local action End.B6.Encaps srh segs fc00:3::1,fc00:3::2 dev veth2"; q=fc00:ff::1/128; a="-a b6 -s fc00:2::1 -S fc00:3::1,fc00:3::2" ;;
	henc) g="-S fc00:4::2 -P"; k="fc00:4::/64 encap seg6 mode encap segs fc00:3::1,fc00:3::2 dev veth2"; q=fc00:4::/64; a="-a encap -s fc00:2::1 -S fc00:3::1,fc00:3::2" ;;
	esac
	f=seg6local; [ $b = henc ] && f=seg6encap
	if ! kfeat $f; then
		echo "SKIP: $b: $(kfeat_why $f): no kernel behavior to compare nfq_behav with"
		n_skip=$((n_skip + 1)); continue
	fi
	# shellcheck disable=SC2086
	if ! ip -n $RTR -6 route add $k; then
		echo "$b FAIL: ip -6 route add $k"; n_diff=$((n_diff + 1)); continue
	fi
	cap k-$b "$g"
	ip -n $RTR -6 route del ${k%% *}
	ip netns exec $RTR ip6tables -t raw -A PREROUTING -d $q -j NFQUEUE --queue-num 0
	ip netns exec $RTR taskset -c 0 $B/nfq_behav $a >/dev/null & BG=$!
	# bound to queue 0 (an unbound queue drops the packet)
	for _ in $(seq 100); do
		ip netns exec $RTR awk '$1 == 0 {f = 1} END {exit !f}' /proc/net/netfilter/nfnetlink_queue 2>/dev/null &&
			break
		sleep 0.1
	done
	cap r-$b "$g"
	kill $BG; wait $BG 2>/dev/null; BG=
	ip netns exec $RTR ip6tables -t raw -D PREROUTING -d $q -j NFQUEUE --queue-num 0
	/usr/bin/python3 - $b $T <<'PY'
import sys
from scapy.all import rdpcap
b=sys.argv[1]
try:
    k=bytes(rdpcap('%s/k-%s.pcap'%(sys.argv[2],b))[0]); r=bytes(rdpcap('%s/r-%s.pcap'%(sys.argv[2],b))[0])
except Exception as e:
    print(b, "capture missing", e); sys.exit(1)
print(b, "identical" if k==r else "DIFFER", len(k), len(r))
if k!=r:
    print(" k", k.hex()); print(" r", r.hex())
sys.exit(k != r)
PY
	if [ $? -eq 0 ]; then n_same=$((n_same + 1)); else n_diff=$((n_diff + 1)); fi
done
echo "# check_behav: $n_same identical, $n_diff differ, $n_skip skipped"
[ $n_diff -eq 0 ] || exit 1
[ $n_skip -eq 0 ] || exit 4
exit 0
