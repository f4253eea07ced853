#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""egress.py - packets of tests/net/test_egress.sh (run with /usr/bin/python3).

The results that need srv6d's injection egress: IPv4 out of End.DX4 /
End.DT4 / End.DT46, IPv6 out of IPv4 headend policies, Ethernet frames out of
End.DX2.  Sends each case's inputs as Ethernet frames from one namespace's
interface and prints every frame that reaches another namespace's interface,
whatever its EtherType:

  egress.py send --src-ns NS --dmac MAC --cap-ns NS --case CASE [--timeout S]
      "RX <case> <idx> <ethertype> <l3-hex> <frame-hex>" per captured frame
      (ARP, ND and MLD noise skipped; l3-hex is the frame minus Ethernet, cut
      to the IP length)
  egress.py build CASE      "<idx> <hex>" of the inputs
  egress.py counts          "<case> <number of inputs>" of every case
  egress.py l2frame CASE    the Ethernet frame End.DX2 must put on its oif
"""
import argparse
import ctypes
import os
import select
import socket
import struct
import sys
import time

from scapy.layers.inet import IP, UDP, ICMP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting, ICMPv6EchoRequest
from scapy.layers.l2 import Ether
from scapy.packet import Raw

SRC6 = "2001:db8:1::1"
SRC4 = "10.1.0.1"
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000
NOISE6 = {130, 131, 132, 133, 134, 135, 136, 137, 143}
PAYLOAD = b"srv6d-egress-payload-0123456789"
FF = "2001:db8:ff::"
# The frame End.DX2 carries: an IPv4 packet between two MACs that exist
# nowhere, with a VLAN-less EtherType the kernel does not interpret.
L2_DST, L2_SRC = "02:00:5e:00:00:aa", "02:00:5e:00:00:bb"


def sid(dst, nh, hlim=64):
    return IPv6(src=SRC6, dst=dst, hlim=hlim) / IPv6ExtHdrSegmentRouting(
        addresses=[dst], segleft=0, lastentry=0, nh=nh)


def v4(dst, ttl=64, tos=0, seq=1):
    return IP(src=SRC4, dst=dst, ttl=ttl, tos=tos, id=0x100 + seq) / UDP(sport=4000 + seq, dport=5000) / Raw(PAYLOAD)


def l2frame(seq):
    return Ether(dst=L2_DST, src=L2_SRC) / IP(src="192.0.2.1", dst="192.0.2.2", id=seq) / UDP(
        sport=7, dport=7) / Raw(PAYLOAD)


def cases():
    c = {}
    # End.DX4 nh4 10.2.0.2, inner to the next hop itself and beyond it
    c["dx4"] = [sid(FF + "41", 4) / v4("10.2.0.2", tos=0x28, seq=1),
                IPv6(src=SRC6, dst=FF + "41", nh=4) / v4("10.2.0.2", seq=2)]
    c["dx4-far"] = [sid(FF + "41", 4) / v4("10.3.0.5", seq=3)]
    # End.DX4 nh4 0.0.0.0: lookup of the inner destination (main table)
    c["dx4-lookup"] = [sid(FF + "42", 4) / v4("10.2.0.2", seq=4)]
    # End.DT4 / End.DT46 table 100: 10.3.0.0/24 is unreachable in main,
    # reachable in table 100 only
    c["dt4"] = [sid(FF + "43", 4) / v4("10.3.0.7", ttl=17, seq=5)]
    c["dt46-v4"] = [sid(FF + "44", 4) / v4("10.3.0.8", seq=6)]
    c["dt46-v6"] = [sid(FF + "44", 41) / IPv6(src=SRC6, dst="2001:db8:cc::9", hlim=33)
                    / UDP(sport=1, dport=2) / Raw(PAYLOAD)]
    # End.DT4 vrftable 100 without a VRF device: pending, its packets dropped
    c["dt4-vrf"] = [sid(FF + "46", 4) / v4("10.3.0.9", seq=10)]
    # IPv4 headend policies: 10.4.0.0/24 encap, 10.5.0.0/24 encap.red
    c["pol4-encap"] = [Ether() / v4("10.4.0.5", tos=0x10, seq=7), Ether() / v4("10.4.0.6", seq=8)]
    c["pol4-red"] = [Ether() / v4("10.5.0.5", seq=9)]
    # End.DX2 oif: the inner Ethernet frame (Next Header 143)
    c["dx2"] = [sid(FF + "45", 143) / l2frame(1), IPv6(src=SRC6, dst=FF + "45", nh=143) / l2frame(2)]
    # End through a local chain: policy 2001:db8:97::/64 -> segments ff::1 (End, local) -> aa::1
    c["chain"] = [IPv6(src=SRC6, dst="2001:db8:97::1", hlim=40) / UDP(sport=9, dport=9) / Raw(PAYLOAD)]
    # End ff::1 -> End ff::2 (local) -> aa::1
    c["chain-end"] = [IPv6(src=SRC6, dst=FF + "1", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1", FF + "2", FF + "1"], segleft=2, lastentry=2)
        / UDP(sport=10, dport=10) / Raw(PAYLOAD)]
    # End.B6.Encaps ff::8 whose policy starts at the local End ff::1
    c["chain-b6"] = [IPv6(src=SRC6, dst=FF + "8", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:bb::1", FF + "8"], segleft=1, lastentry=1)
        / UDP(sport=11, dport=11) / Raw(PAYLOAD)]
    # NEXT-C-SID 2001:db8:100::/48 (lblen 32, nflen 16): the argument 0200 shifts
    # into 2001:db8:200::, the local NEXT-C-SID SID 2001:db8:200::/48, whose
    # argument 0 then runs End on the SRH
    c["chain-csid"] = [IPv6(src=SRC6, dst="2001:db8:100:200::", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1", "2001:db8:100:200::"], segleft=1, lastentry=1)
        / UDP(sport=12, dport=12) / Raw(PAYLOAD)]
    # table isolation (test_isolation.sh): rtr's own addresses behind
    # End.DT6 / End.DT4 table 100, End.T table 100 and End.X
    echo6 = ICMPv6EchoRequest(id=0x99, seq=1, data=PAYLOAD)
    c["iso-dt6"] = [sid(FF + "6", 41) / IPv6(src=SRC6, dst="2001:db8:2::1", hlim=20) / echo6]
    c["iso-dt4"] = [sid(FF + "43", 4) / IP(src=SRC4, dst="10.2.0.1", ttl=20) / ICMP(id=0x99) / Raw(PAYLOAD)]
    c["iso-t"] = [IPv6(src=SRC6, dst=FF + "4", hlim=20) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:2::1", FF + "4"], segleft=1, lastentry=1) / echo6]
    c["iso-x"] = [IPv6(src=SRC6, dst=FF + "3", hlim=20) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:1::2", FF + "3"], segleft=1, lastentry=1) / echo6]
    # outer source (test_source.sh): End.B6.Encaps ff::18 and policy 2001:db8:96::/64
    c["src-b6"] = [IPv6(src=SRC6, dst=FF + "18", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:bb::1", FF + "18"], segleft=1, lastentry=1) / UDP(sport=13, dport=13) / Raw(PAYLOAD)]
    c["src-pol"] = [IPv6(src=SRC6, dst="2001:db8:96::1", hlim=30) / UDP(sport=14, dport=14) / Raw(PAYLOAD)]
    # MTU (1500 on every link): a policy adds 40 + 8 + 2 * 16 = 80 bytes
    c["mtu-near"] = [IPv6(src=SRC6, dst="2001:db8:95::1", hlim=30) / UDP(sport=15, dport=15)
                     / Raw(b"n" * (1500 - 80 - 48))]
    c["mtu-over"] = [IPv6(src=SRC6, dst="2001:db8:95::2", hlim=30) / UDP(sport=16, dport=16)
                     / Raw(b"o" * (1500 - 80 - 48 + 1))]
    # next-hop contexts never run local SIDs (test_egress.sh): End.X ff::3 whose
    # next segment is the local End SID ff::1 goes to its adjacency; End.DT6
    # ff::6 (table 100) with an inner packet to ff::1 is looked up in table 100
    c["ctx-x-sid"] = [IPv6(src=SRC6, dst=FF + "3", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1", FF + "1", FF + "3"], segleft=2, lastentry=2)
        / UDP(sport=18, dport=18) / Raw(PAYLOAD)]
    c["ctx-dt6-sid"] = [sid(FF + "6", 41) / IPv6(src=SRC6, dst=FF + "1", hlim=20) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1", FF + "1"], segleft=1, lastentry=1) / UDP(sport=19, dport=19) / Raw(PAYLOAD)]
    # a local chain longer than srv6d allows: End ff::1 nine times in a row
    c["loop"] = [IPv6(src=SRC6, dst=FF + "1", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1"] + [FF + "1"] * 10, segleft=10, lastentry=10)
        / UDP(sport=20, dport=20) / Raw(PAYLOAD)]
    # stateful firewall (test_firewall.sh): End ff::1 toward aa::1
    c["fw-end"] = [IPv6(src=SRC6, dst=FF + "1", hlim=30) / IPv6ExtHdrSegmentRouting(
        addresses=["2001:db8:aa::1", FF + "1"], segleft=1, lastentry=1)
        / UDP(sport=17, dport=17) / Raw(PAYLOAD)]
    return c


def frame_of(p):
    """The frame to send: IPv4 cases carry an Ether() placeholder."""
    if isinstance(p, Ether):
        return 0x0800, bytes(p.payload)
    return 0x86DD, bytes(p)


_libc = ctypes.CDLL(None, use_errno=True)


def enter_netns(name):
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (name, os.strerror(e)))
    finally:
        os.close(fd)


def noise(etype, l3):
    if etype == 0x0806:
        return True
    if etype == 0x86DD and len(l3) >= 48:
        nh, off = l3[6], 40
        if nh == 0:
            nh, off = l3[40], 40 + (l3[41] + 1) * 8
        return nh == 58 and len(l3) > off and l3[off] in NOISE6
    return False


def l3_cut(etype, l3):
    if etype == 0x86DD and len(l3) >= 40:
        return l3[:40 + struct.unpack("!H", l3[4:6])[0]]
    if etype == 0x0800 and len(l3) >= 20:
        return l3[:struct.unpack("!H", l3[2:4])[0]]
    return l3


def cmd_send(a):
    enter_netns(a.cap_ns)
    cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    cap.bind((a.cap_if, ETH_P_ALL))
    cap.setblocking(False)
    enter_netns(a.src_ns)
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
    tx.bind((a.src_if, 0))
    smac = tx.getsockname()[4]
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    for i, p in enumerate(cases()[a.case]):
        etype, l3 = frame_of(p)
        tx.send(dmac + smac + struct.pack("!H", etype) + l3)
    end = time.monotonic() + a.timeout
    seen = 0
    while not (a.expect and seen >= a.expect):
        left = end - time.monotonic()
        if left <= 0:
            break
        if not select.select([cap], [], [], left)[0]:
            break
        frame, addr = cap.recvfrom(65535)
        if addr[2] == PACKET_OUTGOING or len(frame) < 14:
            continue
        etype = struct.unpack("!H", frame[12:14])[0]
        if noise(etype, frame[14:]):
            continue
        print("RX %s 0 %04x %s %s" % (a.case, etype, l3_cut(etype, frame[14:]).hex(), frame.hex()))
        seen += 1
    if a.expect and seen >= a.expect:
        # duplicates: a short linger after the last expected frame
        end = time.monotonic() + 0.2
        while select.select([cap], [], [], max(0, end - time.monotonic()))[0]:
            frame, addr = cap.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING or len(frame) < 14:
                continue
            etype = struct.unpack("!H", frame[12:14])[0]
            if not noise(etype, frame[14:]):
                print("RX %s 0 %04x %s %s" % (a.case, etype, l3_cut(etype, frame[14:]).hex(), frame.hex()))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("send")
    s.add_argument("--src-ns", required=True)
    s.add_argument("--src-if", default="eth0")
    s.add_argument("--dmac", required=True)
    s.add_argument("--cap-ns", required=True)
    s.add_argument("--cap-if", default="eth0")
    s.add_argument("--case", required=True)
    s.add_argument("--timeout", type=float, default=1.0)
    s.add_argument("--expect", type=int, default=0,
                   help="stop once this many frames arrived (then linger 0.2 s)")
    b = sub.add_parser("build")
    b.add_argument("case")
    f = sub.add_parser("l2frame")
    f.add_argument("case")
    sub.add_parser("counts")
    a = ap.parse_args()
    if a.cmd == "send":
        cmd_send(a)
    elif a.cmd == "build":
        for i, p in enumerate(cases()[a.case]):
            print(i, frame_of(p)[1].hex())
    elif a.cmd == "counts":
        for k, v in cases().items():
            print(k, len(v))
    else:
        for i, p in enumerate(cases()[a.case]):
            inner = p[IPv6ExtHdrSegmentRouting].payload if IPv6ExtHdrSegmentRouting in p else p[IPv6].payload
            print(i, bytes(inner).hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
