#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the kernel HMAC vectors of tests/unit/test_hmac.c (root, kernel
# with CONFIG_IPV6_SEG6_HMAC, tcpdump, scapy in /usr/bin/python3): the kernel
# signs one UDP datagram per route (encap sha256, inline sha1, encap.red with
# three SIDs and with one); the printed packets are pasted into the test.
set -e
A=hmacvec-a; B=hmacvec-b
ip netns del $A 2>/dev/null || true; ip netns del $B 2>/dev/null || true
ip netns add $A; ip netns add $B
ip link add va netns $A type veth peer name vb netns $B
ip -n $A link set va up; ip -n $B link set vb up; ip -n $A link set lo up
ip -n $A addr add 2001:db8:1::1/64 dev va nodad
ip -n $B addr add 2001:db8:1::2/64 dev vb nodad
ip -n $A -6 neigh add 2001:db8:1::2 lladdr $(ip -n $B -j link show vb | python3 -c 'import json,sys;print(json.load(sys.stdin)[0]["address"])') dev va
printf 'hmac-secret-7\n' | ip netns exec $A ip sr hmac set 7 sha256
printf 'sha1-secret-8\n' | ip netns exec $A ip sr hmac set 8 sha1
ip netns exec $A ip sr hmac show
ip -n $A -6 route add 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ff::1,2001:db8:aa::1 hmac 7 via 2001:db8:1::2 dev va
ip -n $A -6 route add 2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:ff::1,2001:db8:aa::1 hmac 8 via 2001:db8:1::2 dev va
ip -n $A -6 route add 2001:db8:97::/64 encap seg6 mode encap.red segs 2001:db8:ff::1,2001:db8:aa::1,2001:db8:aa::2 hmac 7 via 2001:db8:1::2 dev va
ip -n $A -6 route add 2001:db8:96::/64 encap seg6 mode encap.red segs 2001:db8:ff::1 hmac 7 via 2001:db8:1::2 dev va
ip -n $A -6 route add 2001:db8:ff::/64 via 2001:db8:1::2 dev va
ip -n $A -6 route show >/dev/null
ip netns exec $B tcpdump -i vb -w /tmp/hmacvec.pcap -U ip6 2>/dev/null & TP=$!
sleep 1
for d in 99 98 97 96; do ip netns exec $A python3 -c "import socket; s=socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.sendto(b'abcdefgh', ('2001:db8:$d::1', 9))" || true; done
sleep 1; kill $TP; wait $TP || true
ip netns del $A; ip netns del $B
/usr/bin/python3 -c "
from scapy.all import rdpcap, raw
for p in rdpcap('/tmp/hmacvec.pcap'):
    b = raw(p)[14:]
    if b[6] in (41, 43): print(b.hex())
"
