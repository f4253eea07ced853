#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-layers.py - no include from a lower room of src/ to a higher one.

The rooms and their order are docs/ARCHITECTURE.md's room map. A public
header (include/srv6d/X.h) belongs to the room of src/*/X.c; the headers
without a .c of their own are placed in HEADER_ROOM. A header nobody placed
is an error too, so a new one must be given a room. Prints one line per
offending include and exits 1; prints nothing and exits 0 when the house is
in order. Run from the top of the tree (tests/check.sh does, in the unit
suite).
"""
import glob
import os
import re
import sys

# lowest first; src/ctl (srv6ctl) is a program on top, like src/daemon
ROOMS = ["core", "cache", "conf", "base", "kernel", "datapath", "control", "daemon", "ctl"]
RANK = {r: i for i, r in enumerate(ROOMS)}
HEADER_ROOM = {
    "pkt": "core",          # the packet buffer the engine works on
    "conf": "conf",         # the grammar (file.c, sid.c, ...)
    "conf_defs": "conf",    # defaults and value types owned above conf
    "loglevel": "conf",     # log level names, parsed by the conf
    "log": "base",
}


def header_rooms():
    rooms = {}
    for h in glob.glob("include/srv6d/*.h"):
        name = os.path.basename(h)[:-2]
        if name in HEADER_ROOM:
            rooms[name] = HEADER_ROOM[name]
            continue
        owners = sorted({p.split("/")[1] for p in glob.glob("src/*/%s.c" % name)} - {"ctl"})
        rooms[name] = owners[0] if len(owners) == 1 else None
    return rooms


def main():
    hroom = header_rooms()
    bad = []
    for h, r in sorted(hroom.items()):
        if r is None:
            bad.append("include/srv6d/%s.h: no room (add it to HEADER_ROOM in %s)" % (h, sys.argv[0]))
    files = sorted(glob.glob("src/*/*.[ch]") + glob.glob("include/srv6d/*.h"))
    for f in files:
        if f.startswith("src/"):
            room = f.split("/")[1]
            if room not in RANK:
                bad.append("%s: room %s is not in the room map" % (f, room))
                continue
        else:
            room = hroom.get(os.path.basename(f)[:-2])
            if room is None:
                continue
        with open(f) as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                inc = m.group(1)
                name = os.path.basename(inc)[:-2] if inc.endswith(".h") else None
                if inc.startswith("srv6d/") or f.startswith("include/"):
                    target = hroom.get(name)
                elif "/" in inc and inc.split("/")[0] in RANK:
                    target = inc.split("/")[0]
                else:
                    target = room   # the room's own private header
                if target and RANK[target] > RANK[room]:
                    bad.append('%s:%d: the %s room includes "%s" (%s, a higher room)'
                               % (f, n, room, inc, target))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
