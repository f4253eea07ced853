#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_gso.sh - conf `gso on`: GSO super-packets and checksum-partial
# packets queued whole (NFQA_CFG_F_GSO) come out right.
#
#   +--------------------------+      +-------------------------------+      +----------------------+
#   | src                      |      | rtr  srv6d, egress inject,    |      | dst                  |
#   | TCP/UDP -> dst           | eth0 | gso on; GRO on the ingress    | eth0 | TCP sink: SHA-256,   |
#   | route dst/128 encap seg6 +------+ ff::1 End, ff::6 End.DX6,     +------+ RX csum offload off  |
#   |  inline segs ff::1 / ff::8 1500 | ff::4 End.DX4, ff::a End.X psp| 1600 | UDP sink: count      |
#   |  / ff::a, encap segs     |      | ff::b End.DT6, ff::8          | (1400| ff::9 End.DT6 (kernel|
#   |  ff::6 / ff::4 / ff::b   |      | End.B6.Encaps -> segs ff::9;  | in 6)|  decap, case 3)      |
#   |  (TSO)                   |      | route ::22 encap segs ff::9;  |      | ::22 (case 5)        |
#   | [no seg6 encap: SRH from |      | TX csum offload off at eth1   |      | [no seg6local: ff::9 |
#   |  the sockets; encap by   |      | [tun case: GRO flush timeout  |      |  an address, kernel  |
#   |  tun0 + userspace, TSO   |      |  on eth0]                     |      |  SRH decap]          |
#   |  off on eth0]            |      | [cases 7, 11: lnk0 - lnk1, a  |      |                      |
#   | [case 9: gso_max_size    |      |  veth pair of 576 / 96 bytes; |      |                      |
#   |  185000 on eth0]         |      |  case 10 on: eth1 576, IPv4]  |      |                      |
#   +--------------------------+      +-------------------------------+      +----------------------+
#
# On a kernel without seg6 encap (CONFIG_IPV6_SEG6_LWTUNNEL) src's sockets
# carry the SRH themselves (IPV6_RTHDR: the same Type 4 header, TSO and
# partial checksums as with seg6 inline), and the encapsulations of case 2
# and End.DT6 come from a userspace encapsulator behind a tun device (no
# kernel IPv6 tunnel here): its packets are MSS-sized, so src's eth0 drops
# TSO (veth only GROs what a TSO-less device sent) and rtr's ingress holds
# GRO across polls (gro_flush_timeout): rtr's GRO builds the super-packets
# srv6d gets.  UDP GSO super-packets with an SRH only seg6 inline makes (a
# socket's UDP GSO with an IPV6_RTHDR is segmented by its own kernel): that
# check is skipped.  Without seg6local dst has ff::9 as an address: the
# kernel's SRH processing (net/ipv6/exthdrs.c) decapsulates at Segments
# Left 0.  Every transfer through srv6d must move its SID's (or route's)
# counter.
#
# 1. End: a 128 MiB TCP stream (src's TSO sends GSO super-packets, which
#    srv6d rewrites once and injects with a virtio-net header: the kernel
#    completes the checksum and segments) arrives with the sender's SHA-256;
#    dst counts no TCP checksum error; srv6d's gso-injected / gso-sent > 0.
#    20 UDP datagrams with partial checksums (csum-completed) all arrive.
# 2. End.DX6 / End.DX4 (src encapsulates, `encap seg6 mode encap`): the
#    decapsulated result is plain TCP over IPv6 / IPv4, injected whole with
#    GSO type TCPV6 / TCPV4; 64 MiB each with the right SHA-256.
# 3. End.B6.Encaps (an encapsulation: the result is a tunnel, which a
#    virtio-net header cannot describe): srv6d segments in software with full
#    checksums; dst's kernel decapsulates (End.DT6); 64 MiB with the right
#    SHA-256, gso-segmented > 0.
# 4. End.X with PSP and End.DT6: 16 MiB each.
# 5. An H.Encaps policy (route ... encap seg6 mode encap) for forwarded TCP:
#    software segments, 32 MiB.
# 6. End with rtr's output MTU (1400) below its input's (1500): 32 MiB arrive
#    (segment size from the smallest link MTU).
# 7. An up 576-byte link elsewhere (lnk0/lnk1: IPv6 is off on it): 8 MiB
#    through End, none gso-dropped (its MTU is no IPv6 output's).
# 8. A 65,520-byte super-packet (tests/net/gso_pkt.py: src's veth takes it
#    with a virtio-net header, as from TSO) through End.B6.Encaps: its outer
#    Payload Length would pass 65,535: no-room, logged once.
# 9. A BIG TCP sender (gso_max_size 185000): super-packets over NFQUEUE's
#    65,531-byte copy dropped as truncated, logged once, none arrives cut
#    (dst counts no TCP checksum error); 8 MiB still arrive.
# 10. End.DX4 out of a 576-byte IPv4 link (rtr's eth1 and dst): segments of
#    524 bytes, 8 MiB arrive, none gso-dropped.
# 11. An up 96-byte IPv4 link: no 48-byte segment (TCP_MIN_SND_MSS) fits an
#    IPv4 result: End.DX4's super-packets gso-dropped, logged naming the MTU.
# Before `gso` existed srv6d refused the configuration (unknown keyword): every
# check below fails on that code.  Before issue 22, 7 of the checks of cases
# 7 to 11 fail (cases 7 and 10 stall: anything under 536 bytes was refused;
# no refusal was logged).
set -u
source "$(dirname "$0")/lib.sh"

test_begin --srv6d --trap '[ -n "${ENCAP_PID:-}" ] && kill "$ENCAP_PID" 2>/dev/null'

SID=2001:db8:ff::1
B6=2001:db8:ff::8
DT=2001:db8:ff::9
DX6=2001:db8:ff::6
DX4=2001:db8:ff::4
SX=2001:db8:ff::a
DST2=2001:db8:2::22
DT6=2001:db8:ff::b
GRO="$(dirname "$0")/../../bench/veth_gro.py"
in_dst sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.eth0.seg6_enabled=1
# The encapsulation adds 64 bytes: the underlay carries them (MTU 1600).
ip -n "$NS_RTR" link set "$RTR_IF_DST" mtu 1600
ip -n "$NS_DST" link set eth0 mtu 1600
if kfeat seg6local; then
	cmd=(ip -6 route add "$DT/128" encap seg6local action End.DT6 table 255 dev eth0)
else
	echo "# $(kfeat_why seg6local): dst's $DT is an address (the kernel's SRH decapsulation)"
	cmd=(ip addr add "$DT/128" dev lo)
fi
in_dst "${cmd[@]}" || fail "dst's End.DT6 $DT (cases 3 and 5)" "${cmd[*]} failed"
in_rtr "$PY" "$GRO" "$RTR_IF_SRC" 1 || echo "# GRO on $RTR_IF_SRC not set"
# Checksums really checked: rtr's output computes them in software (no TX
# checksum offload, hence no TSO: segmentation in software too) and dst
# verifies them (no RX checksum offload: veth would mark the packets
# CHECKSUM_UNNECESSARY).  Between veths otherwise nothing ever looks at them.
offload() { # NS DEV rx|tx|tso 0|1 (legacy ethtool ioctls; ethtool is not installed)
	local ns=$1; shift
	ip netns exec "$ns" "$PY" -c '
import ctypes, fcntl, socket, struct, sys
cmd = {"rx": 0x15, "tx": 0x17, "tso": 0x1f}[sys.argv[2]]   # ETHTOOL_SRXCSUM / STXCSUM / STSO
val = ctypes.create_string_buffer(struct.pack("II", cmd, int(sys.argv[3])))
ifr = struct.pack("16sP", sys.argv[1].encode(), ctypes.addressof(val)) + b"\0" * 16
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(s.fileno(), 0x8946, ifr)' "$1" "$2" "$3"
}
offload "$NS_RTR" "$RTR_IF_DST" tx 0 || echo "# TX checksum offload on $RTR_IF_DST not turned off"
offload "$NS_DST" eth0 rx 0 || echo "# RX checksum offload on dst not turned off"
{
	printf 'queue 0\nsteer auto\negress inject\ngso on\nencap-source %s\n' $RTR_ADDR_DST
	printf 'control-socket %s\n' "$TMPD/ctl.sock"
	printf 'sid %s action End\n' $SID
	printf 'sid %s action End.B6.Encaps srh segs %s\n' $B6 $DT
	printf 'sid %s action End.DX6 nh6 %s\n' $DX6 $DST_ADDR
	printf 'sid %s action End.DX4 nh4 10.2.0.2\n' $DX4
	printf 'sid %s action End.X nh6 %s flavors psp\n' $SX $DST_ADDR
	printf 'sid %s action End.DT6 table 100\n' $DT6
	printf 'route %s/128 encap seg6 mode encap segs %s\n' $DST2 $DT
} >"$TMPD/c.conf"
# IPv4 for End.DX4
ip -n "$NS_SRC" addr add 10.1.0.1/24 dev eth0
ip -n "$NS_RTR" addr add 10.1.0.2/24 dev "$RTR_IF_SRC"
ip -n "$NS_RTR" addr add 10.2.0.1/24 dev "$RTR_IF_DST"
ip -n "$NS_DST" addr add 10.2.0.2/24 dev eth0
ip -n "$NS_DST" route add default via 10.2.0.1
in_rtr sysctl -qw net.ipv4.ip_forward=1
ip -n "$NS_RTR" -6 route add $DST_ADDR/128 dev "$RTR_IF_DST" table 100
ip -n "$NS_DST" addr add $DST2/64 dev eth0 nodad

# RTHDR: the segment src's sockets put in their own SRH (IPV6_RTHDR, Type 4:
# the kernel fills Segment List[0] with the destination) when src's kernel
# cannot insert it (no seg6 encap); empty when a route does.
RTHDR=
kfeat seg6encap ||
	echo "# $(kfeat_why seg6encap): src's sockets carry the SRH (IPV6_RTHDR), tun0 encapsulates"
RTHDR_PY='
import socket, struct
def rthdr(s, seg):
    if seg:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RTHDR, struct.pack("BBBBBBH", 0, 4, 4, 1, 1, 0, 0)
                     + bytes(16) + socket.inet_pton(socket.AF_INET6, seg))
'
# src_inline SID [ROUTE-OPTION...]: src's packets to dst carry an SRH with
# the segment SID: src's route (seg6 inline) inserts it or, without seg6
# encap, the sockets (the ROUTE-OPTIONs then go on a route to SID).
src_inline() {
	local sid=$1 cmd; shift
	encap_stop
	if kfeat seg6encap; then
		cmd=(ip -6 route replace "$DST_ADDR/128" encap seg6 mode inline segs "$sid"
			via "$RTR_ADDR_SRC" dev eth0 "$@")
	else
		RTHDR=$sid
		[ $# -gt 0 ] || return 0
		cmd=(ip -6 route replace "$sid/128" via "$RTR_ADDR_SRC" dev eth0 "$@")
	fi
	in_src "${cmd[@]}" || fail "src's SRH with segment $sid" "${cmd[*]} failed"
}
# src_encap SID DEST: src's packets to DEST (IPv6 or IPv4) in an outer IPv6
# header with an SRH (segment SID): src's route (seg6 encap) or, without
# seg6 encap, the tun encapsulator.
src_encap() {
	local cmd
	encap_stop
	RTHDR=
	if ! kfeat seg6encap; then encap_start "$@"; return; fi
	case $2 in
	*.*) cmd=(ip route replace "$2/32" encap seg6 mode encap segs "$1" dev eth0) ;;
	*) cmd=(ip -6 route replace "$2/128" encap seg6 mode encap segs "$1" via "$RTR_ADDR_SRC" dev eth0) ;;
	esac
	in_src "${cmd[@]}" || fail "src's encapsulation in segment $1" "${cmd[*]} failed"
}
# encap_start SID DEST: what src routes to DEST goes into tun0, whose
# reader sends it out of eth0 in IPv6 + SRH (segment SID, Segments Left 0),
# as seg6 encap would; PID in ENCAP_PID.  Its packets are MSS-sized: for
# rtr's GRO to build super-packets, eth0 drops TSO (veth GROs only what a
# TSO-less device sent) and rtr's ingress flushes GRO on a timer.
encap_start() {
	local why=
	ip -n "$NS_SRC" -6 route del "$DST_ADDR/128" 2>/dev/null
	: >"$TMPD/encap"
	ip netns exec "$NS_SRC" "$PY" -c '
import fcntl, os, socket, struct, sys
tun, dev, dmac, src, sid = sys.argv[1:6]
fd = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", tun.encode(), 0x1001))   # TUNSETIFF, IFF_TUN | IFF_NO_PI
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((dev, 0))
eth = bytes.fromhex(dmac.replace(":", "")) + s.getsockname()[4] + b"\x86\xdd"
a, b = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, sid)
print("ready", flush=True)
while True:
    p = os.read(fd, 65536)
    srh = struct.pack("BBBBBBH", 41 if p[0] >> 4 == 6 else 4, 2, 4, 0, 0, 0, 0) + b
    s.send(eth + struct.pack("!IHBB", 0x60000000, len(srh) + len(p), 43, 64) + a + b + srh + p)' \
		tun0 eth0 "$RTR_MAC_SRC" $SRC_ADDR "$1" >>"$TMPD/encap" 2>&1 &
	ENCAP_PID=$!
	wait_until 5 grep -q ready "$TMPD/encap" || why="the encapsulator did not start: $(cat "$TMPD/encap")"
	[ -n "$why" ] || ip -n "$NS_SRC" link set tun0 mtu 1436 up || why="tun0 not up"
	[ -n "$why" ] || case $2 in
	*.*) ip -n "$NS_SRC" route add "$2/32" dev tun0 src 10.1.0.1 ;;
	*) ip -n "$NS_SRC" -6 route add "$2/128" dev tun0 src $SRC_ADDR ;;
	esac || why="no route to $2 via tun0"
	[ -n "$why" ] || offload "$NS_SRC" eth0 tso 0 || why="TSO on src's eth0 not turned off"
	[ -n "$why" ] || in_rtr sh -c "echo 200000 >/sys/class/net/$RTR_IF_SRC/gro_flush_timeout" ||
		why="no gro_flush_timeout on rtr's $RTR_IF_SRC"
	[ -z "$why" ] || fail "src's encapsulation in segment $1 (tun)" "$why"
}
encap_stop() {
	[ -n "${ENCAP_PID:-}" ] || return 0
	kill "$ENCAP_PID" 2>/dev/null; wait "$ENCAP_PID" 2>/dev/null
	ENCAP_PID=
	offload "$NS_SRC" eth0 tso 1 || echo "# TSO on src's eth0 not turned back on"
	in_rtr sh -c "echo 0 >/sys/class/net/$RTR_IF_SRC/gro_flush_timeout"
}

# tcp_rx PORT [BINDADDR]: dst's sink; prints "BYTES SHA256"
tcp_rx() {
	in_dst "$PY" -c '
import hashlib, socket, sys
a = sys.argv[2]
l = socket.socket(socket.AF_INET if "." in a else socket.AF_INET6, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind((a, int(sys.argv[1]))); l.listen(1); l.settimeout(20)
c, _ = l.accept(); c.settimeout(20)
h = hashlib.sha256(); n = 0
try:
    while True:
        d = c.recv(1 << 20)
        if not d:
            break
        h.update(d); n += len(d)
except OSError:
    pass
print(n, h.hexdigest())' "$1" "${2:-::}" >"$TMPD/tcp" &
	TCPPID=$!
}
# tcp_tx PORT MIB [DSTADDR]: send MIB MiB of pseudo-random data (the socket
# with an SRH when $RTHDR says); prints "BYTES SHA256"
tcp_tx() {
	in_src "$PY" -c "$RTHDR_PY"'
import hashlib, random, sys
r = random.Random(14)
blk = [r.randbytes(1 << 20) for _ in range(7)]
s = socket.socket(socket.AF_INET if "." in sys.argv[1] else socket.AF_INET6, socket.SOCK_STREAM)
rthdr(s, sys.argv[4])
s.settimeout(20)
s.connect((sys.argv[1], int(sys.argv[2])))
h = hashlib.sha256(); n = 0
for i in range(int(sys.argv[3])):
    b = blk[(i * 3) % 7]
    s.sendall(b); h.update(b); n += len(b)
s.close()
print(n, h.hexdigest())' "${3:-$DST_ADDR}" "$1" "$2" "$RTHDR"
}
# all "TEST"...: every bracket test holds (check takes one command)
all() { local t; for t in "$@"; do eval "$t" || return 1; done; }
listening() { in_dst ss -H -6 -ltn "( sport = :$1 )" 2>/dev/null | grep -q .; }
listening4() { in_dst ss -H -4 -ltn "( sport = :$1 )" 2>/dev/null | grep -q .; }
csum_errors() { in_dst nstat -az TcpInCsumErrors 2>/dev/null | awk '$1 == "TcpInCsumErrors" {print $2}'; }
udp_rx() {
	in_dst "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", 9999)); s.settimeout(2)
n = 0
try:
    while True:
        s.recv(2048); n += 1
except OSError:
    pass
print(n)' >"$TMPD/rx" &
	RXPID=$!
	wait_until 5 udp_bound
}
udp_bound() { in_dst ss -H -6 -lun "( sport = :9999 )" 2>/dev/null | grep -q .; }

# run_tcp NAME PORT MIB SID [DSTADDR]: one transfer; checks bytes and
# digest, and that it went through srv6d: SID's counter (a SID or a route
# prefix) moved (by MOVED packets)
run_tcp() {
	local tx rx p0 p1 any=:: up=listening
	case ${5:-} in *.*) any=0.0.0.0 up=listening4 ;; esac
	srv6d_stats; p0=$(counter "$4" packets)
	tcp_rx "$2" $any
	wait_until 5 $up "$2"
	tx=$(tcp_tx "$2" "$3" "${5:-}")
	wait "$TCPPID"
	rx=$(cat "$TMPD/tcp")
	srv6d_stats; p1=$(counter "$4" packets)
	MOVED=$((p1 - p0))
	check "$1: $3 MiB arrive with the sender's SHA-256 (sent ${tx% *} bytes, got ${rx% *}; $4 packets +$((p1 - p0)))" \
		all "[ -n \"$tx\" ]" "[ \"$tx\" = \"$rx\" ]" "[ $((p1 - p0)) -gt 0 ]"
}

if srv6d_start "$TMPD/c.conf" "$TMPD/stats" "$TMPD/log"; then
	# ---- 1. End ----
	src_inline $SID
	ce0=$(csum_errors); ce0=${ce0:-0}
	run_tcp "End, gso on" 9001 128 $SID
	e1=$MOVED
	udp_rx
	p0=$(counter $SID packets)
	in_src "$PY" -c "$RTHDR_PY
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
rthdr(s, '$RTHDR')
for i in range(20):
    s.sendto(b'srv6d-gso-%04d' % i + b'x' * 300, ('$DST_ADDR', 9999))"
	wait "$RXPID"
	srv6d_stats
	check "End: the 20 UDP datagrams with partial checksums arrive ($(cat "$TMPD/rx"), End packets +$(($(counter $SID packets) - p0)))" \
		all "[ \"$(cat "$TMPD/rx")\" = 20 ]" "[ $(($(counter $SID packets) - p0)) -ge 20 ]"
	gi=$(queue_stat gso-injected); gs=$(queue_stat gso-sent); cc=$(queue_stat csum-completed)
	ie=$(queue_stat inject-errors)
	gd0=$(queue_stat gso-dropped)
	# UDP GSO (UDP_SEGMENT): srv6d cannot know the sender's segment size
	# (NFQUEUE does not say): dropped and counted, never sent wrong.  Only
	# seg6 inline makes the super-packets: a socket with an IPV6_RTHDR
	# has its UDP GSO segmented by its own kernel (rtr gets datagrams).
	if needs "End: UDP GSO super-packets dropped and counted, none delivered" seg6encap; then
		udp_rx
		in_src "$PY" -c "
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, 103, 1000)   # UDP_SEGMENT
for i in range(5):
    s.sendto(b'u' * 4000, ('$DST_ADDR', 9999))"
		wait "$RXPID"
		srv6d_stats
		gd1=$(queue_stat gso-dropped); urx=$(cat "$TMPD/rx")
		check "End: UDP GSO super-packets dropped and counted, none delivered (gso-dropped +$((gd1 - gd0)), rx $urx)" \
			all "[ \"$gd1\" -gt \"$gd0\" ]" "[ \"$urx\" = 0 ]"
	fi
	gd=$(queue_stat gso-dropped); cd=$(queue_stat csum-dropped)
	ce=$(csum_errors); ce=${ce:-0}
	check "End: GSO super-packets injected whole, each taken by the socket (gso-injected=$gi gso-sent=$gs inject-errors=$ie)" \
		all "[ \"$gi\" -gt 0 ]" "[ \"$gs\" -eq \"$gi\" ]" "[ \"$ie\" -eq 0 ]"
	check "End: partial checksums completed (csum-completed=$cc)" [ "$cc" -gt 0 ]
	# the same counters in srv6ctl queue show (text and JSON)
	SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}
	in_rtr "$SRV6CTL" -S "$TMPD/ctl.sock" -j queue show 0 >"$TMPD/q.json" 2>&1
	in_rtr "$SRV6CTL" -S "$TMPD/ctl.sock" queue show 0 >"$TMPD/q.txt" 2>&1
	jg=$("$PY" -c 'import json, sys; g = json.load(open(sys.argv[1]))[0]["gso"]; print(g["injected"], g["sent"], g["queued"])' "$TMPD/q.json" 2>/dev/null)
	check "End: srv6ctl queue show -j has the GSO counters (injected sent queued: ${jg:-none}; stats $gi $gs)" \
		all "[ -n \"$jg\" ]" "[ \"${jg%% *}\" -ge \"$gi\" ]" "[ \"${jg%% *}\" -gt 0 ]"
	check "End: srv6ctl queue show prints a gso line" grep -q "^    gso queued [0-9]* injected [1-9]" "$TMPD/q.txt"
	# stats reset covers the injection socket's counters too
	in_rtr "$SRV6CTL" -S "$TMPD/ctl.sock" stats reset >/dev/null 2>&1
	jr=$(in_rtr "$SRV6CTL" -S "$TMPD/ctl.sock" -j queue show 0 2>/dev/null |
		"$PY" -c 'import json, sys; g = json.load(sys.stdin)[0]["gso"]; print(g["injected"], g["sent"])' 2>/dev/null)
	check "End: after stats reset, gso injected and sent restart together (${jg%% *} -> ${jr:-none})" \
		all "[ \"${jg%% *}\" -gt 0 ]" "[ \"${jr:-}\" = '0 0' ]"
	check "End: TCP lost nothing to GSO or checksum handling (gso-dropped=$gd csum-dropped=$cd, End packets +$e1)" \
		all "[ \"$gd0\" -eq 0 ]" "[ \"$cd\" -eq 0 ]" "[ $e1 -gt 0 ]"
	check "End: dst saw no TCP checksum error ($ce0 -> $ce, End packets +$e1)" \
		all "[ \"$ce\" -eq \"$ce0\" ]" "[ $e1 -gt 0 ]"

	# ---- 2. decapsulations: src encapsulates, the result is plain TCP ----
	src_encap $DX6 $DST_ADDR
	srv6d_stats; gi0=$(queue_stat gso-injected)
	run_tcp "End.DX6, gso on" 9003 64 $DX6
	gi1=$(queue_stat gso-injected)
	check "End.DX6: GSO super-packets decapsulated and injected whole ($((gi1 - gi0)))" \
		all "[ \"$gi1\" -gt \"$gi0\" ]" "[ $(counter $DX6 packets) -gt 0 ]"
	src_encap $DX4 10.2.0.2
	run_tcp "End.DX4 (IPv4), gso on" 9004 64 $DX4 10.2.0.2
	gi2=$(queue_stat gso-injected)
	check "End.DX4: GSO super-packets injected whole as TCPV4 ($((gi2 - gi1)))" \
		all "[ \"$gi2\" -gt \"$gi1\" ]" "[ $(counter $DX4 packets) -gt 0 ]"

	# ---- 3. End.B6.Encaps: software segmentation ----
	src_inline $B6
	run_tcp "End.B6.Encaps, gso on" 9002 64 $B6
	sg=$(queue_stat gso-segmented); sn=$(queue_stat gso-segments)
	ce2=$(csum_errors); ce2=${ce2:-0}
	check "End.B6.Encaps: super-packets segmented by srv6d (gso-segmented=$sg segments=$sn)" \
		all "[ \"$sg\" -gt 0 ]" "[ \"$sn\" -gt \"$sg\" ]"
	check "End.B6.Encaps: dst saw no TCP checksum error ($ce -> $ce2, End.B6.Encaps packets +$MOVED)" \
		all "[ \"$ce2\" -eq \"$ce\" ]" "[ $MOVED -gt 0 ]"
	check "End.B6.Encaps: the SID counted its packets ($(counter $B6 packets))" \
		[ "$(counter $B6 packets)" -gt 0 ]

	# ---- 4. End.X with PSP (the SRH popped), End.DT6 (decapsulation) ----
	src_inline $SX
	run_tcp "End.X flavors psp, gso on" 9006 16 $SX
	src_encap $DT6 $DST_ADDR
	run_tcp "End.DT6, gso on" 9007 16 $DT6
	encap_stop
	check "End.X psp and End.DT6 counted their packets ($(counter $SX packets), $(counter $DT6 packets))" \
		all "[ $(counter $SX packets) -gt 0 ]" "[ $(counter $DT6 packets) -gt 0 ]"

	# ---- 5. H.Encaps policy (forwarded TCP, no SRH from src) ----
	sg0=$(queue_stat gso-segmented)
	in_src ip -6 route add $DST2/128 via $RTR_ADDR_SRC dev eth0
	RTHDR=
	run_tcp "H.Encaps policy, gso on" 9008 32 $DST2/128 $DST2
	sg1=$(queue_stat gso-segmented)
	check "H.Encaps policy: super-packets segmented by srv6d (+$((sg1 - sg0)), route packets $(counter $DST2/128 packets))" \
		all "[ $sg1 -gt $sg0 ]"

	# ---- 6. End out of a link smaller than the input: segments fit it ----
	# rtr's output MTU 1400 < its input's 1500; src's route says 1400 (as
	# path MTU discovery would: not waited for here), so its segments fit.
	# srv6d's segment size comes from the smallest link MTU, not the
	# input's: from the input's, every super-packet would be cut into
	# segments too big for the output and the connection would stall.
	src_inline $SID mtu lock 1400
	ip -n "$NS_RTR" link set "$RTR_IF_DST" mtu 1400
	ip -n "$NS_DST" link set eth0 mtu 1400
	sleep 1.1   # srv6d re-reads link MTUs once a second
	run_tcp "End out of a 1400-byte link, gso on" 9005 32 $SID

	# ---- 7. an up link too small for IPv6 (576 bytes) elsewhere ----
	# The kernel turns IPv6 off on it: it is the output of no IPv6 packet
	# and takes no part in the IPv6 segment size.  Before: every
	# super-packet "gso-dropped" (576 < headers + 536), the stream stalled.
	ip -n "$NS_RTR" link add lnk0 mtu 576 type veth peer name lnk1 mtu 576
	ip -n "$NS_RTR" link set lnk0 up
	ip -n "$NS_RTR" link set lnk1 up
	sleep 1.1   # srv6d re-reads link MTUs once a second
	srv6d_stats; gd0=$(queue_stat gso-dropped)
	run_tcp "End with an up 576-byte link elsewhere, gso on" 9009 8 $SID
	check "... no super-packet dropped for it (gso-dropped $gd0 -> $(queue_stat gso-dropped))" \
		[ "$(queue_stat gso-dropped)" -eq "$gd0" ]
	ip -n "$NS_RTR" link del lnk0

	# ---- 8. a super-packet whose result outgrows 65535 bytes ----
	# A 65520-byte super-packet (crafted: src's veth takes it with a
	# virtio-net header, as from TSO) through End.B6.Encaps: the outer
	# Payload Length would be 65544.  The kernel would segment it; srv6d
	# refuses it, counted (no-room), logged once, documented.
	hdr6() { # DA: IPv6 + SRH (DA, then dst) + TCP, hex
		"$PY" -c '
import sys
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.layers.inet import TCP
print(bytes(IPv6(src="'$SRC_ADDR'", dst=sys.argv[1], hlim=64) /
            IPv6ExtHdrSegmentRouting(addresses=["'$DST_ADDR'", sys.argv[1]], segleft=1, lastentry=1) /
            TCP(sport=1234, dport=4321, seq=1000, flags="A")).hex())' "$1"
	}
	GSOPKT="$(dirname "$0")/gso_pkt.py"
	nr0=$(counter $B6 no-room)
	h=$(hdr6 $B6)
	len=$(in_src "$PY" "$GSOPKT" "$NS_SRC" eth0 "$RTR_MAC_SRC" "$h" $((65520 - ${#h} / 2)) 1400)
	b6_refused() { srv6d_stats; [ "$(counter $B6 no-room)" -gt "$nr0" ]; }
	wait_until 5 b6_refused
	check "a $len-byte super-packet through End.B6.Encaps: refused as no-room (+$(($(counter $B6 no-room) - nr0))) and logged" \
		all "[ $(counter $B6 no-room) -gt $nr0 ]" \
		"grep -q 'a $len-byte GSO super-packet has no room for the headers' '$TMPD/log'"

	# ---- 9. BIG TCP: super-packets over NFQUEUE's 65531-byte copy ----
	# src's TSO makes super-packets up to 185000 bytes; NFQUEUE copies at
	# most 65531 bytes of a packet (NFQA_CAP_LEN says the rest): srv6d
	# drops them (truncated, never passed on cut), logs it once; TCP
	# resends in smaller pieces.
	tr0=$(queue_stat truncated)
	if ip -n "$NS_SRC" link set eth0 gso_max_size 185000 2>/dev/null; then
		ce3=$(csum_errors); ce3=${ce3:-0}
		run_tcp "End, BIG TCP sender (gso_max_size 185000), gso on" 9010 8 $SID
		ip -n "$NS_SRC" link set eth0 gso_max_size 65536
		tr1=$(queue_stat truncated); ce4=$(csum_errors); ce4=${ce4:-0}
		if [ "$tr1" -gt "$tr0" ]; then
			check "BIG TCP: $((tr1 - tr0)) super-packets over 65531 bytes dropped as truncated, logged, none arrived cut (TCP checksum errors $ce3 -> $ce4)" \
				all "[ $ce4 -eq $ce3 ]" \
				"grep -q 'packet, longer than NFQUEUE copies (65531 bytes' '$TMPD/log'"
		else
			skip "BIG TCP: super-packets over 65531 bytes dropped as truncated and logged" \
				"no super-packet over 65531 bytes reached srv6d (truncated $tr0 -> $tr1)"
		fi
	else
		skip "BIG TCP: super-packets over 65531 bytes dropped as truncated and logged" \
			"this kernel refuses gso_max_size 185000 on a veth"
	fi

	# ---- 10. End.DX4 out of a 576-byte IPv4 link ----
	# rtr's output (and dst) at 576 bytes, IPv4 only from now on: the
	# result's segments are cut to 576 - 52 (IPv4 + TCP with options) =
	# 524 bytes; veth drops anything larger.  Before: "gso-dropped" (576 <
	# headers + 536), the stream stalled.
	ip -n "$NS_RTR" link set "$RTR_IF_DST" mtu 576
	ip -n "$NS_DST" link set eth0 mtu 576
	src_encap $DX4 10.2.0.2
	sleep 1.1   # srv6d re-reads link MTUs once a second
	srv6d_stats; gd0=$(queue_stat gso-dropped)
	run_tcp "End.DX4 out of a 576-byte IPv4 link, gso on" 9011 8 $DX4 10.2.0.2
	check "... no super-packet dropped for it (gso-dropped $gd0 -> $(queue_stat gso-dropped))" \
		[ "$(queue_stat gso-dropped)" -eq "$gd0" ]
	encap_stop

	# ---- 11. an IPv4 link of 96 bytes: no segment of 48 bytes fits ----
	# 96 < 20 + 32 + 48 (IPv4, TCP with timestamps, TCP_MIN_SND_MSS: the
	# smallest segment the kernel's TCP sends): End.DX4's super-packets
	# are refused, counted as gso-dropped, logged once naming the MTU (the
	# stream stalls: 2 s of it are tried).
	ip -n "$NS_RTR" link add lnk0 mtu 96 type veth peer name lnk1 mtu 96
	ip -n "$NS_RTR" link set lnk0 up
	ip -n "$NS_RTR" link set lnk1 up
	src_encap $DX4 10.2.0.2
	srv6d_stats; gd0=$(queue_stat gso-dropped)
	timeout 8 ip netns exec "$NS_DST" "$PY" -c '
import socket
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("0.0.0.0", 9012)); l.listen(1); l.settimeout(5)
c, _ = l.accept(); c.settimeout(3)
try:
    while c.recv(1 << 20):
        pass
except OSError:
    pass' &
	rxp=$!
	wait_until 5 listening4 9012
	timeout 6 ip netns exec "$NS_SRC" "$PY" -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2); s.connect(("10.2.0.2", 9012))
t = time.time()
try:
    while time.time() - t < 5:
        s.send(bytes(1 << 16))
except OSError:
    pass' &
	txp=$!
	dx4_refused() {
		srv6d_stats
		[ "$(queue_stat gso-dropped)" -gt "$gd0" ] &&
			grep -q 'leaves no segment of 48 bytes or more within the smallest link MTU (IPv6 [0-9]*, IPv4 96)' "$TMPD/log"
	}
	wait_until 5 dx4_refused
	kill "$txp" "$rxp" 2>/dev/null; wait "$txp" "$rxp" 2>/dev/null
	encap_stop
	srv6d_stats
	check "End.DX4 with an up 96-byte IPv4 link: refused as gso-dropped ($gd0 -> $(queue_stat gso-dropped)), logged naming the MTU" \
		all "[ $(queue_stat gso-dropped) -gt $gd0 ]" \
		"grep -q 'leaves no segment of 48 bytes or more within the smallest link MTU (IPv6 [0-9]*, IPv4 96)' '$TMPD/log'"
	srv6d_stop
	check "srv6d exits 0 (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
else
	fail "gso" "srv6d did not start"
fi

# gso on without egress inject: refused, naming the line
printf 'queue 0\ngso on\nsid %s action End\n' $SID >"$TMPD/bad.conf"
out=$("$SRV6D" -n -c "$TMPD/bad.conf" 2>&1); rc=$?
said=0; echo "$out" | grep -q 'gso on needs "egress inject"' && said=1
check "gso on without egress inject is refused (rc=$rc: $out)" test "$rc" -ne 0 -a $said = 1
summary
