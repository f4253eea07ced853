#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""notify.py SOCKET OUT [READY-CHECK]: a stand-in for systemd's notify socket.

Binds the AF_UNIX datagram socket SOCKET ('@name' = abstract namespace),
writes "READY" to OUT.ready once bound, then appends every datagram to OUT as
one line (its KEY=VALUE lines joined by '|').  On the first datagram holding
READY=1 it runs the shell command READY-CHECK (with MAINPID from an earlier
MAINPID= message in the environment) before reading anything else, and writes
"#ready-check RC" after that datagram: what was true at the moment srv6d said
it was ready.  Runs until killed.
"""
import os
import socket
import subprocess
import sys

path, out = sys.argv[1], sys.argv[2]
check = sys.argv[3] if len(sys.argv) > 3 else None
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + path[1:] if path.startswith("@") else path)
with open(out + ".ready", "w") as f:
    f.write("READY\n")
env = dict(os.environ)
checked = False
with open(out, "a", buffering=1) as f:
    while True:
        msg = s.recv(4096).decode(errors="replace")
        keys = msg.split("\n")
        f.write("|".join(keys) + "\n")
        for k in keys:
            if k.startswith("MAINPID="):
                env["MAINPID"] = k[len("MAINPID="):]
        if check and not checked and "READY=1" in keys:
            checked = True
            rc = subprocess.call(["sh", "-c", check], env=env)
            f.write("#ready-check %d\n" % rc)
