#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_verdicts.sh - exactly one verdict per packet: SIGTERM and SIGHUP under
# traffic, and a broken conf on reload.
#
#   +---------------+      +------------------------------------+      +---------------+
#   | src           |      | rtr  srv6d: sid 2001:db8:ff::1 End |      | dst           |
#   |          eth0 +------+ eth0                          eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | raw PREROUTING: srv6d's NFQUEUE    |      | 2001:db8:2::2 |
#   | stream of End |      | mangle PREROUTING:                 |      | counts what   |
#   | packets, each |      |   -d 2001:db8:ff::1 -j DROP        |      | End forwarded |
#   | numbered      |      |   (counts what srv6d did not take) |      | (DA aa::1)    |
#   +---------------+      +------------------------------------+      +---------------+
#
# Accounting is exact: a packet srv6d processed leaves raw PREROUTING with
# DA 2001:db8:aa::1 and reaches dst; one srv6d dropped is in its error
# counter; one that arrived after srv6d removed its rules keeps DA ff::1 and
# is counted by the mangle DROP rule.  sent == received + errors + mangle,
# nothing else (a packet left in the kernel queue at unbind would be dropped
# by the kernel uncounted and break the sum).  The stream's outer sources
# vary (2001:db8:1::1..8) so that --queue-balance 0:1 spreads it over both
# queues: every queue must have seen packets, so both workers' drain and stop
# run.  srv6d's own exit counters (miss, verdict-errors, lost-ids,
# fallback-drops) must stay 0, and per queue it must have received at least
# every packet the kernel had queued before SIGTERM (id_sequence sampled from
# /proc/net/netfilter/nfnetlink_queue while srv6d still runs).
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin

SID=2001:db8:ff::1 SID9=2001:db8:ff::9
in_rtr ip6tables -t mangle -A PREROUTING -d $SID -j DROP
mangle_count() { in_rtr ip6tables -t mangle -L PREROUTING -v -x -n | awk '$3 == "DROP" {print $1; exit}'; }
# stream COUNT RATE MARK_AT FILE: the stream in the background, output in $TMPD/stream
# stream COUNT RATE MARK_AT FILE [SID]: to $SID unless given
stream() {
	pkt --cap-ns "$NS_DST" --timeout 2 stream --dst "${5:-$SID}" --count "$1" --rate "$2" \
		--sources $NSRC --mark-at "$3" "$4" >"$TMPD/stream" 2>&1 &
	STREAM_PID=$!
}
stream_result() { # sets SENT RECV DUPS CAPDROPS UNPROC (all -1 if pkt.py failed)
	wait "$STREAM_PID"; STREAM_PID=
	SENT=-1 RECV=-1 DUPS=-1 CAPDROPS=-1 UNPROC=-1
	if grep -q '^sent [0-9]* received [0-9]* dups [0-9]* capdrops [0-9]* unprocessed [0-9]*$' "$TMPD/stream"; then
		read -r _ SENT _ RECV _ DUPS _ CAPDROPS _ UNPROC < <(grep '^sent ' "$TMPD/stream")
	else
		sed 's/^/# pkt.py: /' "$TMPD/stream"
	fi
}
queue_empty() { [ "$(queue_total)" -eq 0 ]; }
NSRC=8 QUEUES="0 1"
# kq_sample FILE: the kernel's queue lines now ("queue portid total copy_mode
# copy_range dropped user_dropped id_sequence 1"); fails when a queue of
# $QUEUES is not bound.
kq_sample() {
	in_rtr cat /proc/net/netfilter/nfnetlink_queue >"$1" 2>/dev/null
	local q
	for q in $QUEUES; do awk -v q="$q" '$1 == q {f = 1} END {exit !f}' "$1" || return 1; done
}
kq() { awk -v q="$2" -v c="$3" '$1 == q {print $c; exit}' "$1"; } # FILE QUEUE COLUMN
# exit_counters TAG: srv6d's queue counters at exit must show no miss, no
# verdict error, no lost id, no fallback drop, and packets on every queue.
exit_counters() {
	local f v q
	for f in miss verdict-errors lost-ids fallback-drops; do
		v=$(queue_stat "$f")
		check "$1: srv6d queue counter $f = 0 at exit ($v)" [ "$v" -eq 0 ]
	done
	for q in $QUEUES; do
		v=$(queue_stat packets "$q")
		check "$1: queue $q saw packets ($v)" [ "$v" -gt 0 ]
	done
}

conf=$TMPD/srv6d.conf
write_conf() {
	{
		echo "queue 0-1"
		echo "queue-maxlen 4096"
		echo "fail-open no"
		echo "steer auto"
		echo "sid $SID action End"
		conf_extra
		for s in "$@"; do echo "$s"; done
	} >"$conf.new" && mv "$conf.new" "$conf"
}

if ! srv6d_built; then
	for n in "SIGTERM under traffic" "SIGHUP under traffic" "broken conf on reload"; do
		fail "$n" "srv6d not built ($SRV6D)"
	done
	summary; exit
fi

# ---- 1. SIGTERM under traffic ------------------------------------------------
write_conf
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.term.log"; then
	stream 6000 2000 1500 "$TMPD/mark1"
	wait_until 10 test -e "$TMPD/mark1"
	kq_sample "$TMPD/kq1"; bound=$?
	srv6d_stop TERM; rc=$SRV6D_RC
	stream_result
	check "srv6d exits 0 on SIGTERM under traffic (rc=$rc)" [ "$rc" -eq 0 ]
	check "queues $QUEUES bound to srv6d just before SIGTERM" [ "$bound" -eq 0 ]
	check "stats file written at exit" test -s "$TMPD/stats"
	for q in $QUEUES; do
		seq=$(kq "$TMPD/kq1" "$q" 8) kd=$(kq "$TMPD/kq1" "$q" 6) ud=$(kq "$TMPD/kq1" "$q" 7)
		got=$(queue_stat packets "$q")
		check "queue $q: kernel dropped nothing before SIGTERM (dropped ${kd:-?}, user-dropped ${ud:-?})" \
			test "${kd:-x}" = 0 -a "${ud:-x}" = 0
		check "queue $q: srv6d received all ${seq:-?} packets queued before SIGTERM ($got)" \
			test -n "$seq" -a "$got" -ge "${seq:-1}"
	done
	exit_counters "SIGTERM"
	check "steering rules removed at exit" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q NFQUEUE"
	p=$(counter $SID packets) e=$(counter $SID errors) m=$(mangle_count)
	echo "# sent $SENT, at dst $RECV (dups $DUPS), srv6d packets $p errors $e, after rule removal $m"
	check "capture lost nothing (capdrops=$CAPDROPS)" [ "$CAPDROPS" -eq 0 ]
	check "SIGTERM came mid-stream (srv6d took $p, kernel $m)" eval '[ "$p" -gt 0 ] && [ "$m" -gt 0 ]'
	check "no duplicate verdicts ($DUPS duplicates at dst)" [ "$DUPS" -eq 0 ]
	check "every packet accounted: $SENT sent = $RECV at dst + $e srv6d drops + $m after rule removal" \
		[ "$SENT" -eq $((RECV + e + m)) ]
	check "srv6d counted every packet it forwarded (packets $p = $RECV at dst)" [ "$p" -eq "$RECV" ]
else
	fail "SIGTERM under traffic" "srv6d did not start"
fi

# ---- 1b. SIGTERM with a backlog in the kernel queue ---------------------------
# srv6d is stopped (SIGSTOP) while 300 packets queue up, then gets SIGTERM and
# SIGCONT: everything queued must still get a verdict (forwarded or counted),
# none may be left for the kernel to flush (dropped uncounted) at unbind.
in_rtr ip6tables -t mangle -Z PREROUTING
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.backlog.log"; then
	kill -STOP "$SRV6D_PID"
	pkt --cap-ns "$NS_DST" --timeout 6 stream --dst $SID --count 300 --rate 3000 \
		--sources $NSRC >"$TMPD/stream" 2>&1 &
	STREAM_PID=$!
	wait_until 5 eval '[ "$(queue_total)" -ge 300 ]'
	backlog=$(queue_total)
	kq_sample "$TMPD/kq2"
	kill -TERM "$SRV6D_PID"; kill -CONT "$SRV6D_PID"
	srv6d_stop TERM; rc=$SRV6D_RC
	stream_result
	p=$(counter $SID packets) e=$(counter $SID errors) m=$(mangle_count)
	echo "# backlog $backlog; sent $SENT, at dst $RECV, srv6d packets $p errors $e, bypassed $m"
	check "backlog of $backlog queued packets before SIGTERM" [ "$backlog" -eq 300 ]
	check "srv6d exits 0 on SIGTERM with a backlog (rc=$rc)" [ "$rc" -eq 0 ]
	check "backlog: all 300 delivered processed at dst ($RECV, dups $DUPS)" \
		test "$RECV" -eq 300 -a "$DUPS" -eq 0
	check "backlog: srv6d processed all 300 without error (packets $p, errors $e, bypassed $m)" \
		test "$p" -eq 300 -a "$e" -eq 0 -a "${m:-x}" = 0
	for q in $QUEUES; do
		want=$(kq "$TMPD/kq2" "$q" 3) got=$(queue_stat packets "$q")
		check "backlog: queue $q had a backlog, srv6d received exactly it (${want:-?} queued, $got received)" \
			test "${want:-0}" -gt 0 -a "$got" -eq "${want:--1}"
	done
	exit_counters "backlog"
else
	fail "SIGTERM with a backlog" "srv6d did not start"
fi

# ---- 2. SIGHUP under traffic, then a broken conf ------------------------------
in_rtr ip6tables -t mangle -Z PREROUTING
write_conf
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.reload.log"; then
	# before the reload ff::9 is not a SID: rtr forwards it unchanged
	mapfile -t r < <(pkt_to_dst send --case end-sid9 | awk '$1 == "RX" {print substr($4, 49, 32)}')
	check "ff::9 not processed before the reload" [ "${r[*]:-}" = 20010db800ff00000000000000000009 ]

	write_conf "sid $SID9 action End"
	stream 3000 2000 1000 "$TMPD/mark2"
	wait_until 10 test -e "$TMPD/mark2"
	kill -HUP "$SRV6D_PID"
	stream_result
	m=$(mangle_count)
	check "SIGHUP under traffic: no loss on the unchanged SID ($RECV of $SENT, $m bypassed)" \
		test "$SENT" -gt 0 -a "$RECV" -eq "$SENT" -a "${m:-x}" = 0 -a "$DUPS" -eq 0
	check "srv6d alive after reload" srv6d_alive
	if srv6d_stats; then
		for q in $QUEUES; do
			v=$(queue_stat packets "$q")
			check "SIGHUP: queue $q saw packets ($v)" [ "$v" -gt 0 ]
		done
	else
		fail "SIGHUP: stats on SIGUSR1" "no $SRV6D_STATS within 5 s"
	fi
	wait_until 5 queue_empty
	check "queue empty after the traffic (queue_total=$(queue_total))" queue_empty
	mapfile -t r < <(pkt_to_dst send --case end-sid9 | awk '$1 == "RX" {print substr($4, 49, 32)}')
	check "new SID ff::9 works after the reload" [ "${r[*]:-}" = 20010db800aa00000000000000000001 ]

	# broken conf: srv6d must keep running the old one
	write_conf "sid $SID9 action End" "sid 2001:db8:ff::10 action End.DX5"
	stream 2000 2000 700 "$TMPD/mark3"
	wait_until 10 test -e "$TMPD/mark3"
	kill -HUP "$SRV6D_PID"
	stream_result
	m=$(mangle_count)
	check "broken conf on reload: traffic unaffected ($RECV of $SENT, $m bypassed)" \
		test "$SENT" -gt 0 -a "$RECV" -eq "$SENT" -a "${m:-x}" = 0 -a "$DUPS" -eq 0
	check "srv6d alive after a broken reload" srv6d_alive
	mapfile -t r < <(pkt_to_dst send --case end-sid9 | awk '$1 == "RX" {print substr($4, 49, 32)}')
	check "old config (ff::9) still active after a broken reload" \
		[ "${r[*]:-}" = 20010db800aa00000000000000000001 ]
	check "srv6d logged the bad line" grep -q 'End.DX5' "$SRV6D_LOG"

	# a next hop rtr has no route to does not fail a reload: the End.X
	# SID is pending (docs/DATAPATH.md, degraded start), steered, and its
	# packets dropped and counted as pending
	write_conf "sid $SID9 action End" "sid 2001:db8:ff::11 action End.X nh6 2001:db9::1"
	n0=$(grep -c 'reload' "$SRV6D_LOG")
	kill -HUP "$SRV6D_PID"
	wait_until 5 eval '[ "$(grep -c reload "$SRV6D_LOG")" -gt '"$n0"' ]'
	check "reload with an unreachable next hop: done, the End.X SID pending ($(grep reload "$SRV6D_LOG" | tail -1))" \
		bash -c 'grep reload "$1" | tail -1 | grep -q "1 pending"' _ "$SRV6D_LOG"
	check "the pending SID's log line names the next hop" \
		bash -c 'grep "ff::11.*pending" "$1" | grep -q "2001:db9::1"' _ "$SRV6D_LOG"

	# a conf that parses but cannot be put in place (a SID prefix holding
	# one of rtr's own addresses): the running conf stays
	write_conf "sid $SID9 action End" "sid $RTR_ADDR_DST action End"
	n0=$(grep -c 'reload' "$SRV6D_LOG")
	kill -HUP "$SRV6D_PID"
	wait_until 5 eval '[ "$(grep -c reload "$SRV6D_LOG")" -gt '"$n0"' ]'
	check "reload failing after the parse is logged, naming the address ($(grep reload "$SRV6D_LOG" | tail -1))" \
		bash -c 'grep reload "$1" | tail -1 | grep -q "$2"' _ "$SRV6D_LOG" "$RTR_ADDR_DST"
	check "srv6d alive after a reload failing after the parse" srv6d_alive
	mapfile -t r < <(pkt_to_dst send --case end-sid9 | awk '$1 == "RX" {print substr($4, 49, 32)}')
	check "old config (ff::9) still active after a reload failing after the parse" \
		[ "${r[*]:-}" = 20010db800aa00000000000000000001 ]
	check "no steering rule for the refused SID $RTR_ADDR_DST" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q '$RTR_ADDR_DST'"
	srv6d_stop TERM
	check "srv6d exits 0 after the reloads (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
	exit_counters "reloads"
else
	fail "SIGHUP under traffic" "srv6d did not start"
fi

# ---- 3. a reload removing a SID under traffic ------------------------------
# Every packet to the removed SID arrives exactly once: processed (End,
# DA aa::1) before the reload, unchanged (DA ff::9, routed to dst) after.
# A packet queued before the rules went but handled after the tables did is
# a "miss", accepted unchanged: allowed here, but never lost nor doubled.
in_rtr ip6tables -t mangle -Z PREROUTING
write_conf "sid $SID9 action End"
if srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.remove.log"; then
	write_conf
	stream 3000 2000 1000 "$TMPD/mark4" $SID9
	wait_until 10 test -e "$TMPD/mark4"
	kill -HUP "$SRV6D_PID"
	stream_result
	check "reload removing SID ff::9 under traffic: $RECV processed + $UNPROC unchanged = $SENT sent, $DUPS twice" \
		test "$SENT" -gt 0 -a $((RECV + UNPROC)) -eq "$SENT" -a "$DUPS" -eq 0
	check "... the reload came mid-stream ($RECV processed, $UNPROC unchanged)" \
		test "$RECV" -gt 0 -a "$UNPROC" -gt 0
	check "... and removed the SID's rule" \
		bash -c "! ip netns exec $NS_RTR ip6tables -t raw -S | grep -q '2001:db8:ff::9/'"
	srv6d_stop TERM
	check "srv6d exits 0 after removing a SID under traffic (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
	for f in verdict-errors lost-ids fallback-drops; do
		v=$(queue_stat "$f")
		check "SID removal: srv6d queue counter $f = 0 at exit ($v)" [ "$v" -eq 0 ]
	done
else
	fail "reload removing a SID under traffic" "srv6d did not start"
fi
summary
