#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""lpm.py - send forwarded and router-originated packets, capture on the far side
(test_lpm.sh; run with /usr/bin/python3).

  lpm.py --cap-ns NS [--cap-if IF] [--wait S] [--each S]
         [--src-ns NS --dmac MAC --hex HEX...]          frames sent from src's eth0
         [--rtr-ns NS --udp SRC DST SPORT DPORT HLIM]... datagrams rtr's own stack sends
         [--build-fwd DST... ]                          only print the frames' hex

Prints "RX <hex>" for every IPv6 or IPv4 packet captured (Ethernet stripped,
ND/MLD/RS/RA left out), in arrival order.  A frame the veth hands over with
its checksum not done (TP_STATUS_CSUMNOTREADY: CHECKSUM_PARTIAL, what a NIC
would complete) gets its innermost UDP checksum completed.  The capture socket is bound before
anything is sent.  Datagrams of --udp carry a fixed payload; the socket binds
SRC and SPORT so source address selection plays no part, and sets the hop
limit / TTL to HLIM.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkt  # noqa: E402

PAYLOAD = bytes(range(48))


PACKET_AUXDATA = 8
TP_STATUS_CSUMNOTREADY = 1 << 3


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def complete_udp(ip):
    """The checksum a NIC completes for a CHECKSUM_PARTIAL frame (a veth
    hands it over unfinished): the innermost UDP header's, computed."""
    ip = bytearray(ip)
    off = 0
    while True:
        if ip[off] >> 4 == 6:
            nh, l4, ph_src = ip[off + 6], off + 40, ip[off + 8:off + 40]
            if nh == 43:
                nh, l4 = ip[l4], l4 + (ip[l4 + 1] + 1) * 8
            if nh == 41 or nh == 4:
                off = l4
                continue
            if nh != 17:
                return bytes(ip)
            ulen = len(ip) - l4
            ph = bytes(ph_src) + struct.pack("!I", ulen) + b"\0\0\0\x11"
        else:
            ihl = (ip[off] & 15) * 4
            if ip[off + 9] != 17:
                return bytes(ip)
            l4 = off + ihl
            ulen = len(ip) - l4
            ph = bytes(ip[off + 12:off + 20]) + struct.pack("!BBH", 0, 17, ulen)
        ip[l4 + 6:l4 + 8] = b"\0\0"
        c = csum(ph + bytes(ip[l4:])) or 0xFFFF
        ip[l4 + 6:l4 + 8] = struct.pack("!H", c)
        return bytes(ip)


def recv_ip(s):
    while True:
        try:
            frame, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(32))
        except BlockingIOError:
            return None
        if addr[2] == pkt.PACKET_OUTGOING or len(frame) < 14:
            continue
        partial = False
        for lvl, typ, data in anc:
            if lvl == pkt.SOL_PACKET and typ == PACKET_AUXDATA and len(data) >= 4:
                partial = bool(struct.unpack("I", data[:4])[0] & TP_STATUS_CSUMNOTREADY)
        et = int.from_bytes(frame[12:14], "big")
        ip = frame[14:]
        if et == 0x86DD and len(ip) >= 40 and not pkt.is_noise(ip):
            return complete_udp(ip) if partial else ip
        if et == 0x0800 and len(ip) >= 20:
            ip = ip[:int.from_bytes(ip[2:4], "big")]
            return complete_udp(ip) if partial else ip


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cap-ns")
    ap.add_argument("--cap-if", default="eth0")
    ap.add_argument("--wait", type=float, default=1.0)
    ap.add_argument("--each", type=float, default=0,
                    help="after each send, wait up to S for its packet (keeps the "
                         "output in send order when a result is late)")
    ap.add_argument("--src-ns")
    ap.add_argument("--dmac")
    ap.add_argument("--hex", nargs="+", default=[])
    ap.add_argument("--rtr-ns")
    ap.add_argument("--udp", nargs=5, action="append", default=[],
                    metavar=("SRC", "DST", "SPORT", "DPORT", "HLIM"))
    ap.add_argument("--build-fwd", nargs="+", metavar="DST")
    a = ap.parse_args()

    if a.build_fwd:
        # an Echo Request from src to each DST, hop limit 64, traffic class
        # and flow label set (the encapsulation copies them)
        for i, d in enumerate(a.build_fwd):
            print(bytes(pkt.echo(d, seq=40 + i, tc=0x2e, fl=0x12345, hlim=64)).hex())
        return 0
    cap = pkt.open_capture(a.cap_ns, a.cap_if)
    cap.setsockopt(pkt.SOL_PACKET, PACKET_AUXDATA, 1)
    if a.hex:
        snd, smac = pkt.open_sender(a.src_ns, "eth0")
        dmac = bytes.fromhex(a.dmac.replace(":", ""))
        for h in a.hex:
            b = bytes.fromhex(h)
            et = b"\x86\xdd" if b[0] >> 4 == 6 else b"\x08\x00"
            snd.send(dmac + smac + et + b)
            settle(cap, a.each)
    if a.udp:
        pkt.enter_netns(a.rtr_ns)
        for src, dst, sport, dport, hlim in a.udp:
            v6 = ":" in dst
            s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_DGRAM)
            if v6:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, int(hlim))
            else:
                s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, int(hlim))
            s.bind((src, int(sport)))
            s.sendto(PAYLOAD, (dst, int(dport)))
            s.close()
            settle(cap, a.each)
    drain(cap, a.wait)
    return 0


def drain(cap, wait, want=0):
    """Print what @cap receives for @wait s, or until @want packets came."""
    end, n = time.time() + wait, 0
    while not (want and n >= want):
        left = end - time.time()
        if left <= 0:
            break
        if not select.select([cap], [], [], left)[0]:
            break
        while not (want and n >= want):
            ip = recv_ip(cap)
            if ip is None:
                break
            print("RX " + ip.hex())
            n += 1


def settle(cap, each):
    """Between two sends: 50 ms, or (--each) until the first's packet came."""
    if each:
        drain(cap, each, want=1)
    else:
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
