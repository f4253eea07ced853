#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_pqstats.sh - the counters of srv6d's verdict-policy queues
# in the stats file and under `srv6ctl stats reset` (docs/REINJECTION.md,
# srv6d(8) COUNTERS):
#   1. the stats file (-s, written on SIGUSR1 and at exit) has one
#      "pqueue N packets=.. accepted=.. ... held=.. released=.. held-now=.."
#      line per policy queue, with the counts `srv6ctl queue show` gives
#   2. `srv6ctl stats reset` sets them to zero (queue show and the stats
#      file); held packets stay held and are released afterwards (counted
#      from the reset on)
#   3. `srv6ctl queue release` answers within a bound (the control loop
#      never waits for the queue's thread long: SRV6_PQ_RELEASE_WAIT_MS,
#      then "releasing K (in progress)"); 500 held packets released with
#      one request are all delivered
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src --(End, End.X)--> rtr (INPUT: End -> queue 10 accept, End.X -> queue 11 hold) --> dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }

sink_add
# pline Q: queue Q's line of the stats file, written now (SIGUSR1)
pline() {
	local t0
	t0=$(stat -c %Y.%N "$TMPD/stats" 2>/dev/null)
	sleep 0.01
	kill -USR1 "$SRV6D_PID"
	wait_until 5 eval '[ "$(stat -c %Y.%N "$TMPD/stats" 2>/dev/null)" != "$t0" ]'
	awk -v q="$1" '$1 == "pqueue" && $2 == q' "$TMPD/stats"
}
# pfield Q FIELD: one field of pline Q
pfield() { pline "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
sendn() { # CASE N
	"$PY" "$RJ_DIR/rj_send.py" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap "$NS_DST:eth0" \
		--hex "${RJ_HEX[$1]}" --count "$2" --want 0 --timeout 0 >/dev/null
}

hook off
in_rtr ip6tables -t mangle -A INPUT -d $SID:1 -j NFQUEUE --queue-num 10
in_rtr ip6tables -t mangle -A INPUT -d $SID:2 -j NFQUEUE --queue-num 11
sendn end 3
sendn end-x 2
check "3 accepted by queue 10, 2 held by queue 11, 3 delivered" \
	wait_until 5 eval '[ "$(qget 10 packets)/$(qget 11 held_now)/$(sink)" = 3/2/3 ]'

# ---- 1. the stats file --------------------------------------------------------
L10=$(pline 10) L11=$(pline 11)
echo "# $L10"
echo "# $L11"
check "stats file: pqueue 10 packets=3 accepted=3" \
	[ "$(echo "$L10" | cut -d' ' -f1-5)" = "pqueue 10 packets=3 accepted=3 dropped=0" ]
check "stats file: pqueue 11 packets=2 held=2 released=0 held-now=2" \
	[ "$(echo "$L11" | tr ' ' '\n' | grep -E '^(packets|held|released|held-now)=' | paste -sd' ')" = \
	  "packets=2 held=2 released=0 held-now=2" ]

# ---- 2. stats reset -------------------------------------------------------------
R=$(ctl stats reset)
check "stats reset: queue show 10/11 count from zero, the 2 held stay held" \
	[ "$(qget 10 packets)/$(qget 10 accepted)/$(qget 11 packets)/$(qget 11 held_total)/$(qget 11 held_now)" = 0/0/0/0/2 ]
check "stats reset: the stats file's pqueue lines too" \
	[ "$(pfield 10 packets)/$(pfield 11 held)/$(pfield 11 held-now)" = 0/0/2 ]
R=$(ctl queue release 11 all)
check "release after the reset: $R" [ "$R" = "queue 11: released 2" ]
check "released counted from the reset on (queue show released 2, stats file released=2)" \
	[ "$(qget 11 released)/$(pfield 11 released)/$(pfield 11 held-now)" = 2/2/0 ]
check "the 2 released packets delivered" wait_until 5 eval '[ "$(sink)" = 5 ]'

# ---- 3. a large release: the answer keeps its contract ------------------------------
# ctl_release() answers "released N" once the verdicts are sent, or
# "releasing K" after SRV6_PQ_RELEASE_WAIT_MS while the queue's thread goes
# on: whichever form comes, what it says must already be true when it comes
# (no timing bound here: the time is reported, not judged)
N=500
sendn end-x $N
check "$N End.X packets held in queue 11" wait_until 30 held_is 11 $N
# shellcheck disable=SC2034  # d0, r0: read by the eval below
d0=$(sink) r0=$(qget 11 released)
t0=$(date +%s%N)
R=$(ctl -j queue release 11 all)
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
rel_at_answer=$(( $(qget 11 released) - r0 ))
echo "# release of $N: $R in $ms ms, $rel_at_answer released when it came"
case $R in
"{\"queue\":11,\"released\":$N}")
	check "answer \"released $N\": all $N verdicts sent before it ($rel_at_answer)" \
		[ "$rel_at_answer" -eq "$N" ] ;;
"{\"queue\":11,\"released\":null,\"releasing\":"*)
	k=${R##*\"releasing\":}; k=${k%\}}
	# k: how many the request covers (srv6_pq_release(): all N held, the
	# thread goes on with them)
	check "answer \"releasing $k\": the request covers all $N ($rel_at_answer sent by now)" \
		eval '[ "$k" -eq "$N" ] && [ "$rel_at_answer" -le "$N" ]' ;;
*) fail "release answer is one of the two forms: $R" ;;
esac
check "all $N released and delivered, each once" \
	wait_until 20 eval '[ "$(( $(qget 11 released) - r0 ))/$(( $(sink) - d0 ))/$(qget 11 held_now)" = $N/$N/0 ]'
R=$(ctl -j queue release 11 1)
check "release with nothing held: $R" [ "$R" = '{"queue":11,"released":0}' ]
hook off

check "kernel log: no WARN/BUG/RCU/refcount line" dmesg_clean
check "srv6d stops cleanly (SIGTERM)" srv6d_stop
check "stats file at exit still has the pqueue lines (final counters)" \
	[ "$(awk '$1 == "pqueue" && $2 == 11' "$TMPD/stats" | tr ' ' '\n' | sed -n 's/^released=//p')" = $((N + 2)) ]
check "namespaces deleted: torn down completely (no reference left waiting)" rj_ns_teardown
summary
