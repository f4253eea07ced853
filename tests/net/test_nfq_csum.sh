#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_nfq_csum.sh - packets whose L4 checksum is not final yet
# (CHECKSUM_PARTIAL, NFQA_SKB_CSUMNOTREADY) survive srv6d's rewrite.
#
#   +------------------------+      +-----------------------------+      +-------------------+
#   | src                    |      | rtr  srv6d: sid ff::1 End   |      | dst               |
#   | UDP socket -> dst:9999 | eth0 | eth0                   eth1 | eth0 | UDP socket :9999  |
#   | route dst/128 encap    +------+ raw PREROUTING NFQUEUE      +------+ seg6_enabled=1    |
#   |  seg6 inline segs ff::1|      |                             |      | counts datagrams  |
#   +------------------------+      +-----------------------------+      +-------------------+
#
# src's kernel sends the UDP datagram with checksum offload (veth: the
# checksum is left partial) and inserts the SRH (seg6 inline keeps it
# partial).  At rtr the packet is CHECKSUM_PARTIAL.  The kernel's
# nfqnl_mangle() marks every packet whose payload a verdict replaces
# CHECKSUM_NONE, so with NFQA_CFG_F_GSO on the checksum would never be
# completed and dst's socket would get nothing.  srv6d keeps F_GSO off
# (include/srv6d/nfq.h): the kernel completes the checksum before queueing.
# Every datagram must reach dst's socket, and srv6d must not have seen a
# CSUMNOTREADY packet.
set -u
source "$(dirname "$0")/lib.sh"

require_env
trap cleanup EXIT
topo_create || { echo "cannot create the topology"; exit 1; }
if ! srv6d_built; then fail "checksum-partial packets through srv6d" "srv6d not built ($SRV6D)"; summary; exit; fi

N=20
SID=2001:db8:ff::1
in_dst sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.eth0.seg6_enabled=1
in_src ip -6 route add $DST_ADDR/128 encap seg6 mode inline segs $SID via $RTR_ADDR_SRC dev eth0
printf 'queue 0\nsteer auto\nsid %s action End\n' $SID >"$TMPD/c.conf"

in_dst "$PY" -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", 9999))
s.settimeout(3)
n = 0
try:
    while True:
        s.recv(2048)
        n += 1
except OSError:
    pass
print(n)' >"$TMPD/rx" &
RXPID=$!
sleep 0.3

if srv6d_start "$TMPD/c.conf" "$TMPD/stats" "$TMPD/log"; then
	in_src "$PY" -c "
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range($N):
    s.sendto(b'srv6d-csum-%04d' % i + b'x' * 200, ('$DST_ADDR', 9999))"
	wait "$RXPID"
	rx=$(cat "$TMPD/rx"); rx=${rx:-0}
	srv6d_stats
	p=$(counter $SID packets)
	cnr=$(awk '$1 == "queue" { for (i = 3; i <= NF; i++) if ($i ~ /^csum-not-ready=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$TMPD/stats")
	check "srv6d processed the $N datagrams (End packets $p)" [ "$p" -eq $N ]
	check "all $N datagrams reached dst's socket with a valid checksum ($rx)" [ "$rx" -eq $N ]
	check "no packet reached srv6d with its checksum unfinished (csum-not-ready=$cnr)" [ "$cnr" -eq 0 ]

	# TCP: src's TSO sends GSO super-packets over veth; the kernel must
	# segment them before queueing (F_GSO off), and the stream must arrive.
	in_dst "$PY" -c '
import socket
l = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("::", 9998)); l.listen(1); l.settimeout(10)
c, _ = l.accept(); c.settimeout(10)
n = 0
try:
    while True:
        d = c.recv(65536)
        if not d:
            break
        n += len(d)
except OSError:
    pass
print(n)' >"$TMPD/tcp" &
	TCPPID=$!
	sleep 0.3
	in_src "$PY" -c "
import socket
s = socket.create_connection(('$DST_ADDR', 9998), timeout=10)
s.sendall(b'y' * (4 << 20))
s.close()"
	wait "$TCPPID"
	tcp=$(cat "$TMPD/tcp"); tcp=${tcp:-0}
	srv6d_stats
	p2=$(counter $SID packets)
	gso=$(awk '$1 == "queue" { for (i = 3; i <= NF; i++) if ($i ~ /^gso=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$TMPD/stats")
	check "TCP through End: 4 MiB arrive intact ($tcp bytes, End packets $((p2 - p)))" \
		[ "$tcp" -eq $((4 << 20)) ]
	check "no GSO super-packet reached srv6d (gso=$gso)" [ "$gso" -eq 0 ]
	srv6d_stop
	check "srv6d exits 0 (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
else
	kill "$RXPID" 2>/dev/null
	fail "checksum-partial packets through srv6d" "srv6d did not start"
fi
summary
