#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gso_pkt.py - send TCP GSO super-packets from a namespace's veth, as a TSO
sender would hand them over (test_gso.sh; run with /usr/bin/python3).

  gso_pkt.py NS DEV DMAC HDRHEX PAYLOAD GSO_SIZE [COUNT]

HDRHEX is the packet through its TCP header (any chain of IPv6 with SRHs,
IPv6/IPv4 in IPv6, IPv4): the tool appends PAYLOAD bytes, sets every IP
length (an IPv6 Payload Length over 65535 is 0, as BIG TCP leaves it; an
IPv4 header checksum is recomputed) and writes the frame COUNT times (1)
into DEV through AF_PACKET with a virtio-net header (PACKET_VNET_HDR): GSO
type TCPV6 or TCPV4 (the innermost IP header's) of GSO_SIZE, checksum
partial at the TCP header (its field the pseudo-header sum).  The peer gets
one GSO skb of the whole length.  Prints the frame's IP length.
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkt  # noqa: E402

PACKET_VNET_HDR = 15
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
GSO_TCPV4, GSO_TCPV6 = 1, 4


def csum16(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def layout(p):
    """[(offset, version)] of the IP headers, the TCP offset, the pseudo
    destination (Segment List[0] behind an SRH)."""
    ips, off = [], 0
    while True:
        ver = p[off] >> 4
        ips.append((off, ver))
        if ver == 4:
            nh, dst, off = p[off + 9], p[off + 16:off + 20], off + (p[off] & 15) * 4
        else:
            nh, dst, off = p[off + 6], p[off + 24:off + 40], off + 40
            while nh == 43:
                if p[off + 2] == 4:
                    dst = p[off + 8:off + 24]
                nh, off = p[off], off + (p[off + 1] + 1) * 8
        if nh == 6:
            return ips, off, dst
        if nh not in (4, 41):
            raise SystemExit("gso_pkt.py: no TCP header in HDRHEX")


def main():
    ns, dev, dmac, hdr, paylen, gso_size = sys.argv[1:7]
    count = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    p = bytearray(bytes.fromhex(hdr) + bytes(i & 0xFF for i in range(int(paylen))))
    ips, tcp, pdst = layout(p)
    for off, ver in ips:
        if ver == 6:
            plen = len(p) - off - 40
            p[off + 4:off + 6] = struct.pack("!H", plen if plen <= 0xFFFF else 0)
        else:
            p[off + 2:off + 4] = struct.pack("!H", min(len(p) - off, 0xFFFF))
            p[off + 10:off + 12] = b"\0\0"
            ihl = (p[off] & 15) * 4
            p[off + 10:off + 12] = struct.pack("!H", ~csum16(bytes(p[off:off + ihl])) & 0xFFFF)
    ioff, iver = ips[-1]
    l4len = len(p) - tcp
    if iver == 6:
        ph = bytes(p[ioff + 8:ioff + 24]) + pdst + struct.pack("!IxxxB", l4len, 6)
    else:
        ph = bytes(p[ioff + 12:ioff + 16]) + pdst + struct.pack("!xBH", 6, l4len & 0xFFFF)
    p[tcp + 16:tcp + 18] = struct.pack("!H", csum16(ph))
    thl = (p[tcp + 12] >> 4) * 4
    vh = struct.pack("=BBHHHH", VIRTIO_NET_HDR_F_NEEDS_CSUM, GSO_TCPV6 if iver == 6 else GSO_TCPV4,
                     14 + tcp + thl, int(gso_size), 14 + tcp, 16)
    pkt.enter_netns(ns)
    et = 0x86DD if p[0] >> 4 == 6 else 0x0800
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(et))
    s.setsockopt(pkt.SOL_PACKET, PACKET_VNET_HDR, 1)
    s.bind((dev, et))
    smac = s.getsockname()[4]
    frame = vh + bytes.fromhex(dmac.replace(":", "")) + smac + struct.pack("!H", et) + bytes(p)
    for _ in range(count):
        s.send(frame)
    print(len(p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
