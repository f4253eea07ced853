#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_icmp_limits.sh - issue 9.2: srv6d's ICMPv6 answers against the kernel.
# Echo Replies carry the whole data and are fragmented as the kernel fragments
# its own; rate-limited Echo Replies are counted as such; echo_ignore_all is
# honoured and, like the other ICMP sysctls, re-read on reload; the
# per-destination limit survives sources aimed at a victim's bucket.
#
#   +---------------+      +------------------------------------+      +-----+
#   | src           |      | rtr  srv6d: sid 2001:db8:ff::1 End |      | dst |
#   |          eth0 +------+ eth0                          eth1 +------+     |
#   | 2001:db8:1::1 |      | 2001:db8:1::2 (the kernel's own    |      |     |
#   | pings the SID |      |   echo replies, for comparison)    |      |     |
#   | (SRH, SL=0)   |      | route 2001:db8:1::1/128 mtu 1280   |      |     |
#   | link mtu 9000 |      | (link mtu 9000)                    |      |     |
#   +---------------+      +------------------------------------+      +-----+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

FLOOD="$BUILD/tests/net/icmp_flood"
test_begin
if ! srv6d_built || [ ! -x "$FLOOD" ]; then
	fail "icmp limits" "srv6d or $FLOOD not built"; summary; exit
fi

SID=2001:db8:ff::1
# requests of up to 3000 data bytes reach rtr whole
in_src ip link set eth0 mtu 9000
in_rtr ip link set "$RTR_IF_SRC" mtu 9000
conf=$TMPD/srv6d.conf
printf 'queue 0\nsteer auto\nsid %s action End\n' $SID >"$conf"

# echo_hex DST LEN SEQ: an Echo Request of LEN data bytes to DST (through an
# SRH with SL=0 when DST is the SID), as hex.
cat >"$TMPD/echo_hex.py" <<'PY'
import sys
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, ICMPv6EchoRequest
dst, n, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
p = IPv6(src="2001:db8:1::1", dst=dst, hlim=64)
if dst == "2001:db8:ff::1":
    p = p / IPv6ExtHdrSegmentRouting(addresses=[dst], segleft=0, lastentry=0, nh=58)
data = bytes((i * 7 + seq) & 0xff for i in range(n))
print(bytes(p / ICMPv6EchoRequest(id=0x4242, seq=seq, data=data)).hex())
PY
echo_hex() { "$PY" "$TMPD/echo_hex.py" "$@"; }
# shape: what a list of captured replies (RX lines on stdin) looks like:
# "len/frag-offset/more ..." per packet, then "data-ok" when the reassembled
# Echo Reply carries exactly the request's id, seq and data.
cat >"$TMPD/shape.py" <<'PY'
import struct, sys
n, seq = int(sys.argv[1]), int(sys.argv[2])
want = bytes((i * 7 + seq) & 0xff for i in range(n))
frags, whole, out = {}, None, []
for line in sys.stdin:
    f = line.split()
    if len(f) < 4 or f[0] != "RX":
        continue
    p = bytes.fromhex(f[3])
    if p[6] == 44:  # fragment header
        off = struct.unpack("!H", p[42:44])[0]
        out.append("%d/%d/%d" % (len(p), off & ~7, off & 1))
        frags[off & ~7] = p[48:]
    elif p[6] == 58 and p[40] == 129:
        out.append("%d/-/-" % len(p))
        whole = p[40:]
if frags:
    whole = b"".join(frags[k] for k in sorted(frags))
ok = whole is not None and whole[0] == 129 and whole[4:6] == b"\x42\x42" and \
    struct.unpack("!H", whole[6:8])[0] == seq and whole[8:] == want
print(" ".join(out) + (" data-ok" if ok else " data-bad"))
PY
shape() { "$PY" "$TMPD/shape.py" "$@"; }
ping_shape() { # DST LEN SEQ
	pkt_to_src --linger 0.3 send --hex "$(echo_hex "$1" "$2" "$3")" | shape "$2" "$3"
}

# ---- whole data, fragmented as the kernel -------------------------------------
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.echo.log"; then
	got=$(ping_shape $SID 1400 1)
	check "Echo Reply above 1280 bytes: whole data, one packet ($got)" \
		test "$got" = "1448/-/- data-ok"
	got=$(ping_shape $SID 32 2)
	check "small Echo Reply unchanged ($got)" test "$got" = "80/-/- data-ok"
	# replies go back through a 1280-byte path MTU
	in_rtr ip -6 route add $SRC_ADDR/128 dev "$RTR_IF_SRC" mtu 1280
	for n in 1400 3000; do
		kern=$(ping_shape $RTR_ADDR_SRC $n 3)
		got=$(ping_shape $SID $n 3)
		check "path MTU 1280, $n data bytes: fragments as the kernel's own reply ($got | kernel $kern)" \
			eval '[ "$got" = "$kern" ] && [ "${got% *}" != "$got" ] && [ "${got##* }" = data-ok ]'
	done
	in_rtr ip -6 route del $SRC_ADDR/128 dev "$RTR_IF_SRC"
	srv6d_stop
else
	fail "echo reply size" "srv6d did not start"
fi

# ---- rate-limited Echo Replies are counted as such ---------------------------
# Echo Reply (129) put under the rate mask, 60 s per message: after the
# first burst every reply is suppressed, whatever the machine's speed.
in_rtr sysctl -qw net.ipv6.icmp.ratemask=0-1,3-127,129 net.ipv6.icmp.ratelimit=60000
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.limit.log"; then
	hex=$(echo_hex $SID 32 5)
	rx=$(pkt_to_src --linger 0.3 send --hex $hex $hex $hex $hex $hex $hex $hex $hex $hex $hex |
		grep -c '^RX')
	srv6d_stats
	p=$(counter $SID packets) e=$(counter $SID errors) l=$(counter $SID icmp-limited)
	q=$(awk '/^queue 0 / {for (i = 1; i <= NF; i++) if ($i ~ /^icmp-limited=/) {sub(/.*=/, "", $i); print $i}}' "$SRV6D_STATS")
	echo "# 10 requests: $rx replies; SID packets $p errors $e icmp-limited $l; worker icmp-limited $q"
	check "some replies suppressed, some sent ($rx of 10 arrived)" eval '[ "$rx" -ge 1 ] && [ "$rx" -lt 10 ]'
	check "SID packets count only the replies sent ($p = $rx)" test "$p" -eq "$rx"
	check "suppressed replies are SID errors, drops[icmp-limited] ($e = $l = $((10 - rx)))" \
		eval '[ "$e" -eq $((10 - rx)) ] && [ "$l" -eq $((10 - rx)) ]'
	check "worker icmp-limited counts them too ($q)" test "${q:-0}" -eq $((10 - rx))
	srv6d_stop
else
	fail "rate-limited echo" "srv6d did not start"
fi
in_rtr sysctl -qw net.ipv6.icmp.ratemask=0-1,3-127 net.ipv6.icmp.ratelimit=1000

# ---- echo_ignore_all, re-read on reload ---------------------------------------
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.ignore.log"; then
	rx=$(pkt_to_src send --case err-echo-sl0 | grep -c '^RX')
	check "echo_ignore_all 0: the SID answers ($rx)" test "$rx" -eq 1
	in_rtr sysctl -qw net.ipv6.icmp.echo_ignore_all=1
	kill -HUP "$SRV6D_PID"
	wait_until 5 grep -q reloaded "$SRV6D_LOG"
	rx=$(pkt_to_src send --case err-echo-sl0 | grep -c '^RX')
	krx=$(pkt_to_src send --hex "$(echo_hex $RTR_ADDR_SRC 32 9)" | grep -c '^RX')
	check "echo_ignore_all 1 (read on reload): no answer from the SID ($rx), as none from the kernel ($krx)" \
		eval '[ "$rx" -eq 0 ] && [ "$krx" -eq 0 ]'
	srv6d_stats
	check "the ignored request is counted (drops[echo-ignored] $(counter $SID echo-ignored))" \
		test "$(counter $SID echo-ignored)" -eq 1
	in_rtr sysctl -qw net.ipv6.icmp.echo_ignore_all=0
	srv6d_stop
else
	fail "echo_ignore_all" "srv6d did not start"
fi

# ---- the per-destination limit against aimed sources -------------------------
in_rtr sysctl -qw net.ipv4.icmp_msgs_per_sec=100000 net.ipv4.icmp_msgs_burst=100000 \
	net.ipv6.icmp.ratelimit=60000
alone=$(in_rtr "$FLOOD" $SID $SRC_ADDR 20 alone)
attack=$(in_rtr "$FLOOD" $SID $SRC_ADDR 20 attack)
echo "# alone: $alone; under attack: $attack"
check "alone: the victim's burst, then limited (${alone#* victim })" \
	eval '[ "$(echo "$alone" | awk "{print \$5}")" -lt 20 ]'
check "an attacker in the victim's old slot changes nothing (${attack#* victim })" \
	test "${attack#* victim }" = "${alone#* victim }"
in_rtr sysctl -qw net.ipv4.icmp_msgs_per_sec=1000 net.ipv4.icmp_msgs_burst=50 \
	net.ipv6.icmp.ratelimit=1000

summary
