#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Generate tests/unit/vectors/srh.txt and icmp6.txt: SRH packets and ICMPv6
answers built by scapy, an encoder independent of srv6d, that test_srh.c
(srv6_srh_build, srv6_ip6_parse) and test_icmp6.c (srv6_icmp6_build,
srv6_icmp6_csum) check against.  icmp6.txt lines are documented in
icmp_lines().

Run from anywhere with Debian's python (the one with scapy):
    /usr/bin/python3 tests/unit/vectors/gen_srh.py [OUT]
    /usr/bin/python3 tests/unit/vectors/gen_srh.py --corpus tests/fuzz/corpus/fuzz_srh

Line formats (fields separated by one space, '#' starts a comment line):
  build NAME MODE NH SEGS HEX
      MODE is full | red | inline | inline_red; SEGS the segments in travel
      order, comma-separated; HEX the SRH srv6_srh_build() must produce.
  parse NAME HEX HAS_SRH SRH_OFF SRH_LEN NH_BYTE_OFF UPPER_OFF UPPER_PROTO SL LE
      HEX a whole IPv6 packet srv6_ip6_parse() must accept with these fields
      (SL/LE are -1 without an SRH).
  bad NAME HEX ERR ERR_PTR
      HEX a whole IPv6 packet srv6_ip6_parse() must reject with enum
      srv6_srh_err ERR (its name without the SRV6_SRH_ERR_ prefix) and
      info.err_ptr == ERR_PTR.
The expected fields of parse lines come from scapy's own dissection; the
error kind and pointer of bad lines are RFC 8754 §4.3.1.1 / srh.h's contract.
Note: scapy 2.5.0's Pad1 TLV class carries a length byte (RFC 8754's Pad1 has
none) and its HMAC TLV class encodes 41 bytes; neither is used here.
"""
import sys

from scapy.layers.inet import UDP, TCP, IP
from scapy.layers.inet6 import (
    ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6PacketTooBig,
    ICMPv6ParamProblem, ICMPv6TimeExceeded, IPv6, IPv6ExtHdrDestOpt,
    IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, IPv6ExtHdrSegmentRouting,
    IPv6ExtHdrSegmentRoutingTLV, IPv6ExtHdrSegmentRoutingTLVIngressNode,
    IPv6ExtHdrSegmentRoutingTLVPadN, IPv6ExtHdrFragment)
from scapy.packet import Raw

SRC = "2001:db8::1"
PROTO = {"ipv6": 41, "ipip": 4, "eth": 143, "udp": 17}


def segs_n(n):
    return ["fc00:%x::%x" % (i + 1, 0x100 + i) for i in range(n)]


def srh_for(mode, segs, nh):
    """The SRH iproute2 + the kernel put on the wire for MODE (no HMAC)."""
    full = list(segs) + (["::"] if mode.startswith("inline") else [])
    stored = list(reversed(full))          # segments[0] = last of the list
    sl = len(full) - 1
    if mode.endswith("red"):
        stored = stored[:-1]               # drop the first segment
    return IPv6ExtHdrSegmentRouting(nh=nh, addresses=stored, segleft=sl,
                                    lastentry=len(stored) - 1)


def build_lines():
    out = []
    cases = [
        ("one_full", "full", "ipv6", 1),
        ("two_full", "full", "ipv6", 2),
        ("three_full_ipip", "full", "ipip", 3),
        ("sixteen_full", "full", "ipv6", 16),
        ("two_red", "red", "ipv6", 2),
        ("three_red_eth", "red", "eth", 3),
        ("sixteen_red", "red", "ipv6", 16),
        ("one_inline", "inline", "udp", 1),
        ("three_inline", "inline", "udp", 3),
        ("sixteen_inline", "inline", "udp", 16),
        ("two_inline_red", "inline_red", "udp", 2),
    ]
    for name, mode, nh, n in cases:
        segs = segs_n(n)
        srh = srh_for(mode, segs, PROTO[nh])
        out.append("build %s %s %d %s %s" % (name, mode, PROTO[nh],
                                             ",".join(segs), bytes(srh).hex()))
    return out


def layer_offsets(pkt):
    """Offsets of every layer of a built packet."""
    raw = bytes(pkt)
    offs, layer = [], pkt
    while layer is not None and layer.name != "NoPayload":
        offs.append((layer, len(raw) - len(bytes(layer))))
        layer = layer.payload if layer.payload.name != "NoPayload" else None
    return raw, offs


def parse_line(name, pkt):
    pkt = IPv6(bytes(pkt))                 # dissect: every field computed
    raw, offs = layer_offsets(pkt)
    srh = None
    nh_byte = 6
    prev_ext = None
    ext_names = ("IPv6ExtHdrHopByHop", "IPv6ExtHdrDestOpt",
                 "IPv6ExtHdrRouting", "IPv6ExtHdrSegmentRouting")
    upper_off, upper_proto = None, None
    for layer, off in offs[1:]:
        cls = type(layer).__name__
        if cls == "IPv6ExtHdrSegmentRouting" and srh is None:
            srh = (layer, off, nh_byte)
        if cls in ext_names:
            nh_byte = off
            prev_ext = layer
            continue
        upper_off = off
        break
    if upper_off is None:                  # no upper layer bytes
        upper_off = len(raw)
    if prev_ext is not None:
        upper_proto = prev_ext.nh
    else:
        upper_proto = pkt[IPv6].nh
    if srh is None:
        return "parse %s %s 0 0 0 0 %d %d -1 -1" % (
            name, raw.hex(), upper_off, upper_proto)
    layer, off, nhb = srh
    return "parse %s %s 1 %d %d %d %d %d %d %d" % (
        name, raw.hex(), off, (layer.len + 1) * 8, nhb, upper_off,
        upper_proto, layer.segleft, layer.lastentry)


def ip6(**kw):
    return IPv6(src=SRC, dst="fc00:1::100", **kw)


def parse_lines():
    s3 = segs_n(3)
    echo = ICMPv6EchoRequest(id=0x1234, seq=7, data=b"srv6d-ping")
    inner = IPv6(src="2001:db8:1::1", dst="2001:db8:2::2") / UDP(sport=1, dport=2) / (b"x" * 9)
    cases = [
        ("srh_echo", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=0, lastentry=2) / echo),
        ("srh_inner6", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=2, lastentry=2) / inner),
        ("srh_inner4", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=1, lastentry=2) /
         IP(src="10.0.0.1", dst="10.0.0.2") / UDP() / b"payload"),
        ("reduced_sl_le_plus_1", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3[1:])), segleft=2, lastentry=1) / inner),
        ("hbh_srh", ip6() / IPv6ExtHdrHopByHop() /
         IPv6ExtHdrSegmentRouting(addresses=list(reversed(s3)),
                                  segleft=1, lastentry=2) / inner),
        ("hbh_dst_srh_dst_tcp", ip6() / IPv6ExtHdrHopByHop() /
         IPv6ExtHdrDestOpt() /
         IPv6ExtHdrSegmentRouting(addresses=list(reversed(s3)),
                                  segleft=1, lastentry=2) /
         IPv6ExtHdrDestOpt() / TCP(sport=1000, dport=22)),
        ("rh0_then_srh", ip6() / IPv6ExtHdrRouting(addresses=["fc00::9"], segleft=0) /
         IPv6ExtHdrSegmentRouting(addresses=list(reversed(s3)),
                                  segleft=1, lastentry=2) / inner),
        ("tlv_padn", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=2, lastentry=2,
            tlv_objects=[IPv6ExtHdrSegmentRoutingTLVPadN(len=4, padding=b"\0" * 4)]) /
         inner),
        ("tlv_hmac", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=2, lastentry=2, hmac=1,
            # scapy 2.5.0's IPv6ExtHdrSegmentRoutingTLVHMAC encodes 41
            # bytes (an extra octet before Length): use the generic TLV.
            tlv_objects=[IPv6ExtHdrSegmentRoutingTLV(
                type=5, len=38,
                value=b"\0\0" + (7).to_bytes(4, "big") + b"\x5a" * 32)]) /
         inner),
        ("tlv_ingress_unknown", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=2, lastentry=2,
            tlv_objects=[IPv6ExtHdrSegmentRoutingTLVIngressNode(
                ingress_node="2001:db8::77")]) / inner),
        ("no_srh_udp", ip6() / UDP(sport=5, dport=6) / b"abc"),
        ("no_srh_dst_udp", ip6() / IPv6ExtHdrDestOpt() / UDP(sport=5, dport=6)),
        ("srh_trailer", ip6(plen=None) / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=0, lastentry=2) / echo),
        ("frag_after_srh", ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=1, lastentry=2) /
         IPv6ExtHdrFragment(offset=0, m=1, id=99) / UDP() / (b"f" * 16)),
    ]
    out = []
    for name, pkt in cases:
        line = parse_line(name, pkt)
        if name == "srh_trailer":          # 4 bytes of link trailer
            f = line.split(" ")
            f[2] += "deadbeef"
            line = " ".join(f)
        out.append(line)
    return out


def bad_lines():
    s3 = segs_n(3)
    inner = IPv6(src="2001:db8:1::1", dst="2001:db8:2::2") / UDP() / (b"y" * 4)
    out = []

    def bad(name, pkt, err, ptr):
        out.append("bad %s %s %s %d" % (name, bytes(pkt).hex(), err, ptr))

    srh_off = 40
    # Segments Left = Last Entry + 2: pointer at Segments Left.
    bad("sl_le_plus_2", ip6() / IPv6ExtHdrSegmentRouting(
        addresses=list(reversed(s3)), segleft=4, lastentry=2) / inner,
        "SL", srh_off + 3)
    # Last Entry beyond what Hdr Ext Len holds (max_LE = 2).
    bad("le_gt_max", ip6() / IPv6ExtHdrSegmentRouting(
        addresses=list(reversed(s3)), segleft=1, lastentry=3) / inner,
        "LE", srh_off + 3)
    # Hdr Ext Len 0: no room for one segment.
    bad("hdrlen_zero", ip6() / IPv6ExtHdrSegmentRouting(
        addresses=[], len=0, segleft=0, lastentry=0) / inner,
        "LEN", srh_off + 1)
    # Hdr Ext Len beyond the packet.
    p = ip6() / IPv6ExtHdrSegmentRouting(
        addresses=list(reversed(s3)), len=12, segleft=1, lastentry=2) / UDP()
    bad("hdrlen_past_end", p, "TRUNC", srh_off + 1)
    # A TLV whose length runs one byte past the SRH.
    p = ip6() / IPv6ExtHdrSegmentRouting(
        addresses=list(reversed(s3)), segleft=1, lastentry=2,
        tlv_objects=[IPv6ExtHdrSegmentRoutingTLVPadN(len=7, padding=b"\0" * 6)],
        len=7) / inner
    bad("tlv_overrun_1", p, "TLV", srh_off + 8 + 48 + 1)
    # SRH behind hop-by-hop + destination options, SL too big.
    p = ip6() / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() / \
        IPv6ExtHdrSegmentRouting(addresses=list(reversed(s3)),
                                 segleft=9, lastentry=2) / inner
    bad("hbh_dst_sl_bad", p, "SL", 40 + 8 + 8 + 3)
    # Hop-by-hop not first.
    p = ip6() / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() / inner
    bad("hbh_not_first", p, "CHAIN", 40)
    # Payload Length larger than the packet.
    p = IPv6(bytes(ip6() / IPv6ExtHdrSegmentRouting(
        addresses=list(reversed(s3)), segleft=1, lastentry=2) / inner))
    p.plen += 1
    bad("plen_past_end", p, "TRUNC", 4)
    return out


def icmp_lines():
    """icmp NAME TYPE CODE POINTER ORIG_HEX MSG_HEX: the ICMPv6 message
    (checksum included) scapy builds answering ORIG from ORIG's destination
    to ORIG's source; errors quote ORIG up to 1280 bytes in all."""
    s3 = segs_n(3)
    inner = IPv6(src="2001:db8:1::1", dst="2001:db8:2::2") / UDP() / (b"z" * 8)
    echo = ICMPv6EchoRequest(id=0xbeef, seq=3, data=b"0123456789abcdef!")
    cases = [
        ("pp_sl", 4, 0, 43, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=5, lastentry=2) / inner),
        ("pp_upper", 4, 4, 40, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=0, lastentry=2) /
         UDP(sport=9, dport=9)),
        ("time_exceeded", 3, 0, 0, ip6(hlim=1) / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=1, lastentry=2) / echo),
        ("dest_unreach", 1, 0, 0, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=1, lastentry=2) / inner),
        ("too_big", 2, 0, 1400, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=1, lastentry=2) / inner),
        ("quote_1500", 4, 0, 43, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=7, lastentry=2) /
         IPv6(src="2001:db8:1::1", dst="2001:db8:2::2") / UDP() /
         (b"q" * (1500 - 40 - 56 - 40 - 8))),
        ("echo_srh", 129, 0, 0, ip6() / IPv6ExtHdrSegmentRouting(
            addresses=list(reversed(s3)), segleft=0, lastentry=2) / echo),
        ("echo_plain", 129, 0, 0, ip6() / echo),
        ("echo_empty", 129, 0, 0, ip6() / ICMPv6EchoRequest(id=1, seq=2)),
    ]
    out = []
    for name, typ, code, ptr, orig in cases:
        raw = bytes(orig)
        o = IPv6(raw)
        rev = IPv6(src=o.dst, dst=o.src)
        if typ == 129:
            req = o[ICMPv6EchoRequest]
            msg = rev / ICMPv6EchoReply(id=req.id, seq=req.seq, data=req.data)
        else:
            quote = Raw(raw[:1280 - 48])
            cls = {1: ICMPv6DestUnreach, 3: ICMPv6TimeExceeded}
            if typ == 4:
                icmp = ICMPv6ParamProblem(code=code, ptr=ptr)
            elif typ == 2:
                icmp = ICMPv6PacketTooBig(code=code, mtu=ptr)
            else:
                icmp = cls[typ](code=code)
            msg = rev / icmp / quote
        body = bytes(IPv6(bytes(msg)).payload)
        assert len(body) + 40 <= 1280 or typ == 129
        out.append("icmp %s %d %d %d %s %s" % (name, typ, code, ptr,
                                              raw.hex(), body.hex()))
    return out


def write_corpus(d):
    """Seed corpus for tests/fuzz/fuzz_srh.c: every parse/bad/icmp vector
    packet plus a few hand-made malformed classes."""
    import os
    os.makedirs(d, exist_ok=True)
    seeds = {}
    for line in parse_lines() + bad_lines():
        f = line.split(" ")
        seeds[f[0] + "_" + f[1]] = bytes.fromhex(f[2])
    for line in icmp_lines():
        f = line.split(" ")
        seeds["icmp_" + f[1]] = bytes.fromhex(f[5])
    s1 = segs_n(1)
    # Pad1 run (raw: scapy's Pad1 class has a length byte, RFC 8754's not)
    srh = bytearray(bytes(IPv6ExtHdrSegmentRouting(
        nh=59, addresses=s1, segleft=0, lastentry=0, len=3)))
    srh += bytes(8)
    seeds["pad1_run"] = bytes(ip6(plen=len(srh), nh=43)) + bytes(srh)
    # nine destination options headers: chain too long
    p = ip6()
    for _ in range(9):
        p = p / IPv6ExtHdrDestOpt()
    seeds["chain_9_dstopts"] = bytes(p / UDP())
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def main():
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    if len(sys.argv) > 2 and sys.argv[1] == "--corpus":
        write_corpus(sys.argv[2])
        return
    path = sys.argv[1] if len(sys.argv) > 1 else here + "/srh.txt"
    head = ["# generated by tests/unit/vectors/gen_srh.py (scapy); do not edit"]
    with open(path, "w") as f:
        f.write("\n".join(head + build_lines() + parse_lines() +
                          bad_lines()) + "\n")
    ipath = path.rsplit("/", 1)[0] + "/icmp6.txt" if "/" in path \
        else "icmp6.txt"
    with open(ipath, "w") as f:
        f.write("\n".join(head + icmp_lines()) + "\n")


if __name__ == "__main__":
    main()
