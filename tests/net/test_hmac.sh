#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_hmac.sh - the SRH HMAC TLV (RFC 8754 §2.1.2) with the kernel as oracle.
#
#   +----------------+      +--------------------------------+      +-----------------+
#   | src            |      | rtr                            |      | dst             |
#   |           eth0 +------+ eth0                      eth1 +------+ eth0            |
#   | 2001:db8:1::1  |      | 2001:db8:1::2    2001:db8:2::1 |      | 2001:db8:2::2   |
#   | kernel signs:  |      | (a) kernel seg6/seg6local with |      | kernel End      |
#   |  77::/64 hmac 7|      |     `hmac N` (parity oracle)   |      |  2001:db8:ee::1 |
#   |  75::/64 hmac 8|      | (b) srv6d                      |      |  count,         |
#   |  76::/64 none  |      |                                |      |  seg6_require_  |
#   +----------------+      +--------------------------------+      |  hmac=1         |
#                                                                   +-----------------+
# Keys: 7 sha256 "hmac-secret-7", 8 sha1 with a 64-byte secret, the same in
# every namespace that uses them (`ip sr hmac set`) and in srv6d's key files.
#   1. srv6d signs byte for byte like the kernel: policies encap (7) and
#      inline (8), End.B6 (8) and End.B6.Encaps (7), same inputs, same bytes.
#   1b. srv6ctl: `sid add ... srh segs ... hmac 7` and `route add ... hmac 7`
#      sign as the kernel does (keys reread as on a reload; a world-readable
#      file refuses the change); show commands name key ids, never secrets.
#   2. the kernel in src signs, srv6d's End 2001:db8:ff::1 verifies under
#      `hmac require`, `verify`, `ignore` and per-interface modes: valid
#      (sha256 and sha1), one segment byte changed, no TLV, and the two RFC
#      8754 shapes the kernel calls absent (no H flag; PadN after the TLV).
#      A tampered packet gets a Parameter Problem at the TLV, counts as drop
#      reason hmac and is logged.  A SIGHUP with a corrected secret file
#      swaps the key; one with a world-readable file keeps the running keys.
#   3. srv6d signs, the kernel verifies: dst's End with seg6_require_hmac=1
#      counts srv6d's packets with no error, counts errors for an unsigned
#      policy and once its own key differs.
#   4. secret files: a 65-byte secret and a group-readable file are refused
#      with the file named and the secret not shown.
#   5. `hmac require dev IF` with IF deleted and created again (another
#      ifindex) under a running srv6d: unsigned packets are still dropped.
#
# A kernel without SRv6 HMAC (CONFIG_IPV6_SEG6_HMAC) or seg6/seg6local
# (CONFIG_IPV6_SEG6_LWTUNNEL) cannot be the oracle: the checks that need it
# (its signatures and byte parity in 1 and 1b, the import of its routes, its
# signing in 2, its verifying in 3) skip by name, and srv6d's own checks
# still run: in 1 srv6d's signatures are checked with Python's hmac over the
# RFC 8754 text (hsig.py below: the same text as hmac_pkt.py; with a kernel,
# it must agree with the kernel's signatures), 1b compares with srv6d's own
# signatures of 1, and 2 verifies inputs Python built and signed.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
NS_SRC="hmac-src-$$-$RANDOM"
NS_RTR="hmac-rtr-$$-$RANDOM"
NS_DST="hmac-dst-$$-$RANDOM"

test_begin

HP=("$PY" "$(dirname "$0")/hmac_pkt.py")
D=$RTR_IF_DST
TUNSRC=$RTR_ADDR_SRC
K7=hmac-secret-7
K8=0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+-   # 64 bytes
SID=2001:db8:ff::1
AA1=20010db800aa00000000000000000001
AA3=20010db800aa00000000000000000003

# kset NS ID ALGO SECRET: the kernel's key (ip sr hmac set reads the secret
# from stdin when there is no terminal); a failure is a [FAIL] naming it
kset() {
	printf '%s\n' "$4" | ip netns exec "$1" ip sr hmac set "$2" "$3" >/dev/null 2>&1 &&
		ip netns exec "$1" ip sr hmac show 2>/dev/null | grep -q "hmac $2 " ||
		{ fail "setup: ip sr hmac set $2 $3 in ${1%%-*}"; return 1; }
}
[ ${#K8} -eq 64 ] || { echo "K8 is not 64 bytes"; exit 1; }
# KSIGN: the kernel can sign and verify here (its keys are set)
KSIGN=
if kfeat seg6hmac; then
	kset "$NS_RTR" 7 sha256 "$K7" && kset "$NS_RTR" 8 sha1 "$K8" && KSIGN=1
fi
# hsig.py: the HMAC TLV of RFC 8754 computed in Python, over the text the
# kernel hashes (source address, Last Entry, flags, key id, segment list;
# hmac_pkt.py's noflag), with the keys below
#   hsig.py build OUTER-SRC SID SEG DST KEYID   a packet as src's kernel
#       sends it for a route "encap seg6 mode encap segs SID,SEG hmac KEYID"
#       (KEYID 0: none) toward DST: H flag and TLV, signed
#   hsig.py check HEX...   every packet has the H flag and an HMAC TLV whose
#       digest is right; else the first that has not, and why (exit 1)
cat >"$TMPD/hsig.py" <<'EOF'
import hashlib, hmac, socket, struct, sys
sys.path.insert(0, sys.argv[1])
from hmac_pkt import srh_tlv
KEYS = {int(k): (a, s.encode()) for k, a, s in (x.split(":", 2) for x in sys.argv[2].split())}

def digest(p, keyid):
    algo, secret = KEYS[keyid]
    srh, tlv = srh_tlv(p)
    le = p[srh + 4]
    text = bytes(p[8:24]) + bytes([le, p[srh + 5]]) + bytes(p[tlv + 4:tlv + 8]) + \
        bytes(p[srh + 8:srh + 8 + (le + 1) * 16])
    d = hmac.new(secret, text, getattr(hashlib, algo)).digest()[:32]
    return d + bytes(32 - len(d))

def a6(x):
    return socket.inet_pton(socket.AF_INET6, x)

def build(src, sid, seg, dst, keyid):
    udp = struct.pack("!HHHH", 40000, 9, 8 + 15, 0) + b"srv6d-hmac-test"
    inner = struct.pack("!IHBB", 0x60000000, len(udp), 17, 64) + a6(src) + a6(dst) + udp
    tlv = bytes([5, 38, 0, 0]) + struct.pack("!I", keyid) + bytes(32) if keyid else b""
    segs = a6(seg) + a6(sid)
    srh = bytes([41, (len(segs) + len(tlv)) // 8, 4, 1, 1, 0x08 if keyid else 0, 0, 0]) + segs + tlv
    p = bytearray(struct.pack("!IHBB", 0x60000000, len(srh) + len(inner), 43, 64) + a6(src) + a6(sid) +
                  srh + inner)
    if keyid:
        _, t = srh_tlv(p)
        p[t + 8:t + 40] = digest(p, keyid)
    return bytes(p).hex()

def check(hexes):
    for h in hexes:
        p = bytes.fromhex(h)
        try:
            srh, tlv = srh_tlv(p)
        except (AssertionError, IndexError, SystemExit):
            return "no SRH HMAC TLV: " + h
        keyid = struct.unpack("!I", p[tlv + 4:tlv + 8])[0]
        if not p[srh + 5] & 0x08:
            return "no H flag: " + h
        if keyid not in KEYS:
            return "key id %d unknown: %s" % (keyid, h)
        if p[tlv + 8:tlv + 40] != digest(p, keyid):
            return "wrong HMAC (key %d): %s" % (keyid, h)
    return None

if sys.argv[3] == "build":
    print(build(*sys.argv[4:8], int(sys.argv[8])))
else:
    why = check(sys.argv[4:]) if len(sys.argv) > 4 else "no packets"
    if why:
        print(why)
        sys.exit(1)
EOF
HS=("$PY" "$TMPD/hsig.py" "$LIB_DIR" "7:sha256:$K7 8:sha1:$K8")

umask 077
printf '%s\n' "$K7" >"$TMPD/k7"
printf '%s' "$K8" >"$TMPD/k8"          # no newline: all 64 bytes are the secret
keys_conf() {
	echo "hmac key 7 algo sha256 secret-file $TMPD/k7"
	echo "hmac key 8 algo sha1 secret-file $TMPD/k8"
}
# start TAG LINE...: srv6d in rtr with the keys and LINEs
start() {
	local tag=$1 conf=$TMPD/srv6d.$1.conf; shift
	{ echo "queue 0-1"; echo "steer auto"; conf_extra; keys_conf; printf '%s\n' "$@"; } >"$conf"
	if ! srv6d_built; then fail "$tag: srv6d not built ($SRV6D)"; return 1; fi
	if ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.$tag.log"; then
		fail "$tag: srv6d starts" "$(cat "$conf")"; return 1
	fi
}
# rx FILE IDX: captured hex lines of input IDX
rx() { awk -v i="$2" '$1 == "RX" && $3 == i {print $4}' "$1"; }
# da HEX: the destination address of a packet, hex
da() { echo "${1:48:32}"; }

# ---------------------------------------------------------------------------
# 1. byte parity: srv6d signs as the kernel does (and, kernel or not, as
# Python's hmac computes it)
field() { local IFS='|'; local -a f; read -ra f <<<"$1"; echo "${f[$2]:-}"; }
# name | pkt.py case | kernel route | srv6d line | counter prefix | kernel feature
PCASES=(
"policy encap hmac 7 (sha256)|policy-encap|2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 hmac 7 dev $D|route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 hmac 7|2001:db8:99::/64|seg6encap"
"policy inline hmac 8 (sha1, 64-byte secret)|policy-inline|2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:aa::1 hmac 8 dev $D|route 2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:aa::1 hmac 8|2001:db8:98::/64|seg6encap"
"End.B6 hmac 8|end-b6|2001:db8:ff::7 encap seg6local action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 8 dev $D|sid 2001:db8:ff::7 action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 8|2001:db8:ff::7|seg6local"
"End.B6.Encaps hmac 7|end-b6-encaps|2001:db8:ff::8 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 7 dev $D|sid 2001:db8:ff::8 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 7|2001:db8:ff::8|seg6local"
)
crx() { awk -v c="$2" '$1 == "RX" && $2 == c {print $4}' "$1"; }
pkeys=(); for c in "${PCASES[@]}"; do pkeys+=("$(field "$c" 1)"); done
"$PY" "$PKT" build "${pkeys[@]}" >"$TMPD/inputs" || { echo "pkt.py build failed"; exit 1; }
in_rtr ip sr tunsrc set "$TUNSRC"
# kok: the cases the kernel signs here (HMAC keys set, its route added)
kok=() kkeys=()
for i in "${!PCASES[@]}"; do
	[ -n "$KSIGN" ] && kfeat "$(field "${PCASES[$i]}" 5)" || continue
	# shellcheck disable=SC2046
	if err=$(ip -n "$NS_RTR" -6 route add $(field "${PCASES[$i]}" 2) 2>&1); then
		kok+=("$i") kkeys+=("$(field "${PCASES[$i]}" 1)")
	else
		fail "$(field "${PCASES[$i]}" 0): kernel accepts the route" "$err"
	fi
done
: >"$TMPD/kernel.parity"
if [ ${#kkeys[@]} -gt 0 ]; then
	pkt_to_dst send --case "${kkeys[@]}" >"$TMPD/kernel.parity" || fail "kernel capture" "pkt.py failed"
fi
for i in "${kok[@]}"; do
	# shellcheck disable=SC2046
	ip -n "$NS_RTR" -6 route del $(field "${PCASES[$i]}" 2) ||
		fail "$(field "${PCASES[$i]}" 0): kernel route removed"
done
in_rtr ip sr tunsrc set ::
for i in "${!PCASES[@]}"; do
	key=$(field "${PCASES[$i]}" 1) name=$(field "${PCASES[$i]}" 0)
	needs "$name: kernel oracle signed all packets" seg6hmac "$(field "${PCASES[$i]}" 5)" || continue
	n=$(awk -v c="$key" '$1 == c' "$TMPD/inputs" | wc -l)
	got=$(crx "$TMPD/kernel.parity" "$key")
	# the oracle must have signed: H flag in every SRH it sent (the SRH
	# follows the IPv6 header in every case here)
	if [ "$(echo -n "$got" | grep -c .)" -eq "$n" ] &&
	   ! echo "$got" | awk '{ if (substr($0, 13, 2) != "2b" || substr($0, 91, 2) != "08") bad = 1 } END { exit !bad }'; then
		ok "$name: kernel oracle signed all $n packets"
	else
		fail "$name: kernel oracle signed all $n packets" "$got"
	fi
	# shellcheck disable=SC2046
	if why=$("${HS[@]}" check $got); then ok "$name: hsig.py computes the kernel's HMAC"
	else fail "$name: hsig.py computes the kernel's HMAC" "$why"; fi
done
lines=(); for c in "${PCASES[@]}"; do lines+=("$(field "$c" 3)"); done
if start parity "encap-source $TUNSRC" "${lines[@]}"; then
	pkt_to_dst send --case "${pkeys[@]}" >"$TMPD/srv6d.parity" || fail "srv6d capture" "pkt.py failed"
	srv6d_stats || fail "stats file on SIGUSR1"
	for i in "${!PCASES[@]}"; do
		key=$(field "${PCASES[$i]}" 1) name=$(field "${PCASES[$i]}" 0) pfx=$(field "${PCASES[$i]}" 4)
		exp=$(crx "$TMPD/kernel.parity" "$key") got=$(crx "$TMPD/srv6d.parity" "$key")
		n=$(awk -v c="$key" '$1 == c' "$TMPD/inputs" | wc -l) why=
		# shellcheck disable=SC2086
		if [ "$(echo -n "$got" | grep -c .)" -eq "$n" ] && why=$("${HS[@]}" check $got); then
			ok "$name: srv6d signs all $n packets (H flag, the HMAC hsig.py computes)"
		else
			fail "$name: srv6d signs all $n packets (H flag, the HMAC hsig.py computes)" "${why:-}" "$got"
		fi
		if needs "$name: srv6d's packets byte-identical to the kernel's" \
			seg6hmac "$(field "${PCASES[$i]}" 5)"; then
			if [ -n "$exp" ] && [ "$exp" = "$got" ]; then
				ok "$name: srv6d's packets byte-identical to the kernel's"
			else
				fail "$name: srv6d's packets byte-identical to the kernel's" \
					"kernel: $exp" "srv6d:  $got" "$(hexdiff "$(echo "$exp" | head -1)" "$(echo "$got" | head -1)")"
			fi
		fi
		check "$name: counters packets=$n errors=0" \
			test "$(counter "$pfx" packets)/$(counter "$pfx" errors)" = "$n/0"
	done
	srv6d_stop
fi

# ---------------------------------------------------------------------------
# 1b. srv6ctl: a SID and a policy added through the control socket sign with
# the running keys (the secret files reread, as a reload does), and srv6ctl
# shows key ids, never secrets
SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}
SOCK=$TMPD/ctl.sock
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
B6=$(field "${PCASES[3]}" 3); B6=${B6#sid }      # End.B6.Encaps ... hmac 7
PE=$(field "${PCASES[0]}" 3); PE=${PE#route }    # policy encap ... hmac 7
# the packets srv6ctl's SID and policy must send: the kernel's when it
# signed them, else srv6d's from its configuration in 1 (checked there)
PREF=$TMPD/kernel.parity PREF_NAME="the kernel"
if [ -z "$(crx "$PREF" end-b6-encaps)" ] || [ -z "$(crx "$PREF" policy-encap)" ]; then
	PREF=$TMPD/srv6d.parity PREF_NAME="srv6d's from its configuration (1)"
fi
# ctl_sends TAG: the End.B6.Encaps and policy packets as $PREF has them
ctl_sends() {
	local k exp got
	pkt_to_dst send --case end-b6-encaps policy-encap >"$TMPD/ctl.$1" || return 1
	for k in end-b6-encaps policy-encap; do
		exp=$(crx "$PREF" $k) got=$(crx "$TMPD/ctl.$1" $k)
		[ -n "$exp" ] && [ "$exp" = "$got" ] || return 1
	done
}
# import: ip prints key ids in hex (26 is "hmac 1A"), --from-kernel as ip does
imp_can=
if [ -x "$SRV6CTL" ]; then
	needs "import --from-kernel: the key ids (ip's hex 1A and 10 are 26 and 16)" seg6encap seg6local &&
		imp_can=1
	[ -n "$imp_can" ] || needs "import of ip's output: the same" seg6encap seg6local
fi
if [ -n "$imp_can" ]; then
	IMP_ROUTES=("2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 hmac 26 dev $D"
		    "2001:db8:ff::6 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 16 dev $D")
	for r in "${IMP_ROUTES[@]}"; do
		# shellcheck disable=SC2086
		ip -n "$NS_RTR" -6 route add $r || fail "setup: ip -6 route add $r"
	done
	imp=$(in_rtr "$SRV6CTL" import --from-kernel 2>&1)
	impstdin=$(ip -n "$NS_RTR" -6 route show | "$SRV6CTL" import 2>&1)
	imp_ok() {
		echo "$1" | grep -qx "route 2001:db8:96::/64 encap seg6 mode encap segs 2001:db8:aa::1 dev $D hmac 26" &&
		echo "$1" | grep -qx "sid 2001:db8:ff::6 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 hmac 16 dev $D"
	}
	check "import --from-kernel: the key ids (ip's hex 1A and 10 are 26 and 16)" imp_ok "$imp"
	check "import of ip's output: the same" imp_ok "$impstdin"
	ip -n "$NS_RTR" -6 route del 2001:db8:96::/64
	ip -n "$NS_RTR" -6 route del 2001:db8:ff::6
fi
if [ ! -x "$SRV6CTL" ]; then
	fail "srv6ctl is built ($SRV6CTL)"
elif start ctl "encap-source $TUNSRC" "control-socket $SOCK" "sid $SID action End"; then
	# shellcheck disable=SC2086
	check "srv6ctl sid add $B6: accepted" eval 'ctl sid add $B6 >/dev/null'
	# shellcheck disable=SC2086
	check "srv6ctl route add $PE: accepted" eval 'ctl route add $PE >/dev/null'
	check "srv6ctl-added SID and policy sign byte-identical to $PREF_NAME" ctl_sends a
	check "sid show / route show: the key id" \
		eval '[ "$(ctl sid show 2001:db8:ff::8)" = "$B6" ] &&
		      [ "$(ctl route show 2001:db8:99::/64)" = "$PE" ]'
	out=$(ctl sid show; ctl route show; ctl -j -s sid show; ctl -j -s route show; ctl status
	      ctl stats show --format prometheus; ctl -j stats show)
	check "no secret in srv6ctl's output ($(echo "$out" | wc -l) lines)" \
		eval '[ -n "$out" ] && ! echo "$out" | grep -qF -e "$K7" -e "$K8"'
	check "sid show -j -s: drop reason hmac named" \
		eval 'ctl -j -s sid show $SID | "$PY" -c "import json, sys; assert \"hmac\" in json.load(sys.stdin)[0][\"stats\"][\"drops\"]"'
	check "sid add with an undefined key: refused, exit 1" \
		eval '! ctl sid add 2001:db8:ff::9 action End.B6.Encaps srh segs 2001:db8:aa::1 hmac 9 \
			>/dev/null 2>"$TMPD/e" && grep -q "hmac key 9 is not defined" "$TMPD/e"'
	check "route add ... hmac without a key id: refused" \
		eval '! ctl route add 2001:db8:97::/64 encap seg6 mode encap segs 2001:db8:aa::1 hmac \
			>/dev/null 2>&1'
	chmod 0644 "$TMPD/k7"
	check "sid add while key 7's file is world-readable: refused as a reload, file named" \
		eval '! ctl sid add 2001:db8:ff::9 action End >/dev/null 2>"$TMPD/e" &&
		      grep -q "$TMPD/k7: group- or world-accessible" "$TMPD/e"'
	chmod 0600 "$TMPD/k7"
	check "... and the running keys still sign" ctl_sends b
	srv6d_stop
fi

# ---------------------------------------------------------------------------
# 2. the kernel signs (src), srv6d verifies (End at rtr); without a kernel
# that signs, hsig.py builds the same three packets (hmac 7, hmac 8, none)
if needs "kernel in src signs (hmac 7, hmac 8) and leaves the third unsigned" seg6encap seg6hmac; then
	kset "$NS_SRC" 7 sha256 "$K7"
	kset "$NS_SRC" 8 sha1 "$K8"
	for r in "2001:db8:77::/64 encap seg6 mode encap segs $SID,2001:db8:aa::1 hmac 7" \
		 "2001:db8:75::/64 encap seg6 mode encap segs $SID,2001:db8:aa::1 hmac 8" \
		 "2001:db8:76::/64 encap seg6 mode encap segs $SID,2001:db8:aa::1"; do
		# shellcheck disable=SC2086
		ip -n "$NS_SRC" -6 route add $r via $RTR_ADDR_SRC dev eth0 ||
			fail "setup: ip -6 route add $r (in src)"
	done
	mapfile -t KP < <(in_src "${HP[@]}" ksign eth0 2001:db8:77::1 2001:db8:75::1 2001:db8:76::1)
	P=${KP[0]:-} P8=${KP[1]:-} N=${KP[2]:-}
	if [ ${#KP[@]} -ne 3 ] || [ "${P:90:2}" != 08 ] || [ "${P8:90:2}" != 08 ] || [ "${N:90:2}" != 00 ]; then
		fail "kernel in src signs (hmac 7, hmac 8) and leaves the third unsigned" "${KP[@]}"
		summary; exit
	fi
	ok "kernel in src signs (hmac 7, hmac 8) and leaves the third unsigned"
	if why=$("${HS[@]}" check "$P" "$P8"); then ok "hsig.py computes the HMAC of src's kernel (sha256, sha1)"
	else fail "hsig.py computes the HMAC of src's kernel (sha256, sha1)" "$why"; fi
else
	P=$("${HS[@]}" build $SRC_ADDR $SID 2001:db8:aa::1 2001:db8:77::1 7)
	P8=$("${HS[@]}" build $SRC_ADDR $SID 2001:db8:aa::1 2001:db8:75::1 8)
	N=$("${HS[@]}" build $SRC_ADDR $SID 2001:db8:aa::1 2001:db8:76::1 0)
	[ -n "$P" ] && [ -n "$P8" ] && [ -n "$N" ] || { fail "hsig.py builds the inputs"; summary; exit; }
	echo "# the inputs: hsig.py's (the kernel cannot sign here)"
fi
T=$("${HP[@]}" tamper "$P" 63)              # Segment List[0] aa::1 -> aa::3
F=$("${HP[@]}" noflag "$P" sha256 "$K7")    # RFC shape: no H flag
A=$("${HP[@]}" padafter "$P")               # RFC shape: PadN after the TLV
INPUTS=("$P" "$T" "$N" "$F" "$A" "$P8")
NAMES=("signed sha256" "one segment byte changed" "no HMAC TLV" "TLV without the H flag (RFC shape)"
       "TLV followed by PadN (RFC shape)" "signed sha1")

# verify_run TAG WANT CONF-LINE...: WANT is one letter per input, y = srv6d
# forwards it processed (DA = Segment List[0]), n = nothing reaches dst
verify_run() {
	local tag=$1 want=$2 i got exp drops=0; shift 2
	start "$tag" "sid $SID action End" "$@" || return
	pkt_to_dst send --hex "${INPUTS[@]}" >"$TMPD/verify.$tag"
	for i in "${!INPUTS[@]}"; do
		got=$(rx "$TMPD/verify.$tag" "$i")
		exp=$AA1; [ "$i" -eq 1 ] && exp=$AA3
		if [ "${want:$i:1}" = y ]; then
			check "$tag: ${NAMES[$i]} passes" test "$(echo -n "$got" | grep -c .)" -eq 1 -a "$(da "$got")" = "$exp"
		else
			drops=$((drops + 1))
			check "$tag: ${NAMES[$i]} dropped" test -z "$got"
		fi
	done
	if srv6d_stats; then
		check "$tag: drop reason hmac counts $drops" test "$(counter $SID hmac)" -eq "$drops"
	else
		fail "$tag: stats file on SIGUSR1"
	fi
	if [ "${want:1:1}" = n ]; then
		# RFC 8754 2.1.2.1: Parameter Problem code 0 pointing at the TLV (40 + 8 + 32)
		pkt_to_src send --decode --hex "$T" >"$TMPD/icmp.$tag"
		check "$tag: tampered packet answered with Parameter Problem code 0 pointer 80" \
			grep -q "^IC hex 0 $SID 4 0 80 " "$TMPD/icmp.$tag"
		check "$tag: failure logged" grep -q "SRH HMAC check failed" "$SRV6D_LOG"
	fi
	srv6d_stop
}
verify_run require ynnyyy "hmac require"
verify_run verify  ynyyyy "hmac verify"
verify_run ignore  yyyyyy "hmac ignore"
verify_run default ynyyyy
verify_run require-dev ynnyyy "hmac ignore" "hmac require dev $RTR_IF_SRC"
verify_run ignore-dev  yyyyyy "hmac require" "hmac ignore dev $RTR_IF_SRC"
verify_run other-dev   yyyyyy "hmac ignore" "hmac require dev $RTR_IF_DST"

# reload: keys change with the configuration, and a refused key file keeps
# the running one.  Start with the wrong secret for key 7: P fails.
printf '%s\n' "wrong-$K7" >"$TMPD/k7"
# sends_p TAG: P reaches dst processed
sends_p() {
	pkt_to_dst send --hex "$P" >"$TMPD/reload.$1"
	[ "$(da "$(rx "$TMPD/reload.$1" 0)")" = "$AA1" ]
}
# reloads N: wait for the Nth "reloaded" or "keeping the running" line
reloads() { [ "$(grep -c -e 'reloaded ' -e 'keeping the running configuration' "$SRV6D_LOG")" -ge "$1" ]; }
if start reload "sid $SID action End" "hmac require"; then
	if sends_p a; then
		fail "reload: key 7 with another secret: the packet signed with key 7 is dropped"
	else
		ok "reload: key 7 with another secret: the packet signed with key 7 is dropped"
	fi
	printf '%s\n' "$K7" >"$TMPD/k7"
	kill -HUP "$SRV6D_PID"
	wait_until 10 reloads 1 || fail "reload: srv6d reloads on SIGHUP"
	check "reload: the right secret after SIGHUP: the packet passes" sends_p b
	chmod 0644 "$TMPD/k7"
	kill -HUP "$SRV6D_PID"
	wait_until 10 reloads 2 || fail "reload: srv6d answers the second SIGHUP"
	check "reload: a world-readable key file is refused, file named" \
		grep -q "reload: .*$TMPD/k7: group- or world-accessible.*keeping the running configuration" "$SRV6D_LOG"
	check "reload: ... and the running keys still verify" sends_p c
	chmod 0600 "$TMPD/k7"
	srv6d_stop
fi

# ---------------------------------------------------------------------------
# 3. srv6d signs, the kernel verifies (dst: End with seg6_require_hmac=1);
# without one, 1 checked srv6d's signatures with hsig.py
K3=("kernel End (require) accepts srv6d's sha256 and sha1 signatures: 3 packets, no error"
    "kernel End (require) counts an error for srv6d's unsigned policy"
    "kernel End counts an error when its key 7 differs")
k3=1
for c in "${K3[@]}"; do needs "$c" seg6local seg6hmac || k3=; done
if [ -n "$k3" ]; then
	kset "$NS_DST" 7 sha256 "$K7"
	kset "$NS_DST" 8 sha1 "$K8"
	in_dst sysctl -qw net.ipv6.conf.eth0.seg6_enabled=1 net.ipv6.conf.eth0.seg6_require_hmac=1 ||
		fail "setup: seg6_require_hmac=1 on dst's eth0"
	ip -n "$NS_DST" -6 route add 2001:db8:ee::1 encap seg6local action End count dev eth0 ||
		fail "setup: ip -6 route add 2001:db8:ee::1 encap seg6local action End count dev eth0 (in dst)"
	ip -n "$NS_DST" -6 route add blackhole 2001:db8:aa::/64
	# kcount FIELD: the count of dst's End (packets, errors)
	kcount() {
		ip -n "$NS_DST" -s -6 route show 2001:db8:ee::1 |
			awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
	}
	inner() {
		"$PY" -c "
from scapy.layers.inet6 import IPv6
from scapy.layers.inet import UDP
from scapy.packet import Raw
print(bytes(IPv6(src='$SRC_ADDR', dst='$1') / UDP(sport=4000, dport=9) / Raw(b'x' * 16)).hex())"
	}
	I99=$(inner 2001:db8:99::1) I98=$(inner 2001:db8:98::1) I97=$(inner 2001:db8:97::1)
	if start ksign \
		"route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:ee::1,2001:db8:aa::1 hmac 7" \
		"route 2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:ee::1,2001:db8:aa::1 hmac 8" \
		"route 2001:db8:97::/64 encap seg6 mode encap segs 2001:db8:ee::1,2001:db8:aa::1"; then
		p0=$(kcount packets) e0=$(kcount errors)
		pkt_to_dst send --hex "$I99" "$I99" "$I98" >"$TMPD/ksign.1"
		check "${K3[0]}" test "$(( $(kcount packets) - p0 ))/$(( $(kcount errors) - e0 ))" = "3/0"
		pkt_to_dst send --hex "$I97" >"$TMPD/ksign.2"
		check "${K3[1]}" test "$(( $(kcount packets) - p0 ))/$(( $(kcount errors) - e0 ))" = "3/1"
		kset "$NS_DST" 7 sha256 "not-$K7"
		pkt_to_dst send --hex "$I99" >"$TMPD/ksign.3"
		check "${K3[2]}" test "$(( $(kcount packets) - p0 ))/$(( $(kcount errors) - e0 ))" = "3/2"
		srv6d_stop
	fi
fi

# ---------------------------------------------------------------------------
# 4. secret files
if srv6d_built; then
	printf '%s\n' "${K8}x" >"$TMPD/k65"
	printf 'hmac key 9 algo sha1 secret-file %s\n' "$TMPD/k65" >"$TMPD/bad65.conf"
	out=$(in_rtr "$SRV6D" --check -c "$TMPD/bad65.conf" 2>&1); rc=$?
	check "a 65-byte secret is refused, file named (rc=$rc)" \
		test $rc -eq 1 -a -n "$(echo "$out" | grep -F "$TMPD/k65: the secret is longer than 64 bytes")"
	printf '%s\n' "group-can-read" >"$TMPD/kgrp"; chmod 0640 "$TMPD/kgrp"
	printf 'hmac key 9 algo sha256 secret-file %s\n' "$TMPD/kgrp" >"$TMPD/badgrp.conf"
	out=$(in_rtr "$SRV6D" --check -c "$TMPD/badgrp.conf" 2>&1); rc=$?
	check "a group-readable secret file is refused, file named, secret not shown (rc=$rc)" \
		test $rc -eq 1 -a -n "$(echo "$out" | grep -F "$TMPD/kgrp: group- or world-accessible")" \
		-a -z "$(echo "$out" | grep -F group-can-read)"
fi

# ---------------------------------------------------------------------------
# 5. `hmac require dev IF` follows its interface by name: rtr's interface to
#    src deleted and created again (another ifindex) under a running srv6d;
#    the unsigned packet must still be dropped (the old ifindex matched
#    nothing and the global `verify` let it through).
recreate_src_link() {
	ip -n "$NS_RTR" link del "$RTR_IF_SRC"    # src's eth0 goes with it
	ip -n "$NS_SRC" link add eth0 type veth peer name "$RTR_IF_SRC" netns "$NS_RTR" || return 1
	in_rtr sysctl -qw "net.ipv6.conf.$RTR_IF_SRC.seg6_enabled=1" >/dev/null
	ip -n "$NS_SRC" addr add $SRC_ADDR/64 dev eth0 nodad
	ip -n "$NS_RTR" addr add $RTR_ADDR_SRC/64 dev "$RTR_IF_SRC" nodad
	ip -n "$NS_SRC" link set eth0 up
	ip -n "$NS_RTR" link set "$RTR_IF_SRC" up
	SRC_MAC=$(mac_of "$NS_SRC" eth0)
	RTR_MAC_SRC=$(mac_of "$NS_RTR" "$RTR_IF_SRC")
	ip -n "$NS_SRC" neigh replace $RTR_ADDR_SRC lladdr "$RTR_MAC_SRC" dev eth0 nud permanent
	ip -n "$NS_RTR" neigh replace $SRC_ADDR lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
	wait_until 5 topo_up
}
if start relink "sid $SID action End" "hmac verify" "hmac require dev $RTR_IF_SRC"; then
	pkt_to_dst send --hex "$N" "$P" >"$TMPD/relink.a"
	check "relink: before: unsigned dropped, signed passes" \
		test -z "$(rx "$TMPD/relink.a" 0)" -a "$(da "$(rx "$TMPD/relink.a" 1)")" = "$AA1"
	old_ifi=$(in_rtr cat "/sys/class/net/$RTR_IF_SRC/ifindex")
	if recreate_src_link; then
		new_ifi=$(in_rtr cat "/sys/class/net/$RTR_IF_SRC/ifindex")
		check "relink: $RTR_IF_SRC created again with another ifindex ($old_ifi -> $new_ifi)" \
			test "$old_ifi" != "$new_ifi"
		wait_until 5 grep -Eq "hmac dev $RTR_IF_SRC: interface (created again|found)" "$SRV6D_LOG"
		check "relink: srv6d logs the interface found again" \
			grep -Eq "hmac dev $RTR_IF_SRC: interface (created again|found) \(ifindex $new_ifi\)" "$SRV6D_LOG"
		pkt_to_dst send --hex "$N" "$P" >"$TMPD/relink.b"
		check "relink: after: unsigned still dropped" test -z "$(rx "$TMPD/relink.b" 0)"
		check "relink: after: signed still passes" test "$(da "$(rx "$TMPD/relink.b" 1)")" = "$AA1"
		if srv6d_stats; then
			check "relink: drop reason hmac counts both unsigned packets" \
				test "$(counter $SID hmac)" -eq 2
		else
			fail "relink: stats file on SIGUSR1"
		fi
	else
		fail "relink: $RTR_IF_SRC created again"
	fi
	srv6d_stop
fi
summary
