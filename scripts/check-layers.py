#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""check-layers.py - no include from a lower room of src/ to a higher one.

The rooms and their order are docs/ARCHITECTURE.md's room map. A public
header (include/srv6d/X.h) belongs to the room of src/*/X.c; the headers
without a .c of their own are placed in HEADER_ROOM. A header nobody placed
is an error too, so a new one must be given a room. FORBID adds headers a
room must not reach even through another header (the datapath receives
built tables and never includes the conf grammar). Prints one line per
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
# room -> headers it must not reach, directly or through other headers
FORBID = {"datapath": {"conf"}}
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


INCLUDE_RE = re.compile(r'\s*#\s*include\s+(?:"([^"]+)"|<(srv6d/[^>]+)>)')


def includes(path):
    """(line, the include as written, the file it resolves to or None)."""
    out = []
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            inc = m.group(1) or m.group(2)
            cands = [os.path.normpath(os.path.join(os.path.dirname(path), inc)),
                     os.path.normpath(os.path.join("include", inc))]
            out.append((n, inc, next((c for c in cands if os.path.isfile(c)), None)))
    return out


def room_of(path, hroom):
    """The room a resolved file belongs to, or None (outside the map)."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[:2] == ["include", "srv6d"]:
        return hroom.get(os.path.basename(path)[:-2])
    return None


def closure(path, seen=None):
    """Every header @path reaches through its includes."""
    seen = set() if seen is None else seen
    for _, _, target in includes(path):
        if target and target not in seen:
            seen.add(target)
            closure(target, seen)
    return seen


def main():
    hroom = header_rooms()
    bad = []
    for h, r in sorted(hroom.items()):
        if r is None:
            bad.append("include/srv6d/%s.h: no room (add it to HEADER_ROOM in %s)" % (h, sys.argv[0]))
    files = sorted(glob.glob("src/*/*.[ch]") + glob.glob("include/srv6d/*.h"))
    for f in files:
        room = room_of(f, hroom)
        if f.startswith("src/") and room not in RANK:
            bad.append("%s: room %s is not in the room map" % (f, room))
            continue
        if room is None:
            continue
        for n, inc, target in includes(f):
            r = room_of(target, hroom) if target else None
            if r in RANK and RANK[r] > RANK[room]:
                bad.append('%s:%d: the %s room includes "%s" (%s, a higher room)'
                           % (f, n, room, inc, r))
        for hdr in FORBID.get(room, ()):
            path = "include/srv6d/%s.h" % hdr
            if path in closure(f):
                bad.append("%s: the %s room reaches %s (directly or through another header)"
                           % (f, room, path))
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
