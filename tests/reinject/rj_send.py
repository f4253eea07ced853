#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rj_send.py - send one IPv6 (or IPv4) frame and capture IPv4 and IPv6 at one or two
namespaces (run with /usr/bin/python3).

  rj_send.py --src-ns NS --dmac MAC --cap NS:IF[,NS:IF] --hex HEX
             [--want N] [--timeout S] [--ready FILE] [--count N] [--after FILE]

Capture sockets are bound before the frame is sent.  Prints, per captured
packet (Ethernet stripped; ND/MLD noise and frames the capturing host sent
are ignored):
  RX NS HEX
  IC NS TYPE CODE        (ICMPv6 errors, also as RX)
Returns after N packets (all captures together) or the timeout (the
timeout is how long a packet that is NOT expected is waited for).  With
--ready FILE, FILE is created once the frame is sent.  With --after FILE
the timeout starts when FILE exists (the test creates it when it releases a
held packet: the capture window does not depend on how long the test took
to get there, which under emulation (the kernel-oracle VM) is seconds).
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "net"))
import pkt  # noqa: E402  (tests/net/pkt.py: namespaces, sockets, noise filter)

ETH_P_IP = 0x0800


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src-ns", required=True)
    ap.add_argument("--src-if", default="eth0")
    ap.add_argument("--dmac", required=True)
    ap.add_argument("--cap", required=True)
    ap.add_argument("--hex", required=True)
    ap.add_argument("--want", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3.0)
    ap.add_argument("--ready")
    ap.add_argument("--after")
    ap.add_argument("--count", type=int, default=1, help="send the frame this many times")
    a = ap.parse_args()
    caps = []
    for c in a.cap.split(","):
        ns, ifname = c.split(":")
        caps.append((ns, pkt.open_capture(ns, ifname)))
    tx, smac = pkt.open_sender(a.src_ns, a.src_if)
    dmac = bytes.fromhex(a.dmac.replace(":", ""))
    ip = bytes.fromhex(a.hex)
    et = ETH_P_IP if ip[0] >> 4 == 4 else pkt.ETH_P_IPV6
    frame = dmac + smac + struct.pack("!H", et) + ip
    for _ in range(a.count):
        tx.send(frame)
    if a.ready:
        open(a.ready, "w").close()
    got, end = 0, time.monotonic() + a.timeout
    started = a.after is None
    give_up = time.monotonic() + 300     # --after FILE never made: a test bug
    while got < a.want:
        if not started and (os.path.exists(a.after) or time.monotonic() > give_up):
            started, end = True, time.monotonic() + a.timeout
        left = end - time.monotonic()
        if started and left <= 0:
            break
        r, _, _ = select.select([s for _, s in caps], [], [], left if started else 0.05)
        for ns, s in caps:
            if s not in r:
                continue
            while True:
                try:
                    frame, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == pkt.PACKET_OUTGOING:
                    continue
                et = struct.unpack("!H", frame[12:14])[0]
                ip = frame[14:]
                if et == pkt.ETH_P_IPV6:
                    if pkt.is_noise(ip):
                        continue
                    plen = struct.unpack("!H", ip[4:6])[0]
                    ip = ip[:40 + plen]
                elif et == ETH_P_IP:
                    ip = ip[:struct.unpack("!H", ip[2:4])[0]]
                else:
                    continue
                print("RX %s %s" % (ns, ip.hex()), flush=True)
                if et == pkt.ETH_P_IPV6 and ip[6] == 58 and ip[40] < 128:
                    print("IC %s %d %d" % (ns, ip[40], ip[41]), flush=True)
                got += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
