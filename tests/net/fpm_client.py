#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""fpm_client.py - stands in for zebra's dplane_fpm_nl in the namespace tests:
connects to srv6d's FPM listener and sends frames (version 1, type 1, BE16
length including the 4-byte header) holding rtnetlink messages encoded as the
kernel's rtnetlink and zebra's netlink_route_multipath_msg_encode() lay them
out (one message per frame, attributes 4-byte aligned).

  fpm_client.py HOST PORT OP...

OPs, run in order:
  sid PREFIX ACTION [nh6 ADDR] [table N]   RTM_NEWROUTE, encap seg6local
  route PREFIX SEG[,SEG...] [table N]      RTM_NEWROUTE, encap seg6 mode encap
  plain PREFIX                             RTM_NEWROUTE, no encapsulation
  nhsid PREFIX NHID                        RTM_NEWNEXTHOP NHID (encap seg6local End,
                                           dev lo) and a route naming it
  del PREFIX [table N]                     RTM_DELROUTE
  many N PREFIX64                          N End SIDs PREFIX64::1 ... (one frame each)
  unmany N PREFIX64                        their RTM_DELROUTEs
  garbage                                  a frame of version 2 (srv6d must close)
  sleep SECONDS
  wait FILE                                until FILE exists (the test's cue)
The connection closes after the last OP.
"""
import ipaddress
import os
import socket
import struct
import sys
import time

RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWNEXTHOP = 24, 25, 104
NLM_F_REQUEST, NLM_F_CREATE, NLM_F_REPLACE = 0x1, 0x400, 0x100
RTA_DST, RTA_OIF, RTA_TABLE, RTA_ENCAP_TYPE, RTA_ENCAP, RTA_NH_ID = 1, 4, 15, 21, 22, 30
NHA_ID, NHA_OIF, NHA_ENCAP_TYPE, NHA_ENCAP = 1, 5, 7, 8
LWT_SEG6, LWT_SEG6_LOCAL = 5, 7
SEG6_LOCAL_ACTION, SEG6_LOCAL_NH6 = 1, 5
ACTIONS = {"End": 1, "End.X": 2, "End.T": 3, "End.DX6": 5, "End.DT6": 7}
NLA_F_NESTED = 0x8000


def attr(t, data):
    a = struct.pack("=HH", 4 + len(data), t) + data
    return a + b"\0" * (-len(a) % 4)


def prefix(p):
    n = ipaddress.ip_network(p, strict=False)
    return n.version, n.network_address.packed, n.prefixlen


def nlmsg(t, body, flags=NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE):
    return struct.pack("=IHHII", 16 + len(body), t, flags, 0, 0) + body


def route(t, p, attrs, table=254):
    ver, dst, plen = prefix(p)
    fam = 10 if ver == 6 else 2
    rtm = struct.pack("=BBBBBBBBI", fam, plen, 0, 0, min(table, 255) if table < 256 else 252,
                      11, 0, 1, 0)
    a = attr(RTA_DST, dst) + attr(RTA_TABLE, struct.pack("=I", table)) + b"".join(attrs)
    return nlmsg(t, rtm + a)


def seg6local(action, nh6=None):
    inner = attr(SEG6_LOCAL_ACTION, struct.pack("=I", ACTIONS[action]))
    if nh6:
        inner += attr(SEG6_LOCAL_NH6, ipaddress.ip_address(nh6).packed)
    return [attr(RTA_OIF, struct.pack("=I", socket.if_nametoindex("lo"))),
            attr(RTA_ENCAP_TYPE, struct.pack("=H", LWT_SEG6_LOCAL)),
            attr(RTA_ENCAP | NLA_F_NESTED, inner)]


def seg6(segs):
    n = len(segs)
    srh = struct.pack("=BBBBBBH", 0, 2 * n, 4, n - 1, n - 1, 0, 0)
    srh += b"".join(ipaddress.ip_address(s).packed for s in reversed(segs))
    inner = attr(1, struct.pack("=i", 1) + srh)      # SEG6_IPTUNNEL_SRH, mode encap
    return [attr(RTA_OIF, struct.pack("=I", socket.if_nametoindex("lo"))),
            attr(RTA_ENCAP_TYPE, struct.pack("=H", LWT_SEG6)),
            attr(RTA_ENCAP | NLA_F_NESTED, inner)]


def frame(msg):
    return struct.pack("!BBH", 1, 1, 4 + len(msg)) + msg


def opt(words, name, default):
    if name in words:
        i = words.index(name)
        return words[i + 1]
    return default


def main():
    host, port, ops = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    s = socket.create_connection((host, port), timeout=10)
    i = 0
    while i < len(ops):
        op = ops[i]
        # the op's words run to the next op name
        j = i + 1
        while j < len(ops) and ops[j] not in OPS:
            j += 1
        w = ops[i + 1:j]
        i = j
        if op == "sid":
            table = int(opt(w, "table", 254))
            s.sendall(frame(route(RTM_NEWROUTE, w[0], seg6local(w[1], opt(w, "nh6", None)), table)))
        elif op == "route":
            table = int(opt(w, "table", 254))
            s.sendall(frame(route(RTM_NEWROUTE, w[0], seg6(w[1].split(",")), table)))
        elif op == "plain":
            s.sendall(frame(route(RTM_NEWROUTE, w[0],
                                  [attr(RTA_OIF, struct.pack("=I", socket.if_nametoindex("lo")))])))
        elif op == "nhsid":
            nhid = int(w[1])
            nh = struct.pack("=BBBBI", 10, 0, 0, 0, 0)
            nh += attr(NHA_ID, struct.pack("=I", nhid))
            nh += attr(NHA_OIF, struct.pack("=I", socket.if_nametoindex("lo")))
            nh += attr(NHA_ENCAP_TYPE, struct.pack("=H", LWT_SEG6_LOCAL))
            nh += attr(NHA_ENCAP | NLA_F_NESTED, attr(SEG6_LOCAL_ACTION, struct.pack("=I", 1)))
            s.sendall(frame(nlmsg(RTM_NEWNEXTHOP, nh)))
            s.sendall(frame(route(RTM_NEWROUTE, w[0], [attr(RTA_NH_ID, struct.pack("=I", nhid))])))
        elif op == "del":
            table = int(opt(w, "table", 254))
            s.sendall(frame(route(RTM_DELROUTE, w[0], [], table)))
        elif op in ("many", "unmany"):
            n, base = int(w[0]), ipaddress.ip_network(w[1])
            buf = bytearray()
            for k in range(n):
                p = "%s/128" % (base.network_address + k + 1)
                if op == "many":
                    buf += frame(route(RTM_NEWROUTE, p, seg6local("End")))
                else:
                    buf += frame(route(RTM_DELROUTE, p, []))
            s.sendall(bytes(buf))
        elif op == "garbage":
            s.sendall(struct.pack("!BBH", 2, 1, 20) + b"\0" * 16)
        elif op == "sleep":
            time.sleep(float(w[0]))
        elif op == "wait":
            t0 = time.time()
            while not os.path.exists(w[0]):
                if time.time() - t0 > 120:
                    sys.exit("fpm_client.py: %s never appeared" % w[0])
                time.sleep(0.05)
        else:
            sys.exit("fpm_client.py: unknown op %s" % op)
    s.close()


OPS = {"sid", "route", "plain", "nhsid", "del", "many", "unmany", "garbage", "sleep", "wait"}

if __name__ == "__main__":
    main()
