#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_apply_retry.sh - a change whose kernel side fails is answered as
# failed and retried until the kernel holds it (issue 22, item 3).  srv6d's
# ip6tables-restore fails while $TMPD/ipt.fail exists: in srv6d's own mount
# namespace (the one `ip netns exec` made for it) the tool's binary is
# overmounted by a wrapper that refuses then, and otherwise runs a copy of
# the real one; nothing outside srv6d sees it.
#
#   +---------------+     +-------------------------------------------+     +---------------+
#   | src           |     | rtr                                       |     | dst           |
#   |          eth0 +-----+ eth0 2001:db8:1::2       2001:db8:2::1 eth1 +-----+ eth0 capture  |
#   | 2001:db8:1::1 |     |  2001:db8::/32 via dst (the clear path)   |     | 2001:db8:2::2 |
#   +---------------+     |  srv6d: route 2001:db8:100::/48, then     |     +---------------+
#                         |         200::/48, 300::/48 and a SID      |
#                         |         encap segs 2001:db8:aa::1         |
#                         |  srv6d's ip6tables-restore: the wrapper   |
#                         +-------------------------------------------+
#
# 1. srv6ctl `route add 2001:db8:200::/48` and `route del 2001:db8:100::/48`
#    while the tool fails: both exit 1 with one line naming it; status says
#    out of sync; once the tool works again, 200::/48 has its route through
#    srv6d0 (its traffic encapsulated, counted by its policy) and 100::/48
#    none (its traffic forwarded in the clear, no miss).
# 2. A SIGHUP reload that adds a SID and 2001:db8:300::/48 while the tool
#    fails: logged, STATUS= and status say out of sync, `srv6ctl reload`
#    exits 1, the retry goes on while it fails; once it works, the SID's rule
#    and 300::/48's route are there and its traffic is encapsulated.
# Before: both commands and the reload printed success, and the routes never
# followed the table (the rules' reinstall by the steering check does not
# sync them).
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d
trap 'kill "${NOTIFY_PID:-}" 2>/dev/null; cleanup' EXIT
SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}
[ -x "$SRV6CTL" ] || { echo "SKIP: $SRV6CTL not built"; exit $ksft_skip; }
command -v nsenter >/dev/null || { echo "SKIP: nsenter not found"; exit $ksft_skip; }
# the ip6tables-restore srv6d runs: the first of steer.c's tool_path() dirs
IPT=
for d in /usr/sbin /sbin /usr/local/sbin /usr/bin /bin; do
	[ -x "$d/ip6tables-restore" ] && { IPT=$d/ip6tables-restore; break; }
done
[ -n "$IPT" ] || { echo "SKIP: ip6tables-restore not found"; exit $ksft_skip; }

SOCK=$TMPD/ctl.sock FAIL=$TMPD/ipt.fail SEGS=2001:db8:aa::1 INJ="injected failure (test_apply_retry)"
REAL=$(readlink -f "$IPT")
cp "$REAL" "$TMPD/xtables.real"
# the wrapper: what srv6d runs as ip6tables-restore (and, when it is one
# multi-call binary, as ip6tables-save too: that one always works)
cat >"$TMPD/xtables.wrap" <<EOF
#!/bin/bash
if [ "\${0##*/}" = ip6tables-restore ] && [ -e "$FAIL" ]; then
	cat >/dev/null
	echo "$INJ" >&2
	exit 1
fi
exec -a "\${0##*/}" "$TMPD/xtables.real" "\$@"
EOF
chmod +x "$TMPD/xtables.wrap"

ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
# ours PREFIX: srv6d's route for PREFIX through srv6d0 is in the main table
ours() { ip -n "$NS_RTR" -6 route show table main proto 109 "$1" | grep -q "^$1 dev srv6d0 "; }
gone() { ! ours "$1"; }
in_sync() { ctl status | grep -q '^rules and routes in sync '; }
out_of_sync() {
	ctl status | grep -q "^rules and routes OUT OF SYNC since .*Z ([0-9]* failed applies, retried until they hold): steering: ip6tables-restore: $INJ"
}
# one_line TEXT HEAD: TEXT is one line that starts with HEAD
one_line() { [ "$(wc -l <<<"$1")" = 1 ] && [[ "$1" == "$2"* ]]; }
# notified RE: the last STATUS= srv6d sent matches RE
notified() { grep 'STATUS=' "$NOUT" | tail -n 1 | grep -q "$1"; }
failed_applies() { ctl -j status | jget 'd.get("sync", {}).get("failed_applies", 0)' 2>/dev/null; }
more_failures() { [ "$(failed_applies)" -gt "${1:-0}" ] 2>/dev/null; }
# send DST: one Echo Request from src to DST; prints the outer destination
# of what dst receives ("none": nothing)
send() {
	"$PY" "$LIB_DIR/lpm.py" --cap-ns "$NS_DST" --each 3 --wait 0.3 --src-ns "$NS_SRC" \
		--dmac "$RTR_MAC_SRC" --hex "$("$PY" "$LIB_DIR/lpm.py" --build-fwd "$1")" |
		awk '$1 == "RX" {print $2; exit}' | "$PY" -c '
import sys, ipaddress
h = sys.stdin.read().strip()
print(ipaddress.IPv6Address(bytes.fromhex(h)[24:40]) if h else "none")'
}
miss() { srv6d_stats >/dev/null; queue_stat miss; }

conf=$TMPD/srv6d.conf
{
	printf 'queue 0\nsteer auto\nencap-source %s\ncontrol-socket %s\n' "$RTR_ADDR_DST" "$SOCK"
	printf 'route 2001:db8:100::/48 encap seg6 mode encap segs %s\n' "$SEGS"
	conf_extra
} >"$conf"
NSOCK="@srv6d-apply-$$-$RANDOM" NOUT=$TMPD/notify.out
ip netns exec "$NS_RTR" "$PY" "$LIB_DIR/notify.py" "$NSOCK" "$NOUT" true &
NOTIFY_PID=$!
wait_until 5 test -s "$NOUT.ready" || fail "notify listener did not start"
if ! NOTIFY_SOCKET=$NSOCK srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	fail "srv6d starts"
	summary; exit
fi
check "start: 2001:db8:100::/48 has its route through srv6d0" ours 2001:db8:100::/48
out=$(send 2001:db8:100::1)
check "start: 2001:db8:100::1 leaves encapsulated (outer $out)" test "$out" = $SEGS
check "start: rules and routes in sync" in_sync
if ! nsenter -t "$SRV6D_PID" -m mount --bind "$TMPD/xtables.wrap" "$REAL"; then
	fail "the wrapper mounted over $REAL in srv6d's mount namespace"
	summary; exit
fi

# ---- 1. srv6ctl route add / route del while ip6tables-restore fails ----
touch "$FAIL"
err=$(ctl route add 2001:db8:200::/48 encap seg6 mode encap segs $SEGS 2>&1 >/dev/null); rc=$?
check "route add while ip6tables-restore fails: exit 1 (got $rc)" test "$rc" -eq 1
check "... one line naming it: $err" \
	one_line "$err" "srv6ctl: route add 2001:db8:200::/48: steering: ip6tables-restore: $INJ"
err=$(ctl route del 2001:db8:100::/48 2>&1 >/dev/null); rc=$?
check "route del while ip6tables-restore fails: exit 1 (got $rc)" test "$rc" -eq 1
check "... one line naming it: $err" \
	one_line "$err" "srv6ctl: route del 2001:db8:100::/48: steering: ip6tables-restore: $INJ"
st=$(ctl status | grep '^rules and routes ')
check "status: $st" out_of_sync
check "status -j: sync.in_sync false" \
	test "$(ctl -j status | jget 'd.get("sync", {}).get("in_sync")' 2>/dev/null)" = False
# the rules those two want are the ones in place (a policy is a route, not
# a rule): their routes need not wait for the tool
check "meanwhile: 2001:db8:200::/48 has its route (the capture it needs is in place)" \
	ours 2001:db8:200::/48
check "meanwhile: 2001:db8:100::/48's route is gone" gone 2001:db8:100::/48
n=$(failed_applies)
check "the retry goes on while the tool fails (failed applies $n, then more)" \
	wait_until 10 more_failures "$n"
rm -f "$FAIL"
check "the tool works again: rules and routes in sync (within 10 s)" wait_until 10 in_sync
check "... logged: in place again" grep -q 'steering rules and policy routes in place again' "$SRV6D_LOG"
check "2001:db8:200::/48 has its route through srv6d0" ours 2001:db8:200::/48
check "2001:db8:100::/48's route is gone" gone 2001:db8:100::/48
srv6d_stats >/dev/null
p0=$(counter 2001:db8:200::/48 packets) m0=$(miss)
out=$(send 2001:db8:200::1)
check "2001:db8:200::1 leaves encapsulated (outer $out)" test "$out" = $SEGS
srv6d_stats >/dev/null
p1=$(counter 2001:db8:200::/48 packets)
check "... counted by its policy (packets $p0 -> $p1)" test "$p1" -gt "$p0"
out=$(send 2001:db8:100::1)
check "2001:db8:100::1 leaves in the clear (outer $out)" test "$out" = 2001:db8:100::1
m1=$(miss)
check "... and srv6d saw none of it (miss $m0 -> $m1)" test "$m1" = "$m0"

# ---- 2. a SIGHUP reload that adds a SID and a route, while it fails ----
{
	printf 'queue 0\nsteer auto\nencap-source %s\ncontrol-socket %s\n' "$RTR_ADDR_DST" "$SOCK"
	printf 'sid 2001:db8:ff::1 action End\n'
	printf 'route 2001:db8:200::/48 encap seg6 mode encap segs %s\n' "$SEGS"
	printf 'route 2001:db8:300::/48 encap seg6 mode encap segs %s\n' "$SEGS"
	conf_extra
} >"$conf"
touch "$FAIL"
lines=$(wc -l <"$SRV6D_LOG")
kill -HUP "$SRV6D_PID"
logged() { tail -n +$((lines + 1)) "$SRV6D_LOG" | grep -q "$1"; }
# (the log's level prefix is "<3>" under a service manager, as here)
check "SIGHUP while ip6tables-restore fails: logged at err" \
	wait_until 10 logged "^<3>reload: steering: ip6tables-restore: $INJ"
check "... STATUS= says: rules and routes out of sync (retrying)" \
	wait_until 5 notified 'STATUS=running: 1 SIDs, 2 routes, .*rules and routes out of sync (retrying): steering: ip6tables-restore'
check "... status says out of sync" out_of_sync
err=$(ctl reload 2>&1 >/dev/null); rc=$?
check "srv6ctl reload while it fails: exit 1 (got $rc)" test "$rc" -eq 1
check "... one line naming it: $err" one_line "$err" "srv6ctl: steering: ip6tables-restore: $INJ"
n=$(failed_applies)
check "the retry goes on while the tool fails (failed applies $n, then more)" \
	wait_until 10 more_failures "$n"
rm -f "$FAIL"
check "the tool works again: rules and routes in sync (within 10 s)" wait_until 10 in_sync
sid_rule() { ip netns exec "$NS_RTR" ip6tables -t raw -S SRV6D | grep -q -- '-d 2001:db8:ff::1/128 '; }
check "the SID's rule is installed" sid_rule
check "2001:db8:300::/48 has its route through srv6d0" ours 2001:db8:300::/48
check "2001:db8:200::/48 keeps its route" ours 2001:db8:200::/48
check "STATUS= says running, in sync again" \
	wait_until 5 notified 'STATUS=running: 1 SIDs, 2 routes, queues 0-0, steering auto$'
srv6d_stats >/dev/null
p0=$(counter 2001:db8:300::/48 packets)
out=$(send 2001:db8:300::1)
check "2001:db8:300::1 leaves encapsulated (outer $out)" test "$out" = $SEGS
srv6d_stats >/dev/null
p1=$(counter 2001:db8:300::/48 packets)
check "... counted by its policy (packets $p0 -> $p1)" test "$p1" -gt "$p0"
check "stats: sync out-of-sync=0, failed applies counted" \
	grep -Eq '^sync failed-applies=[1-9][0-9]* out-of-sync=0$' "$SRV6D_STATS"
check "srv6d still running" srv6d_alive
check "srv6d stops cleanly" srv6d_stop
summary
