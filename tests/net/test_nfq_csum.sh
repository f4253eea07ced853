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
#   |  (no seg6 encap: the   |      |                             |      |                   |
#   |  sockets' IPV6_RTHDR)  |      |                             |      |                   |
#   +------------------------+      +-----------------------------+      +-------------------+
#
# src's kernel sends the UDP datagram with checksum offload (veth: the
# checksum is left partial) and inserts the SRH (seg6 inline keeps it
# partial; on a kernel without seg6 encap the sockets carry the same SRH as
# their IPV6_RTHDR option, which keeps it partial too).  At rtr the packet
# is CHECKSUM_PARTIAL.  The kernel's
# nfqnl_mangle() marks every packet whose payload a verdict replaces
# CHECKSUM_NONE, so with NFQA_CFG_F_GSO on the checksum would never be
# completed and dst's socket would get nothing.  srv6d keeps F_GSO off
# (include/srv6d/nfq.h): the kernel completes the checksum before queueing.
# Every datagram must reach dst's socket, and srv6d must not have seen a
# CSUMNOTREADY packet.
#
# Positive control first: without srv6d, the kernel's own End (seg6local;
# on a kernel without it, the SID as an address of rtr: the SRH processing
# of net/ipv6/exthdrs.c, always built, does the same End) forwards the same
# traffic while tests/net/tools/nfq_mark, bound to the
# queue WITH F_GSO and accepting everything unchanged, counts what arrives
# CSUMNOTREADY / GSO.  Both must be > 0: the sender really produced
# checksum-partial and TSO packets, so srv6d's zeros are not zeros by
# construction.
set -u
source "$(dirname "$0")/lib.sh"

test_begin
if ! srv6d_built; then fail "checksum-partial packets through srv6d" "srv6d not built ($SRV6D)"; summary; exit; fi

N=20
SID=2001:db8:ff::1
in_dst sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.eth0.seg6_enabled=1
# RTHDR: the segment src's sockets put in their own SRH (IPV6_RTHDR, Type 4:
# the kernel fills Segment List[0] with the destination), when src's kernel
# cannot insert it (no seg6 encap); empty when the route does.
RTHDR=
if kfeat seg6encap; then
	cmd=(ip -6 route add "$DST_ADDR/128" encap seg6 mode inline segs "$SID" via "$RTR_ADDR_SRC" dev eth0)
	in_src "${cmd[@]}" || fail "src's SRH insertion" "${cmd[*]} failed"
else
	echo "# $(kfeat_why seg6encap): src's sockets carry the SRH (IPV6_RTHDR)"
	RTHDR=$SID
fi
RTHDR_PY='
import socket, struct
def rthdr(s, seg):
    if seg:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RTHDR, struct.pack("BBBBBBH", 0, 4, 4, 1, 1, 0, 0)
                     + bytes(16) + socket.inet_pton(socket.AF_INET6, seg))
'
{ printf 'queue 0\nsteer auto\nsid %s action End\n' $SID; conf_extra; } >"$TMPD/c.conf"

# udp_rx SECONDS: dst's UDP socket :9999 in the background, prints how many
# datagrams arrived (until SECONDS without one); PID in RXPID.
udp_rx() {
	in_dst "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", 9999))
s.settimeout(float(sys.argv[1]))
n = 0
try:
    while True:
        s.recv(2048)
        n += 1
except OSError:
    pass
print(n)' "$1" >"$TMPD/rx" &
	RXPID=$!
}
udp_tx() {
	in_src "$PY" -c "$RTHDR_PY
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
rthdr(s, '$RTHDR')
for i in range($N):
    s.sendto(b'srv6d-csum-%04d' % i + b'x' * 200, ('$DST_ADDR', 9999))"
}
# tcp_rx PORT: dst's TCP receiver in the background, prints the bytes received
tcp_rx() {
	in_dst "$PY" -c '
import socket, sys
l = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("::", int(sys.argv[1]))); l.listen(1); l.settimeout(10)
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
print(n)' "$1" >"$TMPD/tcp" &
	TCPPID=$!
}
tcp_tx() { # PORT BYTES
	in_src "$PY" -c "$RTHDR_PY
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
rthdr(s, '$RTHDR')
s.settimeout(10)
s.connect(('$DST_ADDR', $1))
s.sendall(b'y' * $2)
s.close()"
}
listening() { in_dst ss -H -6 -ltn "( sport = :$1 )" 2>/dev/null | grep -q .; }

# ---- positive control: kernel End, an F_GSO queue consumer that only looks ----
if kfeat seg6local; then
	KEND="seg6local End"
	kend=(ip -6 route add "$SID/128" encap seg6local action End dev "$RTR_IF_DST")
	kend_del=(ip -6 route del "$SID/128")
else
	KEND="no seg6local: exthdrs.c, the SID an address of rtr"
	kend=(ip addr add "$SID/128" dev lo)
	kend_del=(ip addr del "$SID/128" dev lo)
fi
NFQ="$BUILD/tests/net/nfq_mark"
if ! [ -x "$NFQ" ]; then
	fail "control: $NFQ not built"
elif ! in_rtr "${kend[@]}"; then
	fail "control: the kernel's End" "${kend[*]} failed"
elif ! in_rtr ip6tables -t raw -A PREROUTING -d $SID -j NFQUEUE --queue-num 0; then
	fail "control: the kernel's End" "ip6tables -t raw -A PREROUTING -d $SID -j NFQUEUE failed"
else
	: >"$TMPD/nfq"   # now: no older "ready" to be waited on
	in_rtr "$NFQ" 0 0 4 gso >>"$TMPD/nfq" 2>&1 &
	nfqpid=$!
	wait_until 5 grep -q ready "$TMPD/nfq"
	udp_rx 2
	tcp_rx 9997
	wait_until 5 listening 9997
	udp_tx
	tcp_tx 9997 $((1 << 20))
	wait "$RXPID" "$TCPPID" "$nfqpid"
	read -r _ cnr _ gso < <(grep '^csum-not-ready' "$TMPD/nfq")
	check "control: with F_GSO the queue sees checksum-partial packets (csum-not-ready=${cnr:-?})" \
		test "${cnr:-0}" -gt 0
	check "control: with F_GSO the queue sees TSO super-packets (gso=${gso:-?})" test "${gso:-0}" -gt 0
	check "control: the kernel's End ($KEND) delivered the $N datagrams ($(cat "$TMPD/rx")) and 1 MiB ($(cat "$TMPD/tcp"))" \
		test "$(cat "$TMPD/rx")" = $N -a "$(cat "$TMPD/tcp")" = $((1 << 20))
	in_rtr ip6tables -t raw -D PREROUTING -d $SID -j NFQUEUE --queue-num 0
	in_rtr "${kend_del[@]}"
fi

udp_rx 3
if srv6d_start "$TMPD/c.conf" "$TMPD/stats" "$TMPD/log"; then
	udp_tx
	wait "$RXPID"
	rx=$(cat "$TMPD/rx"); rx=${rx:-0}
	srv6d_stats
	p=$(counter $SID packets)
	cnr=$(awk '$1 == "queue" { for (i = 3; i <= NF; i++) if ($i ~ /^csum-not-ready=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$TMPD/stats")
	check "srv6d processed the $N datagrams (End packets $p)" [ "$p" -eq $N ]
	check "all $N datagrams reached dst's socket with a valid checksum ($rx, End packets $p)" \
		[ "$rx" -eq $N -a "$p" -eq $N ]
	check "no packet reached srv6d with its checksum unfinished (csum-not-ready=$cnr, End packets $p)" \
		[ "$cnr" -eq 0 -a "$p" -gt 0 ]

	# TCP: src's TSO sends GSO super-packets over veth; the kernel must
	# segment them before queueing (F_GSO off), and the stream must arrive.
	tcp_rx 9998
	wait_until 5 listening 9998
	tcp_tx 9998 $((4 << 20))
	wait "$TCPPID"
	tcp=$(cat "$TMPD/tcp"); tcp=${tcp:-0}
	srv6d_stats
	p2=$(counter $SID packets)
	gso=$(awk '$1 == "queue" { for (i = 3; i <= NF; i++) if ($i ~ /^gso=/) { split($i, kv, "="); s += kv[2] } } END { print s + 0 }' "$TMPD/stats")
	check "TCP through End: 4 MiB arrive intact ($tcp bytes, End packets $((p2 - p)))" \
		[ "$tcp" -eq $((4 << 20)) -a $((p2 - p)) -gt 0 ]
	check "no GSO super-packet reached srv6d (gso=$gso, End packets $((p2 - p)))" \
		[ "$gso" -eq 0 -a $((p2 - p)) -gt 0 ]
	srv6d_stop
	check "srv6d exits 0 (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
else
	kill "$RXPID" 2>/dev/null
	fail "checksum-partial packets through srv6d" "srv6d did not start"
fi
summary
