#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen_seg6.py - independent reference vectors for the srv6d packet engine.

Builds, with scapy, an input packet and the packet the Linux kernel
(net/ipv6/seg6_local.c, seg6_iptunnel.c) -- or, where the kernel has no
such behavior, RFC 8986 / RFC 9800 -- produces from it, and writes one case
per line to seg6.txt:

  kind=sid|headend name=NAME key=value ... verdict=V [icmp=T/C/P]
  [reason=R] in=HEX out=HEX

SID keys: action flavors lblen nflen nh6 nh4 table vrftable oif segs src
flowlabel.  Headend keys: mode inner segs src flowlabel.  verdict is
forward6, forward4, l2, icmp or drop; for icmp and drop the packet is left
as received (out == in) and reason is the drop reason counted (reason()).  The expected bytes are written from the kernel's
source, never from srv6d's C code: tests/unit/test_seg6.c compares.

Run: /usr/bin/python3 tests/unit/vectors/gen_seg6.py > tests/unit/vectors/seg6.txt
"""
import ipaddress
import sys

from scapy.all import Ether, IP, IPv6, UDP, TCP, ICMPv6EchoRequest, Raw
from scapy.layers.inet6 import (IPv6ExtHdrSegmentRouting, IPv6ExtHdrHopByHop,
                                IPv6ExtHdrDestOpt)

SID = "fc00:0:1::100"
SRC = "2001:db8:ffff::1"
ENC_SRC = "fc00:0:1::1"
S2, S3, S4 = "fc00:0:2::100", "fc00:0:3::100", "fc00:0:4::100"
B1, B2, B3 = "fc00:0:b1::1", "fc00:0:b2::1", "fc00:0:b3::1"

out = []


def srh(travel, sl=None, le=None, nh=41, hlen=None):
    """An SRH for segments in travel order (stored reversed on the wire)."""
    kw = dict(addresses=list(reversed(travel)), nh=nh)
    if sl is not None:
        kw["segleft"] = sl
    if le is not None:
        kw["lastentry"] = le
    if hlen is not None:
        kw["len"] = hlen
    return IPv6ExtHdrSegmentRouting(**kw)


def inner6(hlim=33, tc=0x2e, fl=0x12345):
    return bytes(IPv6(src="2001:db8::1", dst="2001:db8::2", tc=tc, fl=fl,
                      hlim=hlim) / UDP(sport=1234, dport=5678) /
                 b"hello srv6 inner v6")


def inner4(ttl=17, tos=0x28):
    return bytes(IP(src="192.0.2.1", dst="198.51.100.2", ttl=ttl, tos=tos) /
                 UDP(sport=4321, dport=8765) / b"hello srv6 inner v4")


def inner_eth(payload=None):
    if payload is None:
        payload = IP(src="192.0.2.1", dst="198.51.100.2") / UDP() / b"l2"
    return bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") /
                 payload)


def outer(dst, nh, hlim=64, tc=0, fl=0, src=SRC):
    return IPv6(src=src, dst=dst, nh=nh, hlim=hlim, tc=tc, fl=fl)


DECAP = ("End.DX6", "End.DX4", "End.DT6", "End.DT4", "End.DT46", "End.DX2")


def reason(pin, verdict, icmp, action):
    """The drop reason counted for an icmp/drop vector, from RFC 8986: an
    Echo Reply is processing, not an error; Time Exceeded is the hop limit;
    Parameter Problem code 0 is an invalid SRH, or Segments Left != 0 at a
    decapsulating behavior with a valid SRH; code 4 (upper layer) is a wrong
    inner packet at a decapsulating behavior, else SL 0 with an SRH, else no
    SRH at all."""
    if verdict in ("forward6", "forward4", "l2") or icmp[0] == 129:
        return "none"
    if icmp[0] == 3:
        return "hop-limit"
    p = IPv6(bytes(pin))
    h = p.getlayer(IPv6ExtHdrSegmentRouting) if p.version == 6 else None
    if icmp[:2] == (4, 0):
        valid = (h is not None and h.segleft <= h.lastentry + 1 and
                 h.lastentry <= h.len // 2 - 1)
        return "sl-nonzero" if action in DECAP and valid else "srh-invalid"
    assert icmp[:2] == (4, 4), icmp
    if action in DECAP:
        return "bad-inner"
    return "sl-zero" if h is not None else "no-srh"


def add(kind, name, pin, pout, verdict, icmp=None, **kw):
    fields = ["kind=" + kind, "name=" + name]
    for k, v in kw.items():
        fields.append("%s=%s" % (k, v))
    fields.append("verdict=" + verdict)
    if icmp:
        fields.append("icmp=%d/%d/%d" % icmp)
    if verdict not in ("forward6", "forward4", "l2"):
        fields.append("reason=" + reason(pin, verdict, icmp, kw.get("action")))
    pin = bytes(pin)
    pout = bytes(pout) if pout is not None else pin
    fields.append("in=" + pin.hex())
    fields.append("out=" + pout.hex())
    out.append(" ".join(fields))


def sid(name, pin, pout, verdict, icmp=None, **kw):
    add("sid", name, pin, pout, verdict, icmp, **kw)


def headend(name, pin, pout, verdict="forward6", **kw):
    add("headend", name, pin, pout, verdict, **kw)


def csid_shift(addr, lb, nf):
    """RFC 9800 S05-S06: DA.Argument moves to bits [LB..], the rest zeroed."""
    a = int(ipaddress.IPv6Address(addr))
    al = 128 - lb - nf
    block = a >> (128 - lb)
    arg = a & ((1 << al) - 1)
    new = (block << (128 - lb)) | (arg << nf)
    return str(ipaddress.IPv6Address(new))


I6 = inner6()
I4 = inner4()
UDP6 = bytes(UDP(sport=7, dport=9) / b"upper layer")

# ---------------- End / End.X / End.T: seg6_local.c advance_nextseg() ----
# SL 2 -> 1: DA = segments[1]; nothing else changes (hop limit left to
# ip6_forward()).
travel = [SID, S2, S3]
pin = outer(SID, 43) / srh(travel, sl=2) / Raw(I6)
pout = outer(S2, 43) / srh(travel, sl=1) / Raw(I6)
sid("end_sl2", pin, pout, "forward6", action="End")
sid("endx_sl2", pin, pout, "forward6", action="End.X", nh6="fc00::2")
sid("endx_oif_sl2", pin, pout, "forward6", action="End.X", nh6="fc00::2",
    oif=7)
sid("endt_sl2", pin, pout, "forward6", action="End.T", table=100)
# SL 1 -> 0: DA = segments[0]
travel2 = [SID, S2]
pin = outer(SID, 43) / srh(travel2, sl=1) / Raw(I6)
pout = outer(S2, 43) / srh(travel2, sl=0) / Raw(I6)
sid("end_sl1", pin, pout, "forward6", action="End")
sid("endt_sl1", pin, pout, "forward6", action="End.T", table=5)
# SL = LE + 1 (reduced SRH): the first SID is not in the list
red = [SID, S2, S3]
pin = outer(SID, 43) / IPv6ExtHdrSegmentRouting(
    addresses=[S3, S2], segleft=2, lastentry=1, nh=41) / Raw(I6)
pout = outer(S2, 43) / IPv6ExtHdrSegmentRouting(
    addresses=[S3, S2], segleft=1, lastentry=1, nh=41) / Raw(I6)
sid("end_reduced_sl_le1", pin, pout, "forward6", action="End")
# hop limit 2 is fine, and is not decremented
pin = outer(SID, 43, hlim=2) / srh(travel, sl=2) / Raw(I6)
pout = outer(S2, 43, hlim=2) / srh(travel, sl=1) / Raw(I6)
sid("end_hlim2", pin, pout, "forward6", action="End")
# SRH behind hop-by-hop and destination options
pin = (outer(SID, 0) / IPv6ExtHdrHopByHop(nh=60) / IPv6ExtHdrDestOpt(nh=43) /
       srh(travel, sl=2) / Raw(I6))
pout = (outer(S2, 0) / IPv6ExtHdrHopByHop(nh=60) / IPv6ExtHdrDestOpt(nh=43) /
        srh(travel, sl=1) / Raw(I6))
sid("end_behind_hbh_dopt", pin, pout, "forward6", action="End")

# ---------------- PSP (seg6_pop_srh(); RFC 8986 §4.16.1) ----------------
pin = outer(SID, 43) / srh(travel2, sl=1) / Raw(I6)
pout = outer(S2, 41) / Raw(I6)
sid("end_psp_pop", pin, pout, "forward6", action="End", flavors="psp")
sid("endx_psp_pop", pin, pout, "forward6", action="End.X", nh6="fc00::2",
    flavors="psp")
sid("endt_psp_usd_pop", pin, pout, "forward6", action="End.T", table=9,
    flavors="psp,usd")
pin = outer(SID, 43) / srh(travel, sl=2) / Raw(I6)
pout = outer(S2, 43) / srh(travel, sl=1) / Raw(I6)
sid("end_psp_sl2_keep", pin, pout, "forward6", action="End", flavors="psp")
pin = outer(SID, 0) / IPv6ExtHdrHopByHop(nh=43) / srh(travel2, sl=1) / Raw(I6)
pout = outer(S2, 0) / IPv6ExtHdrHopByHop(nh=41) / Raw(I6)
sid("end_psp_pop_behind_hbh", pin, pout, "forward6", action="End",
    flavors="psp")
pin = outer(SID, 43) / srh(travel2, sl=1, nh=4) / Raw(I4)
pout = outer(S2, 4) / Raw(I4)
sid("end_psp_pop_v4", pin, pout, "forward6", action="End", flavors="psp,usp")

# ---------------- SL == 0 / no SRH: RFC 8986 §4.1 S02-S03, §4.1.1 --------
echo = bytes(ICMPv6EchoRequest(id=0x1234, seq=7, data=b"ping the sid"))
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=58) / Raw(echo)
sid("end_sl0_echo", pin, None, "icmp", (129, 0, 0), action="End")
sid("endx_sl0_echo", pin, None, "icmp", (129, 0, 0), action="End.X",
    nh6="fc00::2")
sid("end_usp_sl0_echo", pin, None, "icmp", (129, 0, 0), action="End",
    flavors="usp")
pin = outer(SID, 58) / Raw(echo)
sid("end_nosrh_echo", pin, None, "icmp", (129, 0, 0), action="End")
sid("dt6_nosrh_echo", pin, None, "icmp", (129, 0, 0), action="End.DT6",
    table=100)
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=17) / Raw(UDP6)
sid("end_sl0_udp", pin, None, "icmp", (4, 4, 40 + 8 + 32), action="End")
sid("endt_sl0_udp", pin, None, "icmp", (4, 4, 80), action="End.T", table=3)
sid("b6_sl0_udp", pin, None, "icmp", (4, 4, 80), action="End.B6",
    segs=B1)
sid("b6encaps_sl0_udp", pin, None, "icmp", (4, 4, 80),
    action="End.B6.Encaps", segs=B1, src=ENC_SRC)
pin = outer(SID, 17) / Raw(UDP6)
sid("end_nosrh_udp", pin, None, "icmp", (4, 4, 40), action="End")
# hop limit is not looked at for SL == 0 (S02 comes before S05)
pin = outer(SID, 43, hlim=1) / srh([S2, SID], sl=0, nh=58) / Raw(echo)
sid("end_sl0_hlim1_echo", pin, None, "icmp", (129, 0, 0), action="End")

# USD (RFC 8986 §4.16.3): SL == 0 with an inner packet -> decapsulate
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=41) / Raw(I6)
sid("end_usd_v6", pin, I6, "forward6", action="End", flavors="usd")
sid("endx_usd_v6", pin, I6, "forward6", action="End.X", nh6="fc00::9",
    flavors="usp,usd")
sid("endt_usd_v6", pin, I6, "forward6", action="End.T", table=8,
    flavors="psp,usp,usd")
sid("end_nousd_v6", pin, None, "icmp", (4, 4, 80), action="End")
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=4) / Raw(I4)
sid("end_usd_v4", pin, I4, "forward4", action="End", flavors="usd")
pin = outer(SID, 4) / Raw(I4)
sid("end_usd_nosrh_v4", pin, I4, "forward4", action="End", flavors="usd")
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=17) / Raw(UDP6)
sid("end_usd_sl0_udp", pin, None, "icmp", (4, 4, 80), action="End",
    flavors="usd")

# ---------------- hop limit (RFC 8986 §4.1 S05-S06) ----------------------
pin = outer(SID, 43, hlim=1) / srh(travel, sl=2) / Raw(I6)
sid("end_hlim1", pin, None, "icmp", (3, 0, 0), action="End")
sid("endx_hlim1", pin, None, "icmp", (3, 0, 0), action="End.X",
    nh6="fc00::2")
sid("b6encaps_hlim1", pin, None, "icmp", (3, 0, 0), action="End.B6.Encaps",
    segs=B1, src=ENC_SRC)
pin = outer(SID, 43, hlim=0) / srh(travel, sl=2) / Raw(I6)
sid("end_hlim0", pin, None, "icmp", (3, 0, 0), action="End")

# ---------------- invalid SRH (RFC 8986 §4.1 S08-S10) --------------------
# SL = LE + 2
pin = outer(SID, 43) / srh(travel, sl=4, le=2) / Raw(I6)
sid("end_sl_le2", pin, None, "icmp", (4, 0, 43), action="End")
# Linux decapsulates anyway: seg6_get_srh() finds no valid SRH, so
# decap_and_validate() has no Segments Left to refuse (docs/BEHAVIORS.md);
# kout= is the inner packet the kernel delivers.
sid("dt6_sl_le2", pin, None, "icmp", (4, 0, 43), action="End.DT6", table=1,
    kout=bytes(I6).hex())
# SL = 255
pin = outer(SID, 43) / srh(travel, sl=255) / Raw(I6)
sid("end_sl255", pin, None, "icmp", (4, 0, 43), action="End")
# Last Entry > max_LE (hdrlen 6 -> max_LE 2; LE 3)
pin = outer(SID, 43) / srh(travel, sl=1, le=3) / Raw(I6)
sid("end_le_gt_max", pin, None, "icmp", (4, 0, 43), action="End")
# hop limit is checked before the SRH (S05 before S09) ...
pin = outer(SID, 43, hlim=1) / srh(travel, sl=4, le=2) / Raw(I6)
sid("end_hlim1_sl_le2", pin, None, "icmp", (3, 0, 0), action="End")
# ... but not by the decapsulating behaviors, which have no S05
sid("dt6_hlim1_sl_le2", pin, None, "icmp", (4, 0, 43), action="End.DT6",
    table=1, kout=bytes(I6).hex())
# SL 0 with Last Entry > max_LE: srv6d reports the SRH (docs/BEHAVIORS.md)
pin = outer(SID, 43) / srh(travel, sl=0, le=3) / Raw(I6)
sid("end_sl0_le_gt_max", pin, None, "icmp", (4, 0, 43), action="End")
# behind hop-by-hop: the pointer counts from the IPv6 header
pin = (outer(SID, 0) / IPv6ExtHdrHopByHop(nh=43) / srh(travel, sl=4, le=2) /
       Raw(I6))
sid("end_sl_le2_behind_hbh", pin, None, "icmp", (4, 0, 51), action="End")

# ---------------- decapsulation (RFC 8986 §4.4-§4.9) ---------------------
for act, kw in (("End.DX6", dict(nh6="::")), ("End.DX6", dict(nh6="fc00::7")),
                ("End.DT6", dict(table=100)), ("End.DT6", dict(vrftable=10)),
                ("End.DT46", dict(vrftable=10))):
    tag = act.replace(".", "").lower() + "_" + "_".join(
        "%s%s" % (k, "" if v in ("::", "0.0.0.0") else "x")
        for k, v in kw.items())
    pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=41) / Raw(I6)
    sid(tag + "_sl0", pin, I6, "forward6", action=act, **kw)
    pin = outer(SID, 41) / Raw(I6)
    sid(tag + "_nosrh", pin, I6, "forward6", action=act, **kw)
    pin = (outer(SID, 43) / srh([SID, S2], sl=0, nh=60) /
           IPv6ExtHdrDestOpt(nh=41) / Raw(I6))
    sid(tag + "_sl0_dopt", pin, I6, "forward6", action=act, **kw)
    pin = outer(SID, 43) / srh([SID, S2], sl=1, nh=41) / Raw(I6)
    sid(tag + "_sl1", pin, None, "icmp", (4, 0, 43), action=act, **kw)
    pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=17) / Raw(UDP6)
    sid(tag + "_udp", pin, None, "icmp", (4, 4, 80), action=act, **kw)
for act, kw in (("End.DX4", dict(nh4="0.0.0.0")),
                ("End.DX4", dict(nh4="192.0.2.254")),
                ("End.DT4", dict(table=100)), ("End.DT4", dict(vrftable=10)),
                ("End.DT46", dict(table=100))):
    tag = act.replace(".", "").lower() + "_" + "_".join(
        "%s%s" % (k, "" if v in ("::", "0.0.0.0") else "x")
        for k, v in kw.items())
    pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=4) / Raw(I4)
    sid(tag + "_sl0", pin, I4, "forward4", action=act, **kw)
    pin = outer(SID, 4) / Raw(I4)
    sid(tag + "_nosrh", pin, I4, "forward4", action=act, **kw)
    pin = outer(SID, 43) / srh([SID, S2, S3], sl=2, nh=4) / Raw(I4)
    sid(tag + "_sl2", pin, None, "icmp", (4, 0, 43), action=act, **kw)
    if act != "End.DT46":
        pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=41) / Raw(I6)
        sid(tag + "_v6inner", pin, None, "icmp", (4, 4, 80), action=act,
            **kw)
eth = inner_eth()
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=143) / Raw(eth)
sid("dx2_sl0", pin, eth, "l2", action="End.DX2", oif=3)
pin = outer(SID, 143) / Raw(eth)
sid("dx2_nosrh", pin, eth, "l2", action="End.DX2", oif=3)
pin = outer(SID, 43) / srh([S2, SID], sl=0, nh=41) / Raw(I6)
sid("dx2_v6inner", pin, None, "icmp", (4, 4, 80), action="End.DX2", oif=3)
pin = outer(SID, 43) / srh([SID, S2], sl=1, nh=143) / Raw(eth)
sid("dx2_sl1", pin, None, "icmp", (4, 0, 43), action="End.DX2", oif=3)

# ---------------- End.B6: seg6_do_srh_inline(), no advance ----------------
# iproute2 parse_srh(encap = false): one extra slot, segments[0], which the
# kernel fills with the current DA; DA = first new segment.
pin = outer(SID, 43) / srh([SID, S2], sl=1) / Raw(I6)
pout = (outer(B1, 43) /
        IPv6ExtHdrSegmentRouting(addresses=[SID, B2, B1], segleft=2,
                                 lastentry=2, nh=43) /
        srh([SID, S2], sl=1) / Raw(I6))
sid("b6_two", pin, pout, "forward6", action="End.B6", segs=B1 + "," + B2)
pout = (outer(B1, 43) /
        IPv6ExtHdrSegmentRouting(addresses=[SID, B1], segleft=1,
                                 lastentry=1, nh=43) /
        srh([SID, S2], sl=1) / Raw(I6))
sid("b6_one", pin, pout, "forward6", action="End.B6", segs=B1)
# behind hop-by-hop: the kernel inserts right after the IPv6 header
pin = outer(SID, 0) / IPv6ExtHdrHopByHop(nh=43) / srh([SID, S2], sl=1) / Raw(I6)
pout = (outer(B1, 43) /
        IPv6ExtHdrSegmentRouting(addresses=[SID, B1], segleft=1,
                                 lastentry=1, nh=0) /
        IPv6ExtHdrHopByHop(nh=43) / srh([SID, S2], sl=1) / Raw(I6))
sid("b6_behind_hbh", pin, pout, "forward6", action="End.B6", segs=B1)

# ---------------- End.B6.Encaps(.Red): advance, then seg6_do_srh_encap ---
# Outer: tc, flow label (seg6_flowlabel 0: copied) and hop limit of the
# (advanced) inner IPv6 header; SRH nexthdr 41; DA = first new segment.
pin = outer(SID, 43, hlim=50, tc=0xb8, fl=0xabcde) / srh([SID, S2], sl=1) / \
    Raw(I6)
inner_adv = outer(S2, 43, hlim=50, tc=0xb8, fl=0xabcde) / \
    srh([SID, S2], sl=0) / Raw(I6)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=50, tc=0xb8, fl=0xabcde) /
        srh([B1, B2], sl=1, nh=41) / inner_adv)
sid("b6encaps_two", pin, pout, "forward6", action="End.B6.Encaps",
    segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=50, tc=0xb8, fl=0) /
        srh([B1, B2], sl=1, nh=41) / inner_adv)
sid("b6encaps_fl_zero", pin, pout, "forward6", action="End.B6.Encaps",
    segs=B1 + "," + B2, src=ENC_SRC, flowlabel=-1)
# .Red (srv6d only; seg6_do_srh_encap_red() rules): first segment omitted,
# LE = n - 2, SL = n - 1; no SRH at all for one segment.
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=50, tc=0xb8, fl=0xabcde) /
        IPv6ExtHdrSegmentRouting(addresses=[B3, B2], segleft=2, lastentry=1,
                                 nh=41) / inner_adv)
sid("b6encapsred_three", pin, pout, "forward6", action="End.B6.Encaps.Red",
    segs=",".join([B1, B2, B3]), src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=41, hlim=50, tc=0xb8, fl=0xabcde) /
        inner_adv)
sid("b6encapsred_one", pin, pout, "forward6", action="End.B6.Encaps.Red",
    segs=B1, src=ENC_SRC, flowlabel=0)

# ---------------- NEXT-C-SID (RFC 9800; end_next_csid_core()) ------------
for lb, nf in ((32, 16), (48, 16), (64, 16), (16, 16), (40, 24), (16, 32),
               (64, 32), (112, 8)):
    blk = (0x2001_0db8_1234_5678_9abc_def0_1122_3344 >> (128 - lb)) << (128 - lb)
    # DA = block | node(nf bits, 0x..11) | argument: next C-SIDs, non-zero
    node = (1 << (nf - 1)) | 0x11
    al = 128 - lb - nf
    arg = ((0xbeef << (al - 16)) | 0x42) if al >= 16 else 0x5a
    da_int = blk | (node << al) | arg
    da = str(ipaddress.IPv6Address(da_int))
    nda = csid_shift(da, lb, nf)
    fl = dict(flavors="next-csid", lblen=lb, nflen=nf)
    # argument non-zero: shift, SRH untouched (even with SL > 0)
    pin = outer(da, 43) / srh([da, S2], sl=1) / Raw(I6)
    pout = outer(nda, 43) / srh([da, S2], sl=1) / Raw(I6)
    sid("csid_%d_%d_srh" % (lb, nf), pin, pout, "forward6", action="End",
        **fl)
    pin = outer(da, 41) / Raw(I6)
    pout = outer(nda, 41) / Raw(I6)
    sid("csid_%d_%d_nosrh" % (lb, nf), pin, pout, "forward6",
        action="End.X", nh6="fc00::2", **fl)
    # argument zero: regular End (advance the SRH)
    da0 = str(ipaddress.IPv6Address(blk | (node << al)))
    pin = outer(da0, 43) / srh([da0, S2], sl=1) / Raw(I6)
    pout = outer(S2, 43) / srh([da0, S2], sl=0) / Raw(I6)
    sid("csid_%d_%d_arg0" % (lb, nf), pin, pout, "forward6", action="End",
        **fl)
    # hop limit checked before the shift (RFC 9800 S02)
    pin = outer(da, 41, hlim=1) / Raw(I6)
    sid("csid_%d_%d_hlim1" % (lb, nf), pin, None, "icmp", (3, 0, 0),
        action="End", **fl)
# a non-zero argument is consumed before the SRH is validated (RFC 9800
# S01; end_next_csid_core() never looks at the SRH)
da = "2001:db8:100:200:300::"
pin = outer(da, 43) / srh([da, S2], sl=5, le=1) / Raw(I6)
pout = outer("2001:db8:200:300::", 43) / srh([da, S2], sl=5, le=1) / Raw(I6)
sid("csid_arg_bad_srh", pin, pout, "forward6", action="End",
    flavors="next-csid")
# lblen + nflen = 128: no argument, always regular End
da = "2001:db8:1234:5678:9abc:def0:1122:3344"
pin = outer(da, 43) / srh([da, S2], sl=1) / Raw(I6)
pout = outer(S2, 43) / srh([da, S2], sl=0) / Raw(I6)
sid("csid_64_64_noarg", pin, pout, "forward6", action="End",
    flavors="next-csid", lblen=64, nflen=64)
# NEXT-C-SID + PSP (RFC 9800 §4.1.3: PSP unchanged): argument zero at the
# penultimate SID pops the SRH
da0 = "2001:db8:100::"
# The kernel accepts "flavors psp,next-csid" on End but its
# end_next_csid_core() falls back to input_action_end_core(), which never
# pops: a documented deviation (docs/BEHAVIORS.md).  kout= is what the
# kernel does, for tests/net/test_seg6_vectors.sh.
pin = outer(da0, 43) / srh([da0, S2], sl=1) / Raw(I6)
pout = outer(S2, 41) / Raw(I6)
kout = outer(S2, 43) / srh([da0, S2], sl=0) / Raw(I6)
sid("csid_psp_arg0_pop", pin, pout, "forward6", action="End",
    flavors="psp,next-csid", kout=bytes(kout).hex())
da = "2001:db8:100:200:300::"
pin = outer(da, 43) / srh([da, S2], sl=1) / Raw(I6)
pout = outer("2001:db8:200:300::", 43) / srh([da, S2], sl=1) / Raw(I6)
sid("csid_psp_arg_shift", pin, pout, "forward6", action="End",
    flavors="psp,next-csid")
# argument zero and no SRH: upper layer (RFC 8986 §4.1.1)
pin = outer(da0, 17) / Raw(UDP6)
sid("csid_arg0_nosrh_udp", pin, None, "icmp", (4, 4, 40), action="End",
    flavors="next-csid")

# ---------------- headend (seg6_iptunnel.c) ------------------------------
# encap, IPv6 inner: tc/flow label/hop limit inherited (seg6_flowlabel 0)
I6h = inner6(hlim=61, tc=0x88, fl=0x54321)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=61, tc=0x88, fl=0x54321) /
        srh([B1, B2, B3], nh=41) / Raw(I6h))
headend("encap_v6", I6h, pout, mode="encap", inner=41,
        segs=",".join([B1, B2, B3]), src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=61, tc=0x88, fl=0) /
        srh([B1, B2, B3], nh=41) / Raw(I6h))
headend("encap_v6_fl_zero", I6h, pout, mode="encap", inner=41,
        segs=",".join([B1, B2, B3]), src=ENC_SRC, flowlabel=-1)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=61, tc=0x88, fl=0x54321) /
        srh([B1], nh=41) / Raw(I6h))
headend("encap_v6_one", I6h, pout, mode="encap", inner=41, segs=B1,
        src=ENC_SRC, flowlabel=0)
# encap, IPv4 inner: tc 0, flow label 0, hop limit ip6_dst_hoplimit() = 64
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=64, tc=0, fl=0) /
        srh([B1, B2], nh=4) / Raw(I4))
headend("encap_v4", I4, pout, mode="encap", inner=4, segs=B1 + "," + B2,
        src=ENC_SRC, flowlabel=0)
# encap.red
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=61, tc=0x88, fl=0x54321) /
        IPv6ExtHdrSegmentRouting(addresses=[B3, B2], segleft=2, lastentry=1,
                                 nh=41) / Raw(I6h))
headend("encapred_v6_three", I6h, pout, mode="encap.red", inner=41,
        segs=",".join([B1, B2, B3]), src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=61, tc=0x88, fl=0x54321) /
        IPv6ExtHdrSegmentRouting(addresses=[B2], segleft=1, lastentry=0,
                                 nh=41) / Raw(I6h))
headend("encapred_v6_two", I6h, pout, mode="encap.red", inner=41,
        segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=41, hlim=61, tc=0x88, fl=0x54321) /
        Raw(I6h))
headend("encapred_v6_one", I6h, pout, mode="encap.red", inner=41, segs=B1,
        src=ENC_SRC, flowlabel=0)
pout = IPv6(src=ENC_SRC, dst=B1, nh=4, hlim=64) / Raw(I4)
headend("encapred_v4_one", I4, pout, mode="encap.red", inner=4, segs=B1,
        src=ENC_SRC, flowlabel=0)
# inline (H.Insert): slot segments[0] = original DA
pout = (IPv6(src="2001:db8::1", dst=B1, nh=43, hlim=61, tc=0x88,
             fl=0x54321) /
        IPv6ExtHdrSegmentRouting(addresses=["2001:db8::2", B2, B1],
                                 segleft=2, lastentry=2, nh=17) /
        Raw(I6h[40:]))
headend("inline_two", I6h, pout, mode="inline", inner=41,
        segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)
# l2encap: a frame carrying IPv6 inherits from that IPv6 header (the
# kernel's ipv6_hdr(skb) with skb->protocol = ETH_P_IPV6); other frames
# get tc 0 / hop limit 64
eth6 = inner_eth(IPv6(src="2001:db8::1", dst="2001:db8::2", hlim=12, tc=0x20,
                      fl=0xfedc) / UDP() / b"l2v6")
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=12, tc=0x20, fl=0xfedc) /
        srh([B1, B2], nh=143) / Raw(eth6))
headend("l2encap_v6frame", eth6, pout, mode="l2encap", inner=143,
        segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=64) /
        srh([B1, B2], nh=143) / Raw(eth))
headend("l2encap_v4frame", eth, pout, mode="l2encap", inner=143,
        segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)
pout = (IPv6(src=ENC_SRC, dst=B1, nh=43, hlim=64) /
        IPv6ExtHdrSegmentRouting(addresses=[B2], segleft=1, lastentry=0,
                                 nh=143) / Raw(eth))
headend("l2encapred_v4frame", eth, pout, mode="l2encap.red", inner=143,
        segs=B1 + "," + B2, src=ENC_SRC, flowlabel=0)

sys.stdout.write("# generated by tests/unit/vectors/gen_seg6.py; do not edit\n")
sys.stdout.write("\n".join(out) + "\n")

names = [line.split()[1] for line in out]
assert len(names) == len(set(names)), "duplicate case names"
