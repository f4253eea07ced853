#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_oracle.sh - srv6d against the kernel's own seg6local/seg6, byte for byte.
#
#   +---------------+      +--------------------------------+      +---------------+
#   | src           |      | rtr                            |      | dst           |
#   |          eth0 +------+ eth0                      eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2    2001:db8:2::1 |      | 2001:db8:2::2 |
#   +---------------+      |  (a) kernel: ip -6 route ...   |      |  capture      |
#     scapy sends          |      encap seg6local / seg6    |      +---------------+
#                          |  (b) srv6d (NFQUEUE, raw       |
#                          |      PREROUTING, steer auto)   |
#                          +--------------------------------+
#   SIDs 2001:db8:ff::/64, C-SID locators 2001:db8:100::/48, 2001:db8:101::/48,
#   policies 2001:db8:99::/64 (encap), 2001:db8:98::/64 (inline);
#   table 100 in rtr routes 2001:db8:cc::/64 (unreachable in main).
#
# Every case's packets go through the same topology twice: first with the
# kernel routes installed in rtr, then with those removed and srv6d running an
# equivalent conf.  What dst receives must be identical byte for byte, and
# srv6d's per-SID counters must show every input once.  Three phases:
#   1. every case, encapsulation source fixed on both sides (ip sr tunsrc /
#      encap-source 2001:db8:1::2, which source selection would not pick);
#   2. End.B6.Encaps and policy encap with no source configured anywhere;
#   3. the same two with net.ipv6.seg6_flowlabel = -1;
#   4. the cases with a next-hop context (End.X, End.T, End.DX6, End.DT6,
#      End.X next-csid) with `mark-mask 0xffff0000` and a masked
#      `CONNMARK --restore-mark --mask 0xff00` in rtr's mangle PREROUTING,
#      once per egress mode (`egress verdict`, `egress inject`);
#   5. the same cases under an unmasked `CONNMARK --restore-mark` (default
#      mark-mask, every bit srv6d's), once with `egress verdict` and once with
#      `egress inject`: the kernel's results never meet that rule, srv6d's
#      pass its context gate (issue 25).
# Before srv6d starts, a control run (neither kernel routes nor srv6d) must
# differ from the oracle for every case, so a leftover kernel route cannot
# fake a pass; removing a kernel route must succeed.  A case the running
# kernel refuses to configure has no oracle: its byte comparison is a
# "[SKIP]", but srv6d still runs it and must forward every input once and
# count it.  When srv6d is not built, every srv6d check fails: the kernel is
# the oracle, not a reason to pass.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin

TUNSRC=$RTR_ADDR_SRC   # not the address source selection would pick (2::1)
D=$RTR_IF_DST

# name | pkt.py case | kernel route (ip -6 route add ...) | srv6d conf line | stats SID/prefix
CASES=(
"End|end|2001:db8:ff::1 encap seg6local action End dev $D|sid 2001:db8:ff::1 action End|2001:db8:ff::1"
"End flavors psp|end-psp|2001:db8:ff::2 encap seg6local action End flavors psp dev $D|sid 2001:db8:ff::2 action End flavors psp|2001:db8:ff::2"
"End.X|end-x|2001:db8:ff::3 encap seg6local action End.X nh6 $DST_ADDR oif $D dev $D|sid 2001:db8:ff::3 action End.X nh6 $DST_ADDR oif $D|2001:db8:ff::3"
"End.T|end-t|2001:db8:ff::4 encap seg6local action End.T table 100 dev $D|sid 2001:db8:ff::4 action End.T table 100|2001:db8:ff::4"
"End.DX6 nh6|end-dx6|2001:db8:ff::5 encap seg6local action End.DX6 nh6 $DST_ADDR dev $D|sid 2001:db8:ff::5 action End.DX6 nh6 $DST_ADDR|2001:db8:ff::5"
"End.DX6 nh6 ::|end-dx6-lookup|2001:db8:ff::15 encap seg6local action End.DX6 nh6 :: dev $D|sid 2001:db8:ff::15 action End.DX6 nh6 ::|2001:db8:ff::15"
"End.DT6 table 100|end-dt6|2001:db8:ff::6 encap seg6local action End.DT6 table 100 dev $D|sid 2001:db8:ff::6 action End.DT6 table 100|2001:db8:ff::6"
"End.B6|end-b6|2001:db8:ff::7 encap seg6local action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $D|sid 2001:db8:ff::7 action End.B6 srh segs 2001:db8:aa::1,2001:db8:aa::2|2001:db8:ff::7"
"End.B6.Encaps|end-b6-encaps|2001:db8:ff::8 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $D|sid 2001:db8:ff::8 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2|2001:db8:ff::8"
"End next-csid|end-csid|2001:db8:100::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 dev $D|sid 2001:db8:100::/48 action End flavors next-csid lblen 32 nflen 16|2001:db8:100::/48"
"End.X next-csid|end-x-csid|2001:db8:101::/48 encap seg6local action End.X nh6 $DST_ADDR oif $D flavors next-csid lblen 32 nflen 16 dev $D|sid 2001:db8:101::/48 action End.X nh6 $DST_ADDR oif $D flavors next-csid lblen 32 nflen 16|2001:db8:101::/48"
"policy encap|policy-encap|2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev $D|route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2|2001:db8:99::/64"
"policy inline|policy-inline|2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:aa::1 dev $D|route 2001:db8:98::/64 encap seg6 mode inline segs 2001:db8:aa::1|2001:db8:98::/64"
)

field() { local IFS='|'; local -a f; read -ra f <<<"$1"; echo "${f[$2]:-}"; }
# inputs of every case, built once: "case idx hex"
keys=(); for c in "${CASES[@]}"; do keys+=("$(field "$c" 1)"); done
"$PY" "$PKT" build "${keys[@]}" >"$TMPD/inputs" || { echo "pkt.py build failed"; exit 1; }
ninputs() { awk -v c="$1" '$1 == c' "$TMPD/inputs" | wc -l; }
input() { awk -v c="$1" -v i="$2" '$1 == c && $2 == i {print $3}' "$TMPD/inputs"; }
# rx FILE CASE: the captured hex of CASE, one packet a line
rx() { awk -v c="$2" '$1 == "RX" && $2 == c {print $4}' "$1"; }

# kernel_routes add|del IDX...: install/remove the kernel routes of cases;
# with "add", sets ACCEPTED to the indexes the kernel accepted and REFUSED
# to the others (with a [SKIP] line each); a failed "del" is a [FAIL].
kernel_routes() {
	local op=$1 i err; shift
	[ "$op" = add ] && ACCEPTED=() REFUSED=()
	for i in "$@"; do
		# shellcheck disable=SC2046
		if err=$(ip -n "$NS_RTR" -6 route "$op" $(field "${CASES[$i]}" 2) 2>&1); then
			[ "$op" = add ] && ACCEPTED+=("$i")
		elif [ "$op" = add ]; then
			REFUSED+=("$i")
			local f why=
			for f in $(route_feats "$(field "${CASES[$i]}" 2)"); do
				kfeat "$f" || { why=$(kfeat_why "$f"); break; }
			done
			if [ -n "$why" ]; then
				skip "$(field "${CASES[$i]}" 0) byte-identical to kernel" "$why"
			else
				skip "$(field "${CASES[$i]}" 0) byte-identical to kernel" \
					"kernel refuses: ip -6 route add $(field "${CASES[$i]}" 2): $err"
			fi
		else
			fail "$(field "${CASES[$i]}" 0): kernel route removed" "ip -6 route del: $err"
		fi
	done
}

# run_phase TAG LABEL SRC IDX...: the cases IDX through the kernel, then
# through srv6d, compared.  SRC is the encapsulation source for both sides
# ("" = source address selection on both sides).  LABEL is appended to every
# check name.
run_phase() {
	local tag=$1 label=$2 src=$3 i c name key exp got n p e why; shift 3
	local keys=() kkeys=() kcap=$TMPD/kernel.$tag scap=$TMPD/srv6d.$tag conf=$TMPD/srv6d.$tag.conf
	local run=("$@")

	# ---- (a) kernel ----
	in_rtr ip sr tunsrc set "${src:-::}"
	kernel_routes add "$@"
	local kran=("${ACCEPTED[@]}") refused=" ${REFUSED[*]} "
	for i in "${run[@]}"; do keys+=("$(field "${CASES[$i]}" 1)"); done
	for i in "${kran[@]}"; do kkeys+=("$(field "${CASES[$i]}" 1)"); done
	: >"$kcap"
	if [ ${#kran[@]} -gt 0 ]; then
		pkt_to_dst send --case "${kkeys[@]}" >"$kcap" || fail "kernel-mode capture$label" "pkt.py failed"
		kernel_routes del "${kran[@]}"
		# control: with neither the kernel routes nor srv6d each case's
		# output must differ from the oracle's, else its comparison proves nothing
		pkt_to_dst send --case "${kkeys[@]}" >"$TMPD/control.$tag"
		for key in "${kkeys[@]}"; do
			if [ "$(rx "$TMPD/control.$tag" "$key")" != "$(rx "$kcap" "$key")" ]; then
				ok "control$label: $key without kernel route or srv6d differs from the oracle"
			else
				fail "control$label: $key without kernel route or srv6d differs from the oracle" \
					"kernel routes still active?" "$(ip -n "$NS_RTR" -6 route)"
			fi
		done
	fi
	in_rtr ip sr tunsrc set ::
	# the oracle must have forwarded every input, else the case tests nothing
	for i in "${kran[@]}"; do
		key=$(field "${CASES[$i]}" 1)
		n=$(ninputs "$key") got=$(rx "$kcap" "$key" | wc -l)
		[ "$got" -eq "$n" ] ||
			fail "$(field "${CASES[$i]}" 0)$label: kernel oracle forwarded $got of $n packets"
	done

	# ---- (b) srv6d ----
	{
		echo "# generated by $(basename "$0")"
		echo "queue 0-1"
		echo "queue-maxlen 4096"
		echo "fail-open no"
		echo "steer auto"
		[ -n "$src" ] && echo "encap-source $src"
		[ -n "${PHASE_CONF:-}" ] && echo "$PHASE_CONF"
		# a phase that names its egress keeps it (SRV6D_EXTRA_CONF's
		# egress line would be a duplicate)
		if [[ "${PHASE_CONF:-}" == *egress* ]]; then conf_extra | grep -v '^egress'; else conf_extra; fi
		for i in "${run[@]}"; do field "${CASES[$i]}" 3; done
	} >"$conf"
	why=
	if ! srv6d_built; then
		why="srv6d not built ($SRV6D)"
	elif ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.$tag.log"; then
		why="srv6d did not start (exit ${SRV6D_RC:-?}), conf:"
		while IFS= read -r l; do why+=$'\n'"         $l"; done <"$conf"
	fi
	if [ -n "$why" ]; then
		for i in "${run[@]}"; do fail "$(field "${CASES[$i]}" 0) byte-identical to kernel$label" "$why"; done
		return 0
	fi

	pkt_to_dst send --case "${keys[@]}" >"$scap" || fail "srv6d-mode capture$label" "pkt.py failed"
	for i in "${run[@]}"; do
		name=$(field "${CASES[$i]}" 0)$label key=$(field "${CASES[$i]}" 1)
		exp=$(rx "$kcap" "$key") got=$(rx "$scap" "$key")
		if [[ "$refused" == *" $i "* ]]; then
			# no oracle: every input forwarded once by srv6d, no more
			n=$(ninputs "$key")
			check "$name: srv6d forwards each of its $n inputs once (kernel refused the route)" \
				test "$(echo -n "$got" | grep -c .)" -eq "$n"
			continue
		fi
		if [ -n "$exp" ] && [ "$exp" = "$got" ]; then
			ok "$name byte-identical to kernel"
			continue
		fi
		local msg=("kernel forwarded $(echo "$exp" | grep -c .) packet(s), srv6d $(echo "$got" | grep -c .)")
		local ea ga j l
		mapfile -t ea <<<"$exp"; mapfile -t ga <<<"$got"
		for j in "${!ea[@]}"; do
			[ "${ea[$j]}" = "${ga[$j]:-}" ] && continue
			msg+=("packet $j input:  $(input "$key" "$j")"
			      "packet $j kernel: ${ea[$j]}" "packet $j srv6d:  ${ga[$j]:-<none>}")
			while IFS= read -r l; do msg+=("$l"); done < <(hexdiff "${ea[$j]}" "${ga[$j]:-}")
		done
		fail "$name byte-identical to kernel" "${msg[@]}"
	done

	# per-SID counters: every input counted once, no errors
	if srv6d_stats; then
		for i in "${run[@]}"; do
			sid=$(field "${CASES[$i]}" 4); [ -n "$sid" ] || continue
			name=$(field "${CASES[$i]}" 0)$label key=$(field "${CASES[$i]}" 1)
			n=$(ninputs "$key") p=$(counter "$sid" packets) e=$(counter "$sid" errors)
			if [ "$p" -eq "$n" ] && [ "$e" -eq 0 ]; then
				ok "$name counters (packets=$p errors=0)"
			else
				fail "$name counters" "want packets=$n errors=0, stats say packets=$p errors=$e:" \
					"$(grep -F " $sid " "$SRV6D_STATS"; grep -F "$sid " "$SRV6D_STATS")"
			fi
		done
	else
		fail "stats file on SIGUSR1$label" "no $SRV6D_STATS within 5 s"
	fi

	check "srv6d still running after all cases$label" srv6d_alive
	srv6d_stop TERM
	check "srv6d exits 0 on SIGTERM$label (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
	check "srv6d removed its steering rules$label" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q NFQUEUE"
}

# phase 1: every case, encapsulation source fixed on both sides
run_phase all "" "$TUNSRC" "${!CASES[@]}"
# phase 2: the encapsulating cases with no source configured anywhere: srv6d
# must pick what the kernel's source address selection picks
enc=(); for i in "${!CASES[@]}"; do
	case "$(field "${CASES[$i]}" 1)" in policy-encap|end-b6-encaps) enc+=("$i") ;; esac
done
run_phase sas " (source address selection)" "" "${enc[@]}"
# phase 3: net.ipv6.seg6_flowlabel = -1 (outer flow label zero) on both sides.
# (1 hashes with the kernel's per-boot secret: not reproducible byte for byte.)
in_rtr sysctl -qw net.ipv6.seg6_flowlabel=-1 >/dev/null
run_phase fl " (seg6_flowlabel -1)" "$TUNSRC" "${enc[@]}"
in_rtr sysctl -qw net.ipv6.seg6_flowlabel=0 >/dev/null
# phase 4 (issue 8, item 4): the cases that need a next-hop context, with
# srv6d owning only mark-mask 0xffff0000 and another mark user's masked
# CONNMARK restore (low bits) in mangle PREROUTING on both sides
ctx=(); for i in "${!CASES[@]}"; do
	case "$(field "${CASES[$i]}" 1)" in end-x|end-t|end-dx6|end-dt6|end-x-csid) ctx+=("$i") ;; esac
done
in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark --mask 0xff00
PHASE_CONF="mark-mask 0xffff0000
egress verdict" run_phase mask-v " (mark-mask, masked CONNMARK, egress verdict)" "$TUNSRC" "${ctx[@]}"
PHASE_CONF="mark-mask 0xffff0000
egress inject" run_phase mask-i " (mark-mask, masked CONNMARK, egress inject)" "$TUNSRC" "${ctx[@]}"
in_rtr ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark --mask 0xff00
# phase 5 (issue 25): an unmasked restore, which resets every bit of the mark
# to the connection's (0 for these new connections), in both egress modes
in_rtr ip6tables -t mangle -A PREROUTING -j CONNMARK --restore-mark
PHASE_CONF="egress verdict" run_phase unm-v " (unmasked CONNMARK, egress verdict)" "$TUNSRC" "${ctx[@]}"
PHASE_CONF="egress inject" run_phase unm-i " (unmasked CONNMARK, egress inject)" "$TUNSRC" "${ctx[@]}"
in_rtr ip6tables -t mangle -D PREROUTING -j CONNMARK --restore-mark
summary
