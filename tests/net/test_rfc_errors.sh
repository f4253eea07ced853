#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_rfc_errors.sh - srv6d's answers where the kernel has none, checked
# against RFC 8986 (§4.1, §4.1.1, §4.4) and RFC 4443 instead of the kernel.
#
#   +---------------+      +--------------------------------+      +---------------+
#   | src           |      | rtr  srv6d                     |      | dst           |
#   |          eth0 +------+ eth0                      eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2    2001:db8:2::1 |      | 2001:db8:2::2 |
#   | sends, and    |      | sid 2001:db8:ff::1 End         |      +---------------+
#   | captures the  |      | sid 2001:db8:ff::5 End.DX6     |
#   | ICMPv6 answer |      | net.ipv6.icmp.ratelimit = 0    |
#   +---------------+      +--------------------------------+
#
# Each bad packet must draw exactly the RFC's ICMPv6 message (type, code,
# pointer, quoting the invoking packet), move the SID's error counter and the
# named drop reason, and not be forwarded; srv6d must survive all of it.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin
# deterministic answers: no ICMPv6 rate limit in rtr (srv6d reads the sysctl)
in_rtr sysctl -qw net.ipv6.icmp.ratelimit=0 >/dev/null
# count what rtr forwards from src toward dst (must stay 0 for bad input)
in_rtr ip6tables -A FORWARD -s $SRC_ADDR -o "$RTR_IF_DST"

SID=2001:db8:ff::1 DX6=2001:db8:ff::5
conf=$TMPD/srv6d.conf
cat >"$conf" <<EOF
queue 0
steer auto
sid $SID action End
sid $DX6 action End.DX6 nh6 $DST_ADDR
$(conf_extra)
EOF

if ! srv6d_built; then
	fail "srv6d answers per RFC 8986" "srv6d not built ($SRV6D)"
	summary; exit
fi
if ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	fail "srv6d starts" "exit ${SRV6D_RC:-?}"
	summary; exit
fi

# case | what it is | expected "src type code pointer" of the answer
CASES=(
"err-echo-sl0|ping SID, SRH with SL=0: Echo Reply from the SID|$SID 129 0 *"
"err-echo-nosrh|ping SID, no SRH: Echo Reply from the SID|$SID 129 0 *"
"err-udp-sl0|UDP at SL=0: Parameter Problem code 4 at the upper layer (64)|* 4 4 64"
"err-udp-nosrh|UDP, no SRH: Parameter Problem code 4 at the upper layer (40)|* 4 4 40"
"err-hlim1|hop limit 1: Time Exceeded|* 3 0 *"
"err-le-gt-max|Last Entry > max_LE: Parameter Problem code 0 at Segments Left (43)|* 4 0 43"
"err-sl-gt-le|Segments Left > Last Entry+1: Parameter Problem code 0 at Segments Left (43)|* 4 0 43"
"err-dx6-sl1|End.DX6 with SL=1: Parameter Problem code 0 at Segments Left (43)|* 4 0 43"
)
keys=(); for c in "${CASES[@]}"; do keys+=("${c%%|*}"); done
out=$TMPD/answers
pkt_to_src send --decode --case "${keys[@]}" >"$out" || fail "capture at src" "pkt.py failed"

for c in "${CASES[@]}"; do
	IFS='|' read -r key what want <<<"$c"
	read -r wsrc wtype wcode wptr <<<"$want"
	mapfile -t ans < <(awk -v k="$key" '$1 == "IC" && $2 == k' "$out")
	if [ ${#ans[@]} -ne 1 ]; then
		fail "$what" "expected one ICMPv6 answer, got ${#ans[@]}:" "${ans[@]}"
		continue
	fi
	# IC case idx src type code pointer quote=
	read -r _ _ _ src type code ptr quote <<<"${ans[0]}"
	if { [ "$wsrc" = "*" ] || [ "$src" = "$wsrc" ]; } && [ "$type" = "$wtype" ] &&
	   [ "$code" = "$wcode" ] && { [ "$wptr" = "*" ] || [ "$ptr" = "$wptr" ]; } &&
	   [ "$quote" = quote=1 ]; then
		ok "$what"
	else
		fail "$what" "want src=$wsrc type=$wtype code=$wcode pointer=$wptr quote=1" \
			"got  src=$src type=$type code=$code pointer=$ptr $quote"
	fi
done

fwd=$(in_rtr ip6tables -L FORWARD -v -x -n | awk '$0 ~ /2001:db8:1::1/ {print $1; exit}')
check "no bad packet forwarded toward dst (forwarded: ${fwd:-?})" [ "${fwd:-x}" = 0 ]

# counters (the kernel's seg6local semantics: "packets" counts packets
# processed correctly, here the two Echo Requests answered; "errors" the rest)
if srv6d_stats; then
	sc() { # SID FIELD WANT
		local got; got=$(counter "$1" "$2")
		if [ "$got" -eq "$3" ]; then ok "counter $1 $2 = $3"
		else fail "counter $1 $2 = $3" "stats: $(grep -F "$1 " "$SRV6D_STATS")"; fi
	}
	sc $SID packets 2
	sc $SID errors 5
	sc $SID sl-zero 1
	sc $SID no-srh 1
	sc $SID hop-limit 1
	sc $SID srh-invalid 2
	sc $DX6 packets 0
	sc $DX6 errors 1
	sc $DX6 sl-nonzero 1
else
	fail "stats file on SIGUSR1" "no $SRV6D_STATS within 5 s"
fi

# the engine's malformed-packet corpus (tests/fuzz/corpus/fuzz_srh, raw IPv6
# packets), readdressed from src to the End SID: srv6d must survive it, count at most
# one outcome per packet, and every ICMPv6 message coming back must be
# Parameter Problem, Time Exceeded or Echo Reply quoting/echoing its packet
# (srv6d's) or Destination Unreachable / Packet Too Big (rtr's kernel, for
# packets End forwarded toward a segment rtr has no route to)
corpus=$TOP_DIR/tests/fuzz/corpus/fuzz_srh
hexes=()
sidhex=20010db800ff00000000000000000001 srchex=20010db8000100000000000000000001
for f in "$corpus"/*; do
	[ -f "$f" ] || continue
	h=$(od -An -tx1 -v "$f" | tr -d ' \n')
	[ ${#h} -ge 80 ] && [ "${h:0:1}" = 6 ] || continue
	hexes+=("${h:0:16}$srchex$sidhex${h:80}")
done
if [ ${#hexes[@]} -gt 0 ] && srv6d_stats; then
	before=$(( $(counter $SID packets) + $(counter $SID errors) ))
	pkt --cap-ns "$NS_SRC" --timeout 1 send --decode --hex "${hexes[@]}" >"$TMPD/corpus" ||
		fail "corpus capture" "pkt.py failed"
	echo "# corpus: $(grep -c '^IC' "$TMPD/corpus") ICMPv6 answers to ${#hexes[@]} packets:" \
		"$(awk '$1 == "IC" {print $5 "/" $6}' "$TMPD/corpus" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
	check "srv6d survives the malformed-packet corpus (${#hexes[@]} packets)" srv6d_alive
	# types 1/2 come from rtr's kernel after srv6d's rewrite, so they quote
	# the rewritten packet; srv6d's own answers quote what was sent
	bad=$(awk '$1 == "IC" && !(($5 >= 1 && $5 <= 4) || $5 == 129) ||
		   $1 == "IC" && ($5 == 3 || $5 == 4 || $5 == 129) && $8 != "quote=1"' "$TMPD/corpus")
	check "corpus: every ICMPv6 answer is an RFC one quoting its packet" [ -z "$bad" ]
	[ -n "$bad" ] && echo "$bad" | sed 's/^/       /'
	if srv6d_stats; then
		after=$(( $(counter $SID packets) + $(counter $SID errors) ))
		check "corpus: at most one outcome counted per packet ($((after - before)) for ${#hexes[@]})" \
			eval '[ $((after - before)) -gt 0 ] && [ $((after - before)) -le ${#hexes[@]} ]'
	fi
fi

# a valid packet still goes through after all of that
# as many packets must arrive as the "end" case sends (pkt.py list --case end)
want=$("$PY" "$PKT" build end | grep -c .)
mapfile -t good < <(pkt_to_dst send --case end | awk '$1 == "RX"')
check "End still forwards after the bad input (${#good[@]} of $want)" \
	test "$want" -gt 0 -a "${#good[@]}" -eq "$want"
check "srv6d still running" srv6d_alive
srv6d_stop TERM
check "srv6d exits 0 on SIGTERM (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
summary
