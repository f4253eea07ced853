#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_start_only.sh - settings that apply only at start (queue-maxlen,
# cpu-affinity, worker-sched, egress, "queue N policy", ...): a reload that
# changes them logs one line naming them, and the running configuration
# keeps (and reports) the values srv6d started with, reload after reload; a
# reload that only moves lines (policy queue line numbers) warns nothing.
#
#   +-------------------------------------+
#   | rtr                                 |
#   |  srv6d (queues 0-1, policy queue 9) |
#   |  control socket in $TMPD            |
#   +-------------------------------------+
#
# No traffic: what is checked is the log and `srv6ctl status`.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6ctl --no-topo
ip netns add "$NS_RTR" || { echo "cannot create the namespace"; exit 1; }
ip -n "$NS_RTR" link set lo up

SOCK=$TMPD/ctl.sock
CONF=$TMPD/srv6d.conf
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
jget() { "$PY" -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
# conf [EXTRA-LINE...]: the started settings, then the lines given
conf() {
	{
		echo "queue 0-1"
		echo "control-socket $SOCK"
		echo "queue-maxlen 1024"
		echo "worker-sched other"
		echo "egress verdict"
		conf_extra
		echo "sid 2001:db8:ff::1 action End"
		echo "queue 9 policy accept"
		printf '%s\n' "$@"
	} >"$CONF"
}
nextstart() { grep -c 'take effect at the next start' "$SRV6D_LOG"; }
AS_STARTED="as started: queue-maxlen 1024, cpu-affinity none, worker-sched other, egress verdict"

conf
srv6d_start "$CONF" "$TMPD/stats" "$TMPD/srv6d.log" || { fail "srv6d starts"; summary; exit 1; }
check "status: the start-only settings as started" eval 'ctl status | grep -qx "$AS_STARTED"'

# worker-sched, cpu-affinity and egress changed
sed -i -e 's/^worker-sched other$/worker-sched fifo 10/' -e 's/^egress verdict$/egress inject/' "$CONF"
echo "cpu-affinity 0,0" >>"$CONF"
check "reload changing worker-sched, cpu-affinity, egress: ok" eval 'ctl reload >/dev/null'
check "... one line names them, at the next start" \
	eval '[ "$(nextstart)" -eq 1 ] && grep -q "reload: changes of cpu-affinity, worker-sched, egress take effect at the next start" "$SRV6D_LOG"'
check "... status still reports the running values" eval 'ctl status | grep -qx "$AS_STARTED"'
check "... status -j too" \
	eval '[ "$(ctl -j status | jget "d[\"start_only\"][\"worker_sched\"], d[\"start_only\"][\"egress\"], d[\"start_only\"][\"cpu_affinity\"]")" = "other verdict none" ]'
check "the same file reloaded again: still not running, said again" \
	eval 'ctl reload >/dev/null && [ "$(nextstart)" -eq 2 ]'

# back to the started settings, the policy line moved down two lines
conf "# a comment" ""
sed -i '/^queue 9 policy accept$/d' "$CONF"; echo "queue 9 policy accept" >>"$CONF"
check "reload back to the started settings, policy line moved: ok" eval 'ctl reload >/dev/null'
check "... warns nothing (line numbers are no change)" test "$(nextstart)" -eq 2
sed -i 's/^queue 9 policy accept$/queue 9 policy drop/' "$CONF"
check "a changed policy: named, at the next start" \
	eval 'ctl reload >/dev/null && [ "$(nextstart)" -eq 3 ] && grep -q "reload: changes of \"queue N policy\" take effect" "$SRV6D_LOG"'
check "srv6d stops cleanly" srv6d_stop
summary
