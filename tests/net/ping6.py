#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""ping6.py ADDR[%IF] [COUNT]: COUNT (2) Echo Requests through the calling
namespace's own stack (so the kernel resolves the next hop with ND when it
has no neighbour), each awaited up to 2 s; prints how many were answered."""
import os, select, socket, struct, sys, time

addr, _, dev = sys.argv[1].partition("%")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2
scope = socket.if_nametoindex(dev) if dev else 0
ident = os.getpid() & 0xffff
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
got = 0
for seq in range(1, count + 1):
    s.sendto(struct.pack("!BBHHH", 128, 0, 0, ident, seq) + b"srv6d", (addr, 0, 0, scope))
    end = time.time() + 2
    while time.time() < end:
        if not select.select([s], [], [], max(0, end - time.time()))[0]:
            break
        d, _ = s.recvfrom(2048)
        if d[0] == 129 and struct.unpack("!HH", d[4:8]) == (ident, seq):
            got += 1
            break
print(got)
