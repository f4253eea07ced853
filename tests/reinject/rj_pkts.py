#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rj_pkts.py - input packets of the reinjection suite (run with /usr/bin/python3).

  rj_pkts.py CASE     one packet as hex, sent from src (2001:db8:1::1) to the
                      kernel's seg6local SID of CASE on rtr, or (encap6,
                      encap4) to a destination of rtr's seg6 encap routes
                      (tests/reinject/lib.sh and docs/REINJECTION.md)
  rj_pkts.py --all    every case, one "CASE HEX" line each (lib.sh reads
                      them once: a Python start costs seconds in the VM)
"""
import sys

from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
from scapy.packet import Raw

SRC = "2001:db8:1::1"
DST = "2001:db8:2::2"
PAY = Raw(b"srv6d-reinject-0123456789abcdef")


def seg(sid, segs, inner):
    """IPv6 to @sid with an SRH [segs..., sid] (travel order reversed), SL 1 or more."""
    addrs = list(segs) + [sid]
    return (IPv6(src=SRC, dst=sid, hlim=64) /
            IPv6ExtHdrSegmentRouting(addresses=addrs, segleft=len(addrs) - 1) / inner)


def udp6(dst):
    return IPv6(src=SRC, dst=dst, hlim=64) / UDP(sport=4000, dport=5000) / PAY


def cases():
    s = "2001:db8:5::"
    u = UDP(sport=4000, dport=5000) / PAY
    return {
        "end": seg(s + "1", [DST], u),
        "end-x": seg(s + "2", [DST], u),
        "end-t": seg(s + "3", ["2001:db8:cc::5"], u),
        "end-dx6": IPv6(src=SRC, dst=s + "4", hlim=64, nh=41) / udp6(DST),
        "end-dx4": IPv6(src=SRC, dst=s + "5", hlim=64, nh=4) /
        IP(src="198.51.100.1", dst="192.0.2.2", ttl=64) / u,
        "end-dt6": IPv6(src=SRC, dst=s + "6", hlim=64, nh=41) / udp6("2001:db8:cc::7"),
        # End.DT4 vrftable 200 (test_reinject_noref.sh adds SID 9 and the VRF)
        "end-dt4": IPv6(src=SRC, dst=s + "9", hlim=64, nh=4) /
        IP(src="198.51.100.1", dst="192.0.2.2", ttl=64) / u,
        "end-b6": seg(s + "7", ["2001:db8:aa::1"], u),
        "end-b6-encaps": seg(s + "8", ["2001:db8:aa::1"], u),
        # plain packets routed by rtr's `encap seg6 mode encap` routes
        "encap6": udp6("2001:db8:e6::9"),
        "encap4": IP(src="198.51.100.1", dst="203.0.113.9", ttl=64) / u,
    }


if __name__ == "__main__":
    if sys.argv[1] == "--all":
        for name, p in cases().items():
            print(name, bytes(p).hex())
    else:
        print(bytes(cases()[sys.argv[1]]).hex())
