#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_srv6ctl.sh - srv6ctl against a running srv6d: every command of the
# table, JSON through python's json, Prometheus through a strict parser of the
# format (prom_check.py), bad and oversized requests on the socket, clients
# that never read (monitor cap, eviction of stalled ones), a broken
# reload while traffic flows, and the import round trip.
#
#   +---------------+      +--------------------------------+      +---------------+
#   | src           |      | rtr                            |      | dst           |
#   |          eth0 +------+ eth0                      eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2    2001:db8:2::1 |      | 2001:db8:2::2 |
#   +---------------+      |  (a) kernel seg6local/seg6     |      |  capture      |
#     scapy sends          |  (b) srv6d with the conf       |      +---------------+
#                          |      `srv6ctl import           |
#                          |      --from-kernel` printed    |
#                          |  control socket in $TMPD       |
#                          +--------------------------------+
#
# Import round trip: the kernel's routes carry the cases first; srv6ctl
# imports them; with the kernel routes gone, srv6d runs the imported lines and
# dst must receive the same bytes.  The same srv6d then serves every command.
# A kernel without seg6local/seg6 (CONFIG_IPV6_SEG6_LWTUNNEL) skips the
# kernel's half and the import checks by name; srv6d then runs the lines the
# import makes of those routes, and every other check runs.  `status` and
# `srv6d --check -v` must report the kernel's SRv6 features as kfeat finds them.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6ctl

SOCK=$TMPD/ctl.sock
D=$RTR_IF_DST
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
json_ok() { "$PY" -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null; }
# jq-less field reads: jget EXPR (python over the JSON on stdin)
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
rx() { awk -v c="$2" '$1 == "RX" && $2 == c {print $4}' "$1"; }

# ---- import round trip ------------------------------------------------------------
# name | pkt.py case | kernel route | the kernel feature it needs | the conf line
# srv6ctl import makes of it
CASES=(
"End|end|2001:db8:ff::1 encap seg6local action End dev $D|seg6local|sid 2001:db8:ff::1 action End dev $D"
"End.T|end-t|2001:db8:ff::4 encap seg6local action End.T table 100 dev $D|seg6local|sid 2001:db8:ff::4 action End.T table 100 dev $D"
"End.DT6|end-dt6|2001:db8:ff::6 encap seg6local action End.DT6 table 100 dev $D|seg6local|sid 2001:db8:ff::6 action End.DT6 table 100 dev $D"
"End.B6.Encaps|end-b6-encaps|2001:db8:ff::8 encap seg6local action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $D|seg6local|sid 2001:db8:ff::8 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $D"
"End next-csid|end-csid|2001:db8:100::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 dev $D|seg6local|sid 2001:db8:100::/48 action End flavors next-csid lblen 32 nflen 16 dev $D"
"policy encap|policy-encap|2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev $D|seg6encap|route 2001:db8:99::/64 encap seg6 mode encap segs 2001:db8:aa::1,2001:db8:aa::2 dev $D"
# a route-level word the import must drop, on a route of another table (no
# packets: "-" is no pkt.py case)
"End table 200|-|2001:db8:ff::44 encap seg6local action End dev $D table 200 metric 7|seg6local|sid 2001:db8:ff::44 action End dev $D"
)
field() { local IFS='|'; local -a f; read -ra f <<<"$1"; echo "${f[$2]:-}"; }
keys=() kkeys=() kroutes=() kernel_all=1
in_rtr ip sr tunsrc set "$RTR_ADDR_SRC"   # the same outer source both ways
for c in "${CASES[@]}"; do
	k=$(field "$c" 1) r=$(field "$c" 2)
	[ "$k" = - ] || keys+=("$k")
	# shellcheck disable=SC2086
	if ! kfeat "$(field "$c" 3)"; then
		kernel_all=
	elif ip -n "$NS_RTR" -6 route add $r; then
		kroutes+=("$r")
		[ "$k" = - ] || kkeys+=("$k")
	else
		fail "setup: ip -6 route add $r"; kernel_all=
	fi
done
# the kernel's answers, when it has the routes
if [ ${#kkeys[@]} -gt 0 ]; then
	pkt_to_dst send --case "${kkeys[@]}" >"$TMPD/kernel.cap" || fail "kernel capture" "pkt.py failed"
fi
in_rtr "$SRV6CTL" import --from-kernel >"$TMPD/imported" 2>"$TMPD/import.err"
rc=$?
check "import --from-kernel: exit 0" test "$rc" -eq 0
n=$(grep -c '^sid \|^route ' "$TMPD/imported")
needs "import --from-kernel: one line per SRv6 route" seg6local seg6encap &&
	check "import --from-kernel: one line per SRv6 route ($n of ${#kroutes[@]})" \
		test "$n" -eq "${#kroutes[@]}"
bad=
for c in "${CASES[@]}"; do
	grep -qxF "$(field "$c" 4)" "$TMPD/imported" || bad="$bad; $(field "$c" 0)"
done
needs "import --from-kernel: each route as its conf line" seg6local seg6encap &&
	check "import --from-kernel: each route as its conf line${bad:+ (not:${bad#;})}" test -z "$bad"
needs "import: the show form of a segment list (segs 2 [ A B ]) becomes srh segs A,B" seg6local &&
	check "import: the show form of a segment list (segs 2 [ A B ]) becomes srh segs A,B" \
		grep -qx "sid 2001:db8:ff::8 action End.B6.Encaps srh segs 2001:db8:aa::1,2001:db8:aa::2 dev $D" \
		"$TMPD/imported"
needs "import: End.T's table kept, the route's table 200 dropped with a warning" seg6local &&
	check "import: End.T's table kept, the route's table 200 dropped with a warning" \
		eval 'grep -qx "sid 2001:db8:ff::4 action End.T table 100 dev $D" "$TMPD/imported" &&
		      grep -q "route-level \"table 200\" dropped" "$TMPD/import.err"'
# stdin gives the same lines as --from-kernel (without SRv6 routes in the
# kernel both are empty, which proves nothing)
{ ip -n "$NS_RTR" -6 route show table all; ip -n "$NS_RTR" -4 route show table all; } |
	"$SRV6CTL" import >"$TMPD/imported.stdin" 2>/dev/null
needs "import from stdin: the same lines" seg6local seg6encap &&
	check "import from stdin: the same lines" \
		eval '[ -s "$TMPD/imported" ] && cmp -s "$TMPD/imported" "$TMPD/imported.stdin"'
printf 'fc00::9 encap seg6local action End.X nh6 fe80::1 iif v0 dev v0\n' |
	"$SRV6CTL" import >/dev/null 2>"$TMPD/import.bad"
rc=$?
check "import: a route srv6d cannot take is named, exit 1" \
	eval '[ $rc -eq 1 ] && grep -q "stdin:1: unknown keyword \"iif\": not imported" "$TMPD/import.bad"'
for r in "${kroutes[@]}"; do
	# shellcheck disable=SC2086
	ip -n "$NS_RTR" -6 route del $r || fail "cleanup: ip -6 route del $r"
done

# srv6d runs what the import printed; without every kernel route (a kernel
# without seg6local), the lines the import makes of them (the CASES' last
# field), so that everything after still runs
if [ -n "$kernel_all" ]; then conf_src="the imported conf"
else conf_src="the import's conf lines (written out: no kernel routes to import)"; fi
{
	echo "queue 0-1"
	echo "control-socket $SOCK"
	conf_extra
	if [ -n "$kernel_all" ]; then cat "$TMPD/imported"
	else for c in "${CASES[@]}"; do field "$c" 4; done; fi
} >"$TMPD/srv6d.conf"
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" ||
	{ fail "srv6d starts with $conf_src"; summary; exit 1; }
pkt_to_dst send --case "${keys[@]}" >"$TMPD/srv6d.cap" || fail "srv6d capture" "pkt.py failed"
bad=
for k in "${keys[@]}"; do
	want=$("$PY" "$PKT" build "$k" | wc -l) got=$(rx "$TMPD/srv6d.cap" "$k" | wc -l)
	[ "$got" -eq "$want" ] || bad="$bad $k:$got/$want"
done
check "srv6d with $conf_src: every case's packets reach dst${bad:+ (got$bad)}" test -z "$bad"
for c in "${CASES[@]}"; do
	k=$(field "$c" 1)
	[ "$k" = - ] && continue
	needs "import round trip: $k byte-identical to the kernel" "$(field "$c" 3)" || continue
	want=$(rx "$TMPD/kernel.cap" "$k") got=$(rx "$TMPD/srv6d.cap" "$k")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "import round trip: $k byte-identical to the kernel ($(echo "$want" | wc -l) packets)"
	else
		fail "import round trip: $k byte-identical to the kernel" "$(hexdiff "$want" "$got")"
	fi
done
in_rtr ip sr tunsrc set ::
# End's packets as they must come out later: the kernel's, else srv6d's own
# first answers (the same SID: traffic flows as it did)
REF=$TMPD/kernel.cap
[ -n "$(rx "$REF" end 2>/dev/null)" ] || REF=$TMPD/srv6d.cap

# ---- show commands --------------------------------------------------------------------
check "socket: mode 0660" test "$(stat -c %a "$SOCK")" = 660
out=$(ctl status)
check "status: version, config, egress, kernel" \
	eval 'echo "$out" | grep -q "^srv6d " && echo "$out" | grep -q "^config $TMPD/srv6d.conf loaded " &&
	      echo "$out" | grep -q "^egress ipv6 " && echo "$out" | grep -q "^kernel seg6 "'
# the kernel's SRv6 features as srv6d reports them (its own rtnetlink probe,
# include/srv6d/kfeat.h) and as tests/kfeat.sh finds them (routes added in a
# throwaway namespace) must agree
yn() { if kfeat "$1"; then echo "$2"; else echo "$3"; fi; }
kf_text="seg6 $(yn seg6encap yes no) seg6local $(yn seg6local yes no) seg6_hmac $(yn seg6hmac yes no)"
kf_json="$(yn seg6encap True False) $(yn seg6local True False) $(yn seg6hmac True False)"
got=$(echo "$out" | sed -n 's/^kernel \(seg6 [a-z]* seg6local [a-z]* seg6_hmac [a-z]*\) .*/\1/p')
check "status: the kernel's SRv6 features as tests/kfeat.sh finds them ($kf_text; got ${got:-none})" \
	test "$got" = "$kf_text"
got=$(ctl -j status | jget 'd["kernel"]["seg6"], d["kernel"]["seg6local"], d["kernel"]["seg6_hmac"]' 2>&1)
check "status -j: kernel seg6, seg6local, seg6_hmac as tests/kfeat.sh finds them ($kf_json; got $got)" \
	test "$got" = "$kf_json"
got=$(in_rtr "$SRV6D" --check -v -c "$TMPD/srv6d.conf" 2>/dev/null | sed -n 's/^# kernel //p')
check "srv6d --check -v: the kernel's SRv6 features as tests/kfeat.sh finds them (got ${got:-none})" \
	test "$got" = "$kf_text"
check "status -j: JSON with version, config, sids" \
	eval '[ "$(ctl -j status | jget "d[\"config\"], d[\"sids\"], d[\"version\"] != \"\"")" = \
	      "$TMPD/srv6d.conf 6 True" ]'
check "sid show: the conf's words" \
	eval 'ctl sid show | grep -qx "2001:db8:ff::6 action End.DT6 table 100 dev $D"'
check "sid show: in address order" \
	eval 'ctl sid show | awk "/^[0-9a-f]/ {print \$1}" | "$PY" -c "import sys, ipaddress
a = [ipaddress.ip_network(l.strip(), strict=False) for l in sys.stdin]
sys.exit(not (len(a) > 1 and a == sorted(a)))"'
check "sid show SID: only that SID" \
	eval '[ "$(ctl sid show 2001:db8:ff::1)" = "2001:db8:ff::1 action End dev $D" ]'
# the counters agree with the stats file (SIGUSR1) for every SID
srv6d_stats
j=$(ctl -j -s sid show)
check "sid show -j -s: JSON" eval 'echo "$j" | json_ok'
bad=
for sid in 2001:db8:ff::1 2001:db8:ff::4 2001:db8:ff::6 2001:db8:100::/48; do
	s=${sid%/128}; [[ $s == */* ]] || s=$s/128
	jp=$(echo "$j" | jget "[e['stats']['packets'] for e in d if e['sid'] == '$s'][0]")
	[ "$jp" = "$(counter "${sid%/128}" packets)" ] && [ "$jp" -gt 0 ] || bad="$bad $sid:$jp/$(counter "${sid%/128}" packets)"
done
check "sid show -j -s: packets as the stats file, non-zero${bad:+ (got$bad)}" test -z "$bad"
check "sid show -j -s: every drop reason named" \
	eval '[ "$(echo "$j" | jget "len(d[0][\"stats\"][\"drops\"])")" -ge 10 ]'
check "sid show -s: packets, bytes, errors and drops lines" \
	eval 'ctl -s sid show 2001:db8:ff::1 | grep -q "^    packets [1-9][0-9]* bytes [1-9][0-9]* errors 0$" &&
	      ctl -s sid show 2001:db8:ff::1 | grep -q "^    drops malformed 0 srh-invalid 0 "'
check "route show / -j route show" \
	eval 'ctl route show | grep -q "^2001:db8:99::/64 encap seg6 mode encap segs " &&
	      [ "$(ctl -j -s route show | jget "d[0][\"mode\"], d[0][\"stats\"][\"packets\"] > 0")" = "encap True" ]'
check "sid show of an absent SID: error, exit 1" \
	eval '! ctl sid show 2001:db8:ff::77 2>"$TMPD/e" && grep -q "not configured" "$TMPD/e"'
q=$(ctl -j queue show)
check "queue show -j: per queue packets, verdicts, batches and the kernel's counters" \
	eval '[ "$(echo "$q" | jget "len(d), \",\".join(sorted(d[0][\"kernel\"])), sum(x[\"packets\"] for x in d) > 0, d[0][\"fail_open\"]")" = \
	      "2 id_sequence,portid,queue_dropped,user_dropped,waiting True False" ]'
check "queue show -j: \"gso\" is null without gso on" \
	eval '[ "$(echo "$q" | jget "all(\"gso\" in x and x[\"gso\"] is None for x in d)")" = True ]'
check "queue show: text with the kernel line" \
	eval 'ctl queue show | grep -q "^    kernel waiting 0 queue-dropped 0 user-dropped 0 "'
check "steer show: installed, intact, the rules" \
	eval 'ctl steer show | grep -q "installed, intact" && ctl steer show | grep -q -- "-d 2001:db8:ff::1/128 -j NFQUEUE"'
check "steer show --template: ip6tables-restore text" \
	eval 'ctl steer show --template | grep -q "^\*raw" && ctl steer show --template | grep -q "^COMMIT"'
check "steer show -j: JSON" eval '[ "$(ctl -j steer show | jget "d[\"state\"], d[\"installed\"]")" = "intact True" ]'
ctl stats show >"$TMPD/stats.txt"
check "stats show: the stats file's lines" \
	eval 'grep -q "^steering repairs=" "$TMPD/stats.txt" && grep -q "^queue 0 packets=" "$TMPD/stats.txt"'
check "stats -j: JSON with sids, routes, queues" \
	eval '[ "$(ctl -j stats | jget "len(d[\"sids\"]), len(d[\"routes\"]), len(d[\"queues\"])")" = "6 1 2" ]'
ctl stats --format prometheus >"$TMPD/prom" 2>&1
if out=$("$PY" "$LIB_DIR/prom_check.py" "$TMPD/prom"); then ok "stats --format prometheus: strict parse ($out)"
else fail "stats --format prometheus: strict parse" "$out"; fi
check "prometheus: End's packets" \
	eval 'grep -Eq "^srv6d_sid_packets_total\{sid=\"2001:db8:ff::1/128\",action=\"End\"\} [1-9]" "$TMPD/prom"'
printf '# TYPE x_total counter\nx_total 1\nx_total 2\n' >"$TMPD/prom.bad"
check "prom_check.py refuses a series given twice" eval '! "$PY" "$LIB_DIR/prom_check.py" "$TMPD/prom.bad" >/dev/null'

# ---- monitor, changes, reset -------------------------------------------------------------
# not through in_rtr: a function runs in a subshell, and killing that would
# leave srv6ctl connected (holding a monitor slot)
ip netns exec "$NS_RTR" "$SRV6CTL" -S "$SOCK" monitor >"$TMPD/monitor" 2>&1 & MON=$!
ip netns exec "$NS_RTR" "$SRV6CTL" -S "$SOCK" -j monitor >"$TMPD/monitor.json" 2>&1 & MONJ=$!
STREAM_PID=$MON   # lib.sh's cleanup kills it
# both connected: a sentinel SID added and deleted until both have seen it
# (no event is lost after; a fixed wait was too short under ASan)
for i in $(seq 50); do
	ctl sid add 2001:db8:ff::fe action End >/dev/null 2>&1
	ctl sid del 2001:db8:ff::fe >/dev/null 2>&1
	grep -qx "sid deleted 2001:db8:ff::fe" "$TMPD/monitor" &&
		grep -q '"message": *"deleted 2001:db8:ff::fe"' "$TMPD/monitor.json" && break
	sleep 0.1
done
out=$(ctl sid add 2001:db8:ff::9 action End flavors PSP 2>&1)
check "sid add: says it lasts until the next reload" \
	eval 'echo "$out" | grep -q "sid 2001:db8:ff::9 added; lasts until the next reload of $TMPD/srv6d.conf"'
check "sid add: listed, steered" \
	eval 'ctl sid show 2001:db8:ff::9 | grep -q "action End flavors psp" &&
	      in_rtr ip6tables -t raw -S | grep -q -- "-d 2001:db8:ff::9/128 -j NFQUEUE"'
pkt_to_dst send --case end-sid9 >"$TMPD/sid9.cap"
check "sid add: the new SID processes traffic" \
	eval '[ "$(ctl -j -s sid show 2001:db8:ff::9 | jget "d[0][\"stats\"][\"packets\"]")" -ge 1 ]'
nctx=$(ctl -j status | jget 'd["contexts"]')
check "sid add End.X: its next-hop context installed; sid del: removed ($nctx before)" \
	eval 'ctl sid add 2001:db8:ff::13 action End.X nh6 $DST_ADDR oif $D >/dev/null &&
	      [ "$(ctl -j status | jget "d[\"contexts\"]")" = $((nctx + 1)) ] &&
	      ctl sid del 2001:db8:ff::13 >/dev/null && [ "$(ctl -j status | jget "d[\"contexts\"]")" = "$nctx" ]'
check "sid add with a bad action: the grammar's message, exit 1" \
	eval '! ctl sid add 2001:db8:ff::10 action End.DX5 2>"$TMPD/e" &&
	      grep -qx "srv6ctl: unknown action \"End.DX5\"" "$TMPD/e"'
check "sid add End table: the specific message" \
	eval '! ctl sid add 2001:db8:ff::10 action End table 5 2>"$TMPD/e" &&
	      grep -q "End does not take table (a route-level" "$TMPD/e"'
check "sid add into srv6d's own tables: refused" \
	eval '! ctl sid add 2001:db8:ff::10 action End.T table main 2>"$TMPD/e" && grep -q "reserved table" "$TMPD/e"'
check "sid del: gone, unsteered" \
	eval 'ctl sid del 2001:db8:ff::9 | grep -q "deleted; lasts until the next reload" &&
	      ! ctl sid show 2001:db8:ff::9 2>/dev/null &&
	      ! in_rtr ip6tables -t raw -S | grep -q -- "-d 2001:db8:ff::9/128"'
check "sid del of an absent SID: exit 1" eval '! ctl sid del 2001:db8:ff::9 2>/dev/null'
check "route add / route del" \
	eval 'ctl route add 10.8.0.0/16 encap seg6 mode encap segs 2001:db8:aa::1 >/dev/null &&
	      ctl route show 10.8.0.0/16 | grep -q "^10.8.0.0/16 encap seg6 mode encap" &&
	      ctl route del 10.8.0.0/16 >/dev/null && ! ctl route show 10.8.0.0/16 2>/dev/null'
check "stats reset: the counters shown start again from 0" \
	eval 'ctl stats reset | grep -q "counters reset" &&
	      [ "$(ctl -j -s sid show 2001:db8:ff::1 | jget "d[0][\"stats\"][\"packets\"]")" = 0 ] &&
	      [ "$(ctl -j queue show | jget "sum(x[\"packets\"] for x in d)")" = 0 ]'
pkt_to_dst send --case end >/dev/null
check "stats reset: and count again" \
	eval '[ "$(ctl -j -s sid show 2001:db8:ff::1 | jget "d[0][\"stats\"][\"packets\"]")" -eq \
	      "$("$PY" "$PKT" build end | wc -l)" ]'

# ---- reload -----------------------------------------------------------------------------
check "reload: ok, the file's SIDs" \
	eval 'ctl reload | grep -qx "reloaded $TMPD/srv6d.conf: 6 SIDs, 1 routes"'
cp "$TMPD/srv6d.conf" "$TMPD/good.conf"
echo "sid 2001:db8:ff::12 action End.DX5" >>"$TMPD/srv6d.conf"
line=$(wc -l <"$TMPD/srv6d.conf")
out=$(ctl reload 2>&1); rc=$?
check "reload of a broken file: FILE:LINE: message, exit 1" \
	eval '[ $rc -eq 1 ] && [ "$out" = "srv6ctl: $TMPD/srv6d.conf:$line: unknown action \"End.DX5\"" ]'
pkt_to_dst send --case end >"$TMPD/after.cap"
check "reload of a broken file: the running conf stays, traffic flows" \
	eval '[ -n "$(rx "$REF" end)" ] && [ "$(rx "$TMPD/after.cap" end)" = "$(rx "$REF" end)" ] &&
	      [ "$(ctl -j status | jget "d[\"sids\"]")" = 6 ]'
cp "$TMPD/good.conf" "$TMPD/srv6d.conf"
# the last event (the failed reload) has reached both monitors
wait_until 5 eval 'grep -q "^reload failed" "$TMPD/monitor" &&
	grep -q "\"event\": *\"reload\", *\"message\": *\"failed" "$TMPD/monitor.json"'
kill "$MON" "$MONJ" 2>/dev/null; wait "$MON" "$MONJ" 2>/dev/null; STREAM_PID=
check "monitor: sid, route, contexts, stats and reload events" \
	eval 'grep -qx "sid added 2001:db8:ff::9" "$TMPD/monitor" && grep -qx "sid deleted 2001:db8:ff::9" "$TMPD/monitor" &&
	      grep -qx "route added 10.8.0.0/16" "$TMPD/monitor" && grep -qx "stats reset" "$TMPD/monitor" &&
	      grep -qx "contexts sid add: $((nctx + 1)) next-hop contexts installed (were $nctx)" "$TMPD/monitor" &&
	      grep -qx "contexts sid del: $nctx next-hop contexts installed (were $((nctx + 1)))" "$TMPD/monitor" &&
	      grep -qx "reload ok: 6 SIDs, 1 routes" "$TMPD/monitor" &&
	      grep -q "^reload failed: $TMPD/srv6d.conf:$line: unknown action" "$TMPD/monitor"'
check "monitor -j: one JSON object per line" \
	eval '[ "$("$PY" -c "import json, sys; print(\" \".join(sorted(set(json.loads(l)[\"event\"] for l in open(sys.argv[1])))))" \
	      "$TMPD/monitor.json")" = "contexts reload route sid stats" ]'

# ---- bad requests -------------------------------------------------------------------------
# raw REQUEST [shut]: what srv6d replies to REQUEST (bytes as a python
# literal), read until it closes; "shut" ends the request by closing the
# sending side
raw() {
	in_rtr "$PY" - "$SOCK" "$@" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(15)
try:
    s.sendall(eval(sys.argv[2]))
    if len(sys.argv) > 3:
        s.shutdown(socket.SHUT_WR)
except BrokenPipeError:
    pass
out = b""
while True:
    try:
        b = s.recv(65536)
    except ConnectionResetError:
        break
    if not b:
        break
    out += b
sys.stdout.write(out.decode("ascii", "replace"))
EOF
}
check "request of 5000 bytes without newline: error, too long" \
	eval '[ "$(raw "b\"sid show \" + b\"x\" * 5000")" = "error request too long (at most 4096 bytes)" ]'
check "request with a control byte: error naming it" \
	eval '[ "$(raw "b\"sid show\\x01\\n\"")" = "error bad byte 0x01 at offset 8 of the request" ]'
check "request with 200 words: error" \
	eval '[ "$(raw "b\"sid \" + b\"a \" * 200 + b\"\\n\"")" = "error too many words (at most 64)" ]'
check "unknown object: error" eval '[ "$(raw "b\"bogus\\n\"")" = "error unknown object \"bogus\"" ]'
check "import over the socket: refused" eval '[ "$(raw "b\"import\\n\"")" = "error import runs in srv6ctl, not in srv6d" ]'
check "a request without newline, ended by the close: served" eval 'raw "b\"status\"" shut | head -1 | grep -qx ok'
# 16 idle connections fill the table; the 17th is refused; srv6d and its
# datapath do not wait for them
in_rtr "$PY" - "$SOCK" >"$TMPD/idle.out" 2>&1 <<'EOF' & IDLE=$!
import socket, sys, time
socks = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1]); socks.append(s)
time.sleep(0.5)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1]); s.settimeout(5)
print(s.recv(100).decode().strip())
time.sleep(2)
EOF
wait_until 5 grep -q . "$TMPD/idle.out"
check "17th connection while 16 idle ones wait: refused" grep -qx "error too many control connections" "$TMPD/idle.out"
pkt_to_dst send --case end >"$TMPD/busy.cap"
check "traffic flows while the socket is full" \
	eval '[ -n "$(rx "$REF" end)" ] && [ "$(rx "$TMPD/busy.cap" end)" = "$(rx "$REF" end)" ]'
wait "$IDLE"
check "after they go: served again" eval 'ctl status >/dev/null'

# 16 clients that never read may not lock srv6ctl out: monitors take at most
# 8 slots, and a full table gives the slot of a client stalled for 1 s to a
# new connection.  hold.py PAYLOAD: 16 connections send PAYLOAD, take the
# first answer (when PAYLOAD is a request), then read nothing for 6 s and
# report how many were refused as monitors.
cat >"$TMPD/hold.py" <<'EOF'
import socket, sys, time
socks = []
for i in range(16):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sys.argv[1])
    s.sendall(sys.argv[2].encode()); socks.append(s)
n = 0
if sys.argv[2]:
    # every request answered ("ok" for a monitor, or the refusal) before
    # the caller tries srv6ctl
    for s in socks:
        s.settimeout(5)
        try:
            n += s.recv(200).startswith(b"error too many monitors")
        except OSError:
            pass
print("held", flush=True)
time.sleep(6)
print("refused-monitors", n, flush=True)
EOF
in_rtr "$PY" "$TMPD/hold.py" "$SOCK" $'monitor\n' >"$TMPD/hold-mon.out" 2>&1 & HOLD=$!
wait_until 10 grep -q held "$TMPD/hold-mon.out"
check "16 monitors that never read: srv6ctl status still served" eval 'ctl status >/dev/null 2>&1'
wait "$HOLD"
check "... the 9th to 16th monitor are refused (at most 8): $(tail -1 "$TMPD/hold-mon.out")" \
	grep -qx "refused-monitors 8" "$TMPD/hold-mon.out"
in_rtr "$PY" "$TMPD/hold.py" "$SOCK" "" >"$TMPD/hold-idle.out" 2>&1 & HOLD=$!
wait_until 5 grep -q held "$TMPD/hold-idle.out"
sleep 1.5
# retried for 2 s at most: hold.py holds its connections for 6 s, and a
# status served after it let them go would prove nothing
check "16 silent connections held 1.5 s: srv6ctl status served (a stalled one evicted)" \
	eval 'wait_until 2 eval "ctl status >/dev/null 2>&1" && kill -0 $HOLD'
check "... and status counts the closed client" \
	eval 'ctl status | grep -q "^control socket: [1-9][0-9]* stalled clients closed"'
wait "$HOLD"

# a connection that never sends its request is closed (after 10 s), not kept
out=$(in_rtr "$PY" - "$SOCK" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(60)
print("closed" if s.recv(100) == b"" else "data")
EOF
)
check "an idle connection is closed by srv6d (got: $out)" test "$out" = closed

# ---- the client's own checks ----------------------------------------------------------------
check "usage from the table (-h lists every command)" \
	eval '"$SRV6CTL" -h | grep -q "^  queue show " && "$SRV6CTL" -h | grep -q "^  import \[--from-kernel\]"'
check "unknown command: exit 2, nothing sent" eval '"$SRV6CTL" -S /nonexistent sid frob 2>/dev/null; [ $? -eq 2 ]'
check "no srv6d: exit 3" eval '"$SRV6CTL" -S "$TMPD/none.sock" status 2>/dev/null; [ $? -eq 3 ]'
check "srv6d still alive, stops cleanly; the socket is removed" eval 'srv6d_stop && [ ! -e "$SOCK" ]'
summary
