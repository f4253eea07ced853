#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/veth_gro.py DEV 0|1 - turn GRO off/on with the legacy ETHTOOL_SGRO
# ioctl (ethtool is not installed here).  GRO on gives a veth a NAPI
# context, which /sys/class/net/DEV/threaded needs.
import ctypes, fcntl, socket, struct, sys
# ETHTOOL_SGRO via SIOCETHTOOL: enables veth's NAPI (needed for threaded NAPI)
ETHTOOL_SGRO = 0x0000002c
SIOCETHTOOL = 0x8946
val = ctypes.create_string_buffer(struct.pack("II", ETHTOOL_SGRO, int(sys.argv[2])))
ifr = struct.pack("16sP", sys.argv[1].encode(), ctypes.addressof(val)) + b"\0" * 16
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
