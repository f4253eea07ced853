#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""pkt.py - packet tool of the srv6d namespace tests (run with /usr/bin/python3).

Builds the crafted SRv6 inputs (scapy), sends them from one namespace's
interface as Ethernet frames to the router's MAC, and captures what arrives on
another namespace's interface, printing every captured IPv6 packet as hex.

Capture is a plain AF_PACKET socket opened and bound in the capture namespace
*before* anything is sent, so every frame from that moment on is queued in the
socket: there is no sniffer thread to wait for.  Frames the capturing host sent
itself (PACKET_OUTGOING) and ND/MLD/RS/RA noise are ignored.  Packets are sent
one at a time; after each the tool waits (bounded) for its output, then lingers
briefly at the end so that duplicates are seen too.

  pkt.py list                                  case names
  pkt.py build CASE...                         input packets as hex (one case)
                                               or "case idx hex" lines
  pkt.py [common] send (--case CASE... | --hex HEX...) [--expect-each N] [--decode]
      prints "RX <case> <input-index> <hex>" per captured packet (case "hex"
      for --hex); with --decode also
      "IC <case> <idx> <src> <type> <code> <pointer> quote=<0|1>" for ICMPv6;
      with --describe "TD/RD <case> <idx> <headers>" for what was sent/received
  pkt.py [common] stream --dst SID --count N --rate PPS [--mark-at K FILE]
                         [--sources K]
      End traffic (SRH [2001:db8:aa::1, SID], SL=1, inner IPv6 carrying a
      sequence number); prints "sent N received M dups D capdrops C
      unprocessed U": M arrived processed (DA 2001:db8:aa::1), U arrived
      unchanged (DA still SID), D arrived more than once (either way).
      --sources K cycles the outer source over 2001:db8:1::1..K (the NFQUEUE
      --queue-balance hash covers addresses only, so one pair is one queue)
      --flows K cycles the inner source over 2001:db8:1::1..K instead (one
      outer pair, K flows: the kernel's flow hash, RPS, sees them) and adds
      "reordered R": packets that arrived behind a later one of their flow
common: --src-ns NS [--src-if IF] --dmac MAC --cap-ns NS [--cap-if IF]
        [--timeout S] [--linger S]
"""
import argparse
import ctypes
import fcntl
import os
import random
import select
import socket
import struct
import sys
import time

from scapy.layers.inet import UDP
from scapy.layers.inet6 import (IPv6, ICMPv6EchoRequest, IPv6ExtHdrHopByHop,
                                 IPv6ExtHdrSegmentRouting,
                                 IPv6ExtHdrSegmentRoutingTLVPadN)
from scapy.packet import Raw

SRC = "2001:db8:1::1"
ETH_P_ALL = 0x0003
ETH_P_IPV6 = 0x86DD
PACKET_OUTGOING = 4
CLONE_NEWNET = 0x40000000
SOL_PACKET = 263
SO_RCVBUFFORCE = 33
PACKET_STATISTICS = 6
# ICMPv6 noise: MLD query/report/done, RS, RA, NS, NA, redirect, MLDv2 report
NOISE = {130, 131, 132, 133, 134, 135, 136, 137, 143}

PAYLOAD = b"srv6d-nettest-payload-0123456789"


def echo(dst, seq=1, **kw):
    return IPv6(src=SRC, dst=dst, **kw) / ICMPv6EchoRequest(id=0x5d6, seq=seq, data=PAYLOAD)


def udp(dst, sport=4000, dport=5000, **kw):
    return IPv6(src=SRC, dst=dst, **kw) / UDP(sport=sport, dport=dport) / Raw(PAYLOAD)


def srh(segs, sl, nh=None, **kw):
    """SRH with @segs in SRH order (segs[0] = last segment)."""
    kw2 = dict(addresses=segs, segleft=sl, lastentry=len(segs) - 1)
    if nh is not None:
        kw2["nh"] = nh
    kw2.update(kw)
    return IPv6ExtHdrSegmentRouting(**kw2)


def outer(dst, **kw):
    kw.setdefault("hlim", 64)
    return IPv6(src=SRC, dst=dst, **kw)


def cases():
    """Input packets of every case; the tests pair each with a SID or policy."""
    ff = "2001:db8:ff::"
    c = {}
    c["end"] = [
        outer(ff + "1") / srh(["2001:db8:aa::2", "2001:db8:aa::1", ff + "1"], 2)
        / echo("2001:db8:bb::1", seq=1),
        outer(ff + "1", tc=0xb8, fl=0xabcde) / srh(["2001:db8:bb::1", ff + "1"], 1, tag=0x1234)
        / udp("2001:db8:bb::1"),
        outer(ff + "1") / srh(["2001:db8:aa::1", ff + "1"], 1,
                              tlv_objects=[IPv6ExtHdrSegmentRoutingTLVPadN(len=6, padding=b"\0" * 6)])
        / echo("2001:db8:bb::1", seq=2),
        outer(ff + "1") / IPv6ExtHdrHopByHop() / srh(["2001:db8:aa::1", ff + "1"], 1)
        / echo("2001:db8:bb::1", seq=17),  # SRH behind a Hop-by-Hop header
    ]
    c["end-psp"] = [
        outer(ff + "2") / srh(["2001:db8:bb::1", ff + "2"], 1) / echo("2001:db8:bb::1", seq=3),
        outer(ff + "2") / srh(["2001:db8:bb::1", "2001:db8:aa::1", ff + "2"], 2)
        / echo("2001:db8:bb::1", seq=4),
    ]
    c["end-x"] = [
        outer(ff + "3") / srh(["2001:db8:cc::1", ff + "3"], 1) / echo("2001:db8:bb::1", seq=5),
        outer(ff + "3", fl=0x11111) / srh(["2001:db8:bb::1", "2001:db8:cc::1", ff + "3"], 2)
        / udp("2001:db8:bb::1"),
    ]
    c["end-t"] = [
        outer(ff + "4") / srh(["2001:db8:cc::1", ff + "4"], 1) / echo("2001:db8:bb::1", seq=6),
    ]
    # decapsulation: inner destination cc::1 is unreachable in the main table,
    # so End.DX6 must use its nh6 and End.DT6 table 100
    c["end-dx6"] = [
        outer(ff + "5") / srh([ff + "5"], 0, nh=41) / echo("2001:db8:cc::1", seq=7, tc=0x20, fl=0x2222),
        outer(ff + "5", nh=41) / udp("2001:db8:cc::1"),
    ]
    c["end-dx6-lookup"] = [
        outer(ff + "15") / srh([ff + "15"], 0, nh=41) / echo("2001:db8:bb::1", seq=8),
        outer(ff + "15", nh=41) / udp("2001:db8:bb::2"),
    ]
    c["end-dt6"] = [
        outer(ff + "6") / srh([ff + "6"], 0, nh=41) / echo("2001:db8:cc::1", seq=9),
        outer(ff + "6", nh=41) / udp("2001:db8:cc::2"),
    ]
    c["end-b6"] = [
        outer(ff + "7") / srh(["2001:db8:bb::1", ff + "7"], 1) / echo("2001:db8:bb::1", seq=10),
    ]
    c["end-b6-encaps"] = [
        outer(ff + "8", fl=0x33333) / srh(["2001:db8:bb::1", ff + "8"], 1)
        / echo("2001:db8:bb::1", seq=11),
        outer(ff + "8") / srh(["2001:db8:bb::1", "2001:db8:bb::2", ff + "8"], 2)
        / udp("2001:db8:bb::1"),
    ]
    csid = "2001:db8:100:"
    c["end-csid"] = [
        udp(csid + "200:300:400::", hlim=64),  # no SRH, three more C-SIDs
        outer(csid + ":") / srh(["2001:db8:aa::1", csid + ":"], 1)  # arg 0: SRH
        / echo("2001:db8:bb::1", seq=12),
        outer(csid + "200::") / srh(["2001:db8:aa::1", csid + "200::"], 1)  # shift, SRH kept
        / echo("2001:db8:bb::1", seq=13),
    ]
    xcsid = "2001:db8:101:"
    c["end-x-csid"] = [
        udp(xcsid + "200:300::", hlim=64),
        outer(xcsid + ":") / srh(["2001:db8:cc::1", xcsid + ":"], 1) / echo("2001:db8:bb::1", seq=14),
    ]
    c["policy-encap"] = [
        echo("2001:db8:99::1", seq=15, tc=0x2e, fl=0x12345, hlim=64),
        udp("2001:db8:99::2", hlim=64),
    ]
    c["policy-inline"] = [
        echo("2001:db8:98::1", seq=16, tc=0x2e, fl=0x12345, hlim=64),
        udp("2001:db8:98::2", hlim=64),
    ]
    # RFC extras (test_rfc_errors.sh); End SID ff::1, End.DX6 SID ff::5
    c["end-sid9"] = [outer(ff + "9") / srh(["2001:db8:aa::1", ff + "9"], 1) / echo("2001:db8:bb::1", seq=30)]
    c["err-echo-sl0"] = [outer(ff + "1") / srh([ff + "1"], 0, nh=58)
                         / ICMPv6EchoRequest(id=0x77, seq=1, data=PAYLOAD)]
    c["err-echo-nosrh"] = [outer(ff + "1") / ICMPv6EchoRequest(id=0x77, seq=2, data=PAYLOAD)]
    c["err-udp-sl0"] = [outer(ff + "1") / srh([ff + "1"], 0, nh=17) / UDP(sport=1, dport=2) / Raw(PAYLOAD)]
    c["err-udp-nosrh"] = [outer(ff + "1") / UDP(sport=1, dport=2) / Raw(PAYLOAD)]
    c["err-hlim1"] = [outer(ff + "1", hlim=1) / srh(["2001:db8:aa::1", ff + "1"], 1)
                      / echo("2001:db8:bb::1", seq=20)]
    # Last Entry 3 with room for 2 segments (max_LE = 1)
    c["err-le-gt-max"] = [outer(ff + "1") / srh(["2001:db8:aa::1", ff + "1"], 1, lastentry=3)
                          / echo("2001:db8:bb::1", seq=21)]
    # Segments Left 3 > Last Entry + 1 = 2
    c["err-sl-gt-le"] = [outer(ff + "1") / srh(["2001:db8:aa::1", ff + "1"], 3)
                         / echo("2001:db8:bb::1", seq=22)]
    c["err-dx6-sl1"] = [outer(ff + "5") / srh(["2001:db8:aa::1", ff + "5"], 1, nh=41)
                        / echo("2001:db8:cc::1", seq=23)]
    return c


def describe(raw):
    """One line naming each header of an IPv6 packet (the demo prints it)."""
    from scapy.layers.inet6 import ICMPv6EchoReply, _ICMPv6Error
    parts, p = [], IPv6(raw)
    while p is not None and p.__class__.__name__ not in ("NoPayload", "Raw", "Padding"):
        if isinstance(p, IPv6):
            parts.append("IPv6 %s > %s hlim %d" % (p.src, p.dst, p.hlim))
        elif isinstance(p, IPv6ExtHdrSegmentRouting):
            parts.append("SRH SL=%d [%s]" % (p.segleft, ", ".join(p.addresses)))
        elif isinstance(p, ICMPv6EchoReply):  # a subclass of EchoRequest
            parts.append("ICMPv6 echo-reply seq %d" % p.seq)
        elif isinstance(p, ICMPv6EchoRequest):
            parts.append("ICMPv6 echo-request seq %d" % p.seq)
        elif isinstance(p, UDP):
            parts.append("UDP %d > %d" % (p.sport, p.dport))
        elif isinstance(p, _ICMPv6Error):
            parts.append("ICMPv6 type %d code %d" % (p.type, p.code))
            break
        else:
            parts.append(p.__class__.__name__)
        p = p.payload
    return " | ".join(parts)


def build(name):
    return [bytes(p) for p in cases()[name]]


# ---- namespaces and sockets -------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)


def enter_netns(name):
    """Move the calling thread into network namespace @name (/run/netns)."""
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (name, os.strerror(e)))
    finally:
        os.close(fd)


def open_capture(ns, ifname):
    enter_netns(ns)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    s.bind((ifname, ETH_P_ALL))
    s.setblocking(False)
    try:  # drop what was queued between socket() and bind()
        while True:
            s.recv(65535)
    except BlockingIOError:
        pass
    s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8)  # reading resets the counters
    return s


def open_sender(ns, ifname):
    enter_netns(ns)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IPV6))
    s.bind((ifname, ETH_P_IPV6))
    ifr = fcntl.ioctl(s.fileno(), 0x8927, struct.pack("256s", ifname.encode()))  # SIOCGIFHWADDR
    return s, ifr[18:24]


def is_noise(ip6):
    nh, off = ip6[6], 40
    if nh == 0 and len(ip6) >= 48:  # hop-by-hop (MLD router alert)
        nh, off = ip6[40], 40 + (ip6[41] + 1) * 8
    return nh == 58 and len(ip6) > off and ip6[off] in NOISE


def recv_ipv6(s):
    """Next captured IPv6 packet (bytes, Ethernet stripped) or None."""
    while True:
        try:
            frame, addr = s.recvfrom(65535)
        except BlockingIOError:
            return None
        if addr[2] == PACKET_OUTGOING or len(frame) < 54:
            continue
        if struct.unpack("!H", frame[12:14])[0] != ETH_P_IPV6:
            continue
        ip6 = frame[14:]
        plen = struct.unpack("!H", ip6[4:6])[0]
        ip6 = ip6[:40 + plen]  # strip Ethernet padding
        if not is_noise(ip6):
            return ip6


def capdrops(s):
    _, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    return drops


def wait_rx(s, want, timeout, got):
    """Append captured packets to @got until @want more arrived or @timeout."""
    end = time.monotonic() + timeout
    n = 0
    while True:
        p = recv_ipv6(s)
        if p is not None:
            got.append(p)
            n += 1
            if want and n >= want:
                return
            continue
        left = end - time.monotonic()
        if left <= 0:
            return
        select.select([s], [], [], left)


def decode_icmp(ip6, sent):
    """(type, code, pointer-or-word, quote_ok) of an ICMPv6 packet, else None."""
    if ip6[6] != 58 or len(ip6) < 48:
        return None
    t, c = ip6[40], ip6[41]
    plen = struct.unpack("!H", sent[4:6])[0]
    if plen:  # the receiver trims bytes beyond Payload Length
        sent = sent[:40 + plen]
    word = struct.unpack("!I", ip6[44:48])[0]
    quote = ip6[48:]
    if t < 128:  # error: the invoking packet, possibly truncated
        ok = 1 if quote and sent[:len(quote)] == quote else 0
    else:  # echo reply: identifier, sequence and data as in the request
        ok = 1 if sent.endswith(ip6[44:]) else 0
    return t, c, word, ok


# ---- commands ---------------------------------------------------------------

def cmd_send(a, batches):
    cap = open_capture(a.cap_ns, a.cap_if)
    tx, smac = open_sender(a.src_ns, a.src_if)
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    eth = dmac + smac + struct.pack("!H", ETH_P_IPV6)
    for name, inputs in batches:
        out = []
        for i, p in enumerate(inputs):
            if a.describe:
                print("TD %s %d %s" % (name, i, describe(p)))
            tx.send(eth + p)
            got = []
            t = time.monotonic()
            wait_rx(cap, a.expect_each, a.timeout, got)
            if os.environ.get("PKT_DEBUG"):
                print("# %s %d: %d in %.3fs" % (name, i, len(got), time.monotonic() - t), file=sys.stderr)
            out += [(i, g) for g in got]
        got = []
        wait_rx(cap, 0, a.linger, got)  # late packets and duplicates
        out += [(len(inputs) - 1, g) for g in got]
        for i, g in out:
            print("RX %s %d %s" % (name, i, g.hex()))
            if a.describe:
                print("RD %s %d %s" % (name, i, describe(g)))
            if a.decode:
                d = decode_icmp(g, inputs[i])
                if d:
                    src = socket.inet_ntop(socket.AF_INET6, g[8:24])
                    print("IC %s %d %s %d %d %d quote=%d" % (name, i, src, d[0], d[1], d[2], d[3]))
        sys.stdout.flush()
    d = capdrops(cap)
    if d:
        print("capture dropped %d frames" % d, file=sys.stderr)
        return 3
    return 0


def cmd_stream(a):
    cap = open_capture(a.cap_ns, a.cap_if)
    tx, smac = open_sender(a.src_ns, a.src_if)
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    eth = dmac + smac + struct.pack("!H", ETH_P_IPV6)
    run = random.getrandbits(32)
    marker = b"SEQ%08x" % run
    # inner packet with No Next Header: no checksum to recompute per packet
    tmpl = bytes(outer(a.dst) / srh(["2001:db8:aa::1", a.dst], 1)
                 / IPv6(src=SRC, dst="2001:db8:bb::1", nh=59) / Raw(marker + b"0" * 8 + PAYLOAD))
    k = tmpl.find(marker) + len(marker)
    # outer source 2001:db8:1::<1..K>: bytes 22-23 of the IPv6 header
    srcs = [struct.pack("!H", i + 1) for i in range(max(1, a.sources))]
    # inner source 2001:db8:1::<1..F>: the last 2 bytes of the inner header's
    # source (the inner header follows the SRH)
    isrc = tmpl.find(socket.inet_pton(socket.AF_INET6, SRC), 24) + 14
    flows = max(1, a.flows)
    last = {}
    reordered = 0
    aa1 = socket.inet_pton(socket.AF_INET6, "2001:db8:aa::1")
    sid = socket.inet_pton(socket.AF_INET6, a.dst)
    seen, unproc, dups = set(), set(), 0

    def drain():
        nonlocal dups, reordered
        while True:
            p = recv_ipv6(cap)
            if p is None:
                return
            j = p.find(marker)
            if j < 0 or p[24:40] not in (aa1, sid):
                continue
            seq = int(p[j + len(marker):j + len(marker) + 8])
            if seq in seen or seq in unproc:
                dups += 1
            elif last.get(seq % flows, -1) > seq:
                reordered += 1
            last[seq % flows] = max(last.get(seq % flows, -1), seq)
            (seen if p[24:40] == aa1 else unproc).add(seq)

    gap = 1.0 / a.rate
    t0 = time.monotonic()
    for n in range(a.count):
        p = tmpl[:22] + srcs[n % len(srcs)] + tmpl[24:k] + b"%08d" % n + tmpl[k + 8:]
        if flows > 1:
            p = p[:isrc] + struct.pack("!H", n % flows + 1) + p[isrc + 2:]
        tx.send(eth + p)
        if a.mark_at is not None and n + 1 == int(a.mark_at[0]):
            open(a.mark_at[1], "w").close()
        drain()
        delay = t0 + (n + 1) * gap - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    end = time.monotonic() + a.timeout
    while len(seen) + len(unproc) < a.count and time.monotonic() < end:
        select.select([cap], [], [], 0.05)
        drain()
    time.sleep(a.linger)
    drain()
    print("sent %d received %d dups %d capdrops %d unprocessed %d" %
          (a.count, len(seen), dups, capdrops(cap), len(unproc))
          + (" reordered %d" % reordered if flows > 1 else ""))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src-ns")
    ap.add_argument("--src-if", default="eth0")
    ap.add_argument("--dmac")
    ap.add_argument("--cap-ns")
    ap.add_argument("--cap-if", default="eth0")
    ap.add_argument("--timeout", type=float, default=1.5)
    ap.add_argument("--linger", type=float, default=0.2)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    b = sub.add_parser("build")
    b.add_argument("case", nargs="+")
    s = sub.add_parser("send")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--case", nargs="+")
    g.add_argument("--hex", nargs="+")
    s.add_argument("--expect-each", type=int, default=1)
    s.add_argument("--decode", action="store_true")
    s.add_argument("--describe", action="store_true")
    st = sub.add_parser("stream")
    st.add_argument("--dst", required=True)
    st.add_argument("--count", type=int, required=True)
    st.add_argument("--rate", type=float, default=1000)
    st.add_argument("--mark-at", nargs=2, metavar=("K", "FILE"))
    st.add_argument("--sources", type=int, default=1)
    st.add_argument("--flows", type=int, default=1)
    a = ap.parse_args()

    if a.cmd == "list":
        print("\n".join(cases()))
        return 0
    if a.cmd == "build":  # one case: hex lines; several: "case idx hex"
        for c in a.case:
            for i, p in enumerate(build(c)):
                print(p.hex() if len(a.case) == 1 else "%s %d %s" % (c, i, p.hex()))
        return 0
    if not (a.src_ns and a.dmac and a.cap_ns):
        ap.error("--src-ns, --dmac and --cap-ns are required")
    if a.cmd == "send":
        if a.case:
            batches = [(c, build(c)) for c in a.case]
        else:
            batches = [("hex", [bytes.fromhex(h) for h in a.hex])]
        return cmd_send(a, batches)
    return cmd_stream(a)


if __name__ == "__main__":
    sys.exit(main())
