#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_seg6_vectors.sh - check the committed unit-test vectors
# (tests/unit/vectors/seg6.txt, written by gen_seg6.py from a reading of the
# kernel source) against the running kernel itself: every vector whose
# behavior the kernel implements is configured as a seg6local/seg6 route in
# rtr, its input is sent from src, and what dst receives must equal the
# vector's expected output (with the hop limit / TTL the forwarding step
# decrements, which the engine leaves to that step).  srv6d is not involved.
#
#   +-------------+        +---------------------------+        +-------------+
#   | src    eth0 +--------+ eth0  rtr (forwarding)    eth1 +---+ eth0   dst   |
#   |  fd00:1::1  |        | fd00:1::2          fd00:2::1   |   | fd00:2::2   |
#   +-------------+        | 10.9.9.1/24 (eth1)            |   | 10.9.9.2    |
#    sends raw frames      | route under test: SID or      |   | AF_PACKET   |
#                          |   policy prefix, dev eth1     |   | capture     |
#                          | everything else: default via  |   +-------------+
#                          |   dst (v6, v4; tables 3..100) |
#                          +---------------------------+
#
# For ICMP/drop vectors the kernel must forward nothing (it drops where srv6d
# answers with the RFC 8986 ICMP).  Vectors the kernel cannot run are skipped
# by rule (USP, USD, End.T flavors, End.X psp, vrftable, End.DT4/46 without VRF,
# End.B6.Encaps.Red); a route the kernel refuses is a [SKIP].  L2 headend
# vectors are sent with rtr's MAC as destination (the kernel encapsulates the
# frame it received for an IP route), and expected with that frame inside.
# A vector with kout= is a documented deviation: the kernel's output must be
# kout (so the documentation stays true), srv6d's is out.
set -u
ksft_skip=4
HERE=$(cd "$(dirname "$0")" && pwd)
VEC=${SRV6_VECTORS:-$HERE/../unit/vectors}/seg6.txt
PY=/usr/bin/python3

[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit $ksft_skip; }
command -v ip >/dev/null || { echo "SKIP: ip not found"; exit $ksft_skip; }
"$PY" -c 'import scapy' 2>/dev/null || { echo "SKIP: scapy not found"; exit $ksft_skip; }
[ -r "$VEC" ] || { echo "vectors $VEC not found"; exit 1; }

NS_SRC="vsrc-$$-$RANDOM"
NS_RTR="vrtr-$$-$RANDOM"
NS_DST="vdst-$$-$RANDOM"
cleanup() {
	ip netns del "$NS_SRC" 2>/dev/null
	ip netns del "$NS_RTR" 2>/dev/null
	ip netns del "$NS_DST" 2>/dev/null
}
trap cleanup EXIT

for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do
	ip netns add "$ns" || exit 1
	ip -n "$ns" link set lo up
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.router_solicitations=0 \
		net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.all.mldv1_unsolicited_report_interval=0 \
		net.ipv6.conf.default.mldv2_unsolicited_report_interval=0 >/dev/null 2>&1
done
ip -n "$NS_SRC" link add eth0 type veth peer name eth0 netns "$NS_RTR"
ip -n "$NS_DST" link add eth0 type veth peer name eth1 netns "$NS_RTR"
ip netns exec "$NS_RTR" sysctl -qw net.ipv6.conf.all.forwarding=1 \
	net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.default.rp_filter=0 >/dev/null
ip -n "$NS_SRC" addr add fd00:1::1/64 dev eth0 nodad
ip -n "$NS_RTR" addr add fd00:1::2/64 dev eth0 nodad
ip -n "$NS_RTR" addr add fd00:2::1/64 dev eth1 nodad
ip -n "$NS_RTR" addr add 10.9.9.1/24 dev eth1
ip -n "$NS_DST" addr add fd00:2::2/64 dev eth0 nodad
for l in "$NS_SRC eth0" "$NS_RTR eth0" "$NS_RTR eth1" "$NS_DST eth0"; do
	set -- $l; ip -n "$1" link set "$2" up
done
DST_MAC=$(ip -n "$NS_DST" -br link show dev eth0 | awk '{print $3}')
RTR_MAC=$(ip -n "$NS_RTR" -br link show dev eth0 | awk '{print $3}')
SRC_MAC=$(ip -n "$NS_SRC" -br link show dev eth0 | awk '{print $3}')
ip -n "$NS_RTR" -6 neigh add fd00:2::2 lladdr "$DST_MAC" dev eth1 nud permanent
ip -n "$NS_RTR" neigh add 10.9.9.2 lladdr "$DST_MAC" dev eth1 nud permanent
ip -n "$NS_RTR" -6 route add default via fd00:2::2 dev eth1
for t in 3 5 8 9 100; do
	ip -n "$NS_RTR" -6 route add default via fd00:2::2 dev eth1 table $t
done
ip -n "$NS_RTR" route add default via 10.9.9.2 dev eth1
ip -n "$NS_RTR" sr tunsrc set fc00:0:1::1
ip link set dev lo up >/dev/null 2>&1

NS_SRC=$NS_SRC NS_RTR=$NS_RTR NS_DST=$NS_DST RTR_MAC=$RTR_MAC SRC_MAC=$SRC_MAC \
	"$PY" - "$VEC" <<'EOF'
import ctypes, os, socket, subprocess, sys, time

CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)
NS_SRC, NS_RTR, NS_DST = (os.environ[k] for k in ("NS_SRC", "NS_RTR", "NS_DST"))
RTR_MAC = bytes.fromhex(os.environ["RTR_MAC"].replace(":", ""))
SRC_MAC = bytes.fromhex(os.environ["SRC_MAC"].replace(":", ""))


def in_ns(name, fn):
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET):
            raise OSError(ctypes.get_errno(), "setns")
        return fn()
    finally:
        libc.setns(home, CLONE_NEWNET)
        os.close(fd)
        os.close(home)


tx = in_ns(NS_SRC, lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
in_ns(NS_SRC, lambda: tx.bind(("eth0", 0)))
rx = in_ns(NS_DST, lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                        socket.htons(3)))
in_ns(NS_DST, lambda: rx.bind(("eth0", 0)))
rx.settimeout(0.4)

n_ok = n_fail = n_skip = 0


def rtr(*args):
    return subprocess.run(["ip", "-n", NS_RTR] + list(args),
                          capture_output=True, text=True)


def sysctl(k, v):
    subprocess.run(["ip", "netns", "exec", NS_RTR, "sysctl", "-qw",
                    "%s=%s" % (k, v)], capture_output=True)


def ip6(b):
    return socket.inet_ntop(socket.AF_INET6, bytes(b))


def noise(f):
    """ND/MLD/other chatter on the capture link."""
    et = f[12:14]
    if et == b"\x86\xdd" and len(f) > 54 + 1 and f[20] == 58 and \
            f[54] in (130, 131, 132, 133, 134, 135, 136, 143):
        return True
    if et == b"\x86\xdd" and f[20] == 0 and len(f) > 62 and f[62] == 58:
        return True   # MLD behind hop-by-hop
    return et not in (b"\x86\xdd", b"\x08\x00")


def v4_csum(h):
    s = 0
    for i in range(0, len(h), 2):
        s += h[i] << 8 | h[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def expected(kv, out):
    """The vector's output after the forwarding step the engine leaves out."""
    e = bytearray(out)
    v = kv["verdict"]
    if v == "forward6":
        e[7] -= 1
    elif v == "forward4":
        ihl = (e[0] & 0xf) * 4
        e[8] -= 1
        e[10] = e[11] = 0
        c = v4_csum(e[:ihl])
        e[10], e[11] = c >> 8, c & 0xff
    return bytes(e)


def plan(kv):
    """(route argv, sysctl, reason-to-skip)"""
    if kv["kind"] == "headend":
        mode = kv["mode"]
        pin = bytes.fromhex(kv["in"])
        segs = kv["segs"]
        if kv["inner"] == "143":
            # the kernel encapsulates the frame it received for an IP route
            et = pin[12:14]
            if et == b"\x86\xdd":
                return ["-6", "route", "replace", ip6(pin[38:54]) + "/128",
                        "encap", "seg6", "mode", mode, "segs", segs, "dev",
                        "eth1"], None
            if et == b"\x08\x00":
                return ["route", "replace",
                        socket.inet_ntop(socket.AF_INET, pin[30:34]) + "/32",
                        "encap", "seg6", "mode", mode, "segs", segs, "dev",
                        "eth1"], None
            return None, "frame carries neither IPv4 nor IPv6"
        if kv["inner"] == "4":
            dst = socket.inet_ntop(socket.AF_INET, pin[16:20]) + "/32"
            return ["route", "replace", dst, "encap", "seg6", "mode", mode,
                    "segs", segs, "dev", "eth1"], None
        return ["-6", "route", "replace", ip6(pin[24:40]) + "/128", "encap",
                "seg6", "mode", mode, "segs", segs, "dev", "eth1"], None
    act = kv["action"]
    flv = [f for f in kv.get("flavors", "").split(",") if f]
    if "vrftable" in kv:
        return None, "no VRF on this machine"
    if act in ("End.DT4", "End.DT46", "End.B6.Encaps.Red"):
        return None, act + " not runnable in this kernel setup"
    if set(flv) & {"usp", "usd"}:
        return None, "kernel has no USP/USD"
    if act == "End.T" and flv:
        return None, "kernel ignores End.T flavors"
    if act == "End.X" and "psp" in flv:
        return None, "kernel has no End.X psp"
    pin = bytes.fromhex(kv["in"])
    a = ["action", act]
    for k in ("nh6", "nh4", "table"):
        if k in kv:
            a += [k, kv[k]]
    if "oif" in kv:
        a += ["oif", "eth1"]
    if "segs" in kv:
        a += ["srh", "segs", kv["segs"]]
    if flv:
        a += ["flavors", ",".join(flv)]
        if "next-csid" in flv:
            a += ["lblen", kv.get("lblen", "32"), "nflen", kv.get("nflen", "16")]
    return ["-6", "route", "replace", ip6(pin[24:40]) + "/128", "encap",
            "seg6local"] + a + ["dev", "eth1"], None


extra = []   # routes the case needs besides its own
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    kv = dict(t.split("=", 1) for t in line.split())
    name = "kernel %s" % kv["name"]
    argv, why = plan(kv)
    if argv is None:
        print("[SKIP] %s: %s" % (name, why))
        n_skip += 1
        continue
    sysctl("net.ipv6.seg6_flowlabel", kv.get("flowlabel", "0"))
    r = rtr(*argv)
    if r.returncode:
        print("[SKIP] %s: kernel refuses: %s" % (name, r.stderr.strip()))
        n_skip += 1
        continue
    # next hops of End.X / End.DX6 / End.DX4 reachable through dst
    for k, fam in (("nh6", "-6"), ("nh4", "-4")):
        if k in kv and kv[k] not in ("::", "0.0.0.0"):
            rtr(fam, "route", "replace", kv[k], "via",
                "fd00:2::2" if fam == "-6" else "10.9.9.2", "dev", "eth1")
    # kout: a documented deviation; check the kernel does what we say
    want = expected(kv, bytes.fromhex(kv.get("kout", kv["out"])))
    if "kout" in kv:
        name += " (documented deviation: kernel output)"
    if kv["verdict"] in ("icmp", "drop"):
        # srv6d answers with ICMP or drops; the kernel must not forward it
        # either (docs/BEHAVIORS.md: "Linux: drop")
        want = None
        name += " (not forwarded)"
    pin = bytes.fromhex(kv["in"])
    et = b"\x86\xdd" if (pin[0] >> 4) == 6 else b"\x08\x00"
    frame = RTR_MAC + SRC_MAC + et + pin
    if kv.get("inner") == "143":
        # send the frame addressed to rtr; it is what gets encapsulated
        frame = RTR_MAC + SRC_MAC + pin[12:]
        off = len(bytes.fromhex(kv["out"])) - len(pin)
        if want is not None:
            want = want[:off] + frame
    rx.setblocking(False)
    while True:     # drain what earlier cases left
        try:
            rx.recv(65535)
        except (BlockingIOError, socket.timeout):
            break
    rx.settimeout(0.4)
    tx.send(frame)
    got = None
    deadline = time.time() + (0.3 if want is None else 1.0)
    while time.time() < deadline:
        try:
            f = rx.recv(65535)
        except socket.timeout:
            break
        if noise(f) and not kv.get("action") == "End.DX2":
            continue
        got = f if kv["verdict"] == "l2" else f[14:]
        break
    rtr(*(["-6" if argv[0] == "-6" else "-4", "route", "del"] +
          [argv[3 if argv[0] == "-6" else 2]]))
    if (want is None and got and kv.get("icmp", "").startswith("3/") and
            got[6] == 58 and got[40] == 3):
        # hop limit: the kernel rewrites first, then ip6_forward() sends
        # Time Exceeded quoting the rewritten packet (docs/BEHAVIORS.md)
        name += ": kernel sends Time Exceeded after its rewrite"
        got = None
    if got == want:
        print("[ OK ] %s" % name)
        n_ok += 1
    else:
        print("[FAIL] %s" % name)
        print("       want %s" % (want.hex() if want else "nothing"))
        print("       got  %s" % (got.hex() if got else "nothing"))
        n_fail += 1
print("# test_seg6_vectors.sh: %d passed, %d failed, %d skipped" %
      (n_ok, n_fail, n_skip))
sys.exit(1 if n_fail else 0)
EOF
exit $?
