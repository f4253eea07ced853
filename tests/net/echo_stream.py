#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""echo_stream.py DST COUNT INTERVAL_S: ICMPv6 Echo Requests to DST at a fixed
rate (raw socket, stdlib only); prints one line per answer, in arrival order:
  R SEQ SENT_US RECV_US      an Echo Reply from DST
  X TYPE RECV_US             any other ICMPv6 error (3 = Time Exceeded)
Times are CLOCK_REALTIME in microseconds (comparable with `date +%s%N`).
Waits one second after the last request for late answers."""
import os
import select
import socket
import struct
import sys
import time

dst, count, interval = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
ident = os.getpid() & 0xffff
sent = {}
out = []


def now_us():
    return time.time_ns() // 1000


def drain(deadline):
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select([s], [], [], left)
        if not r:
            return
        data, addr = s.recvfrom(2048)
        t = now_us()
        typ = data[0]
        if typ == 129 and len(data) >= 8:
            rid, seq = struct.unpack("!HH", data[4:8])
            if rid == ident and addr[0] == dst:
                out.append("R %d %d %d" % (seq, sent.get(seq, 0), t))
        elif typ < 128:
            out.append("X %d %d" % (typ, t))


start = time.monotonic()
for seq in range(count):
    pkt = struct.pack("!BBHHH", 128, 0, 0, ident, seq) + b"srv6d-restart"
    sent[seq] = now_us()
    try:
        s.sendto(pkt, (dst, 0))
    except OSError:
        pass
    drain(start + (seq + 1) * interval)
drain(time.monotonic() + 1.0)
print("\n".join(out))
