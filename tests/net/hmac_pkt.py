#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""hmac_pkt.py - SRH HMAC helpers of tests/net/test_hmac.sh.

  hmac_pkt.py ksign IF DST...
      run inside a namespace whose kernel has `encap seg6 ... hmac` routes:
      send one UDP datagram to each DST and print the IPv6 packet the kernel
      put on IF (outgoing, with an SRH) as hex, one a line.
  hmac_pkt.py tamper HEX OFFSET     flip bit 1 of byte OFFSET
  hmac_pkt.py noflag HEX ALGO SECRET
      clear the legacy H flag (0x08) and recompute the HMAC over the new
      flags (RFC 8754 shape the kernel calls "absent")
  hmac_pkt.py padafter HEX
      add 8 bytes of PadN after the HMAC TLV (Hdr Ext Len and Payload Length
      grow; the HMAC text is unchanged)

Packets are built and parsed by hand: scapy 2.5 encodes the HMAC TLV wrongly.
The HMAC here is Python's hmac module (only to make test inputs).
"""
import hashlib
import hmac
import select
import socket
import sys
import time


def ksign(ifname, dsts):
    cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))  # ETH_P_ALL: outgoing too
    cap.bind((ifname, 0))
    tx = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    rc = 0
    for d in dsts:
        tx.sendto(b"srv6d-hmac-test", (d, 9))
        deadline = time.monotonic() + 3
        found = None
        while found is None and time.monotonic() < deadline:
            r, _, _ = select.select([cap], [], [], 0.2)
            if not r:
                continue
            data, addr = cap.recvfrom(65535)
            ip = data[14:]
            if (addr[2] == socket.PACKET_OUTGOING and addr[1] == 0x86DD and len(ip) > 40
                    and ip[6] == 43):
                found = ip
        if found is None:
            print("no SRv6 packet for %s" % d, file=sys.stderr)
            rc = 1
            continue
        print(found.hex())
    return rc


def srh_tlv(p):
    """offset of the SRH and of its HMAC TLV (walked) in packet p"""
    assert p[6] == 43
    srh = 40
    le = p[srh + 4]
    end = srh + (p[srh + 1] + 1) * 8
    off = srh + 8 + (le + 1) * 16
    while off < end:
        if p[off] == 0:
            off += 1
            continue
        if p[off] == 5:
            return srh, off
        off += p[off + 1] + 2
    raise SystemExit("no HMAC TLV")


def noflag(p, algo, secret):
    p = bytearray(p)
    srh, tlv = srh_tlv(p)
    p[srh + 5] &= ~0x08 & 0xff
    le = p[srh + 4]
    text = bytes(p[8:24]) + bytes([le, p[srh + 5]]) + bytes(p[tlv + 4:tlv + 8]) + \
        bytes(p[srh + 8:srh + 8 + (le + 1) * 16])
    dig = hmac.new(secret.encode(), text, getattr(hashlib, algo)).digest()[:32]
    p[tlv + 8:tlv + 40] = dig + bytes(32 - len(dig))
    return bytes(p)


def padafter(p):
    p = bytearray(p)
    srh, tlv = srh_tlv(p)
    end = tlv + 40
    p[end:end] = bytes([4, 6]) + bytes(6)
    p[srh + 1] += 1
    plen = (p[4] << 8 | p[5]) + 8
    p[4], p[5] = plen >> 8, plen & 0xff
    return bytes(p)


def main():
    cmd = sys.argv[1]
    if cmd == "ksign":
        return ksign(sys.argv[2], sys.argv[3:])
    p = bytes.fromhex(sys.argv[2])
    if cmd == "tamper":
        q = bytearray(p)
        q[int(sys.argv[3])] ^= 2
        print(bytes(q).hex())
    elif cmd == "noflag":
        print(noflag(p, sys.argv[3], sys.argv[4]).hex())
    elif cmd == "padafter":
        print(padafter(p).hex())
    else:
        raise SystemExit("unknown command " + cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
