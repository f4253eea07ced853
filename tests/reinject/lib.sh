# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/reinject/lib.sh - shared part of the reinjection suite
# (docs/REINJECTION.md).  Sources tests/net/lib.sh (its topology, srv6d
# helpers and result lines) and adds:
#
#   +-------------+        +-------------------------------------+        +-------------+
#   | $NS_SRC     |        | $NS_RTR   nf_hooks_lwtunnel=1       |        | $NS_DST     |
#   |        eth0 +--------+ eth0                           eth1 +--------+ eth0        |
#   | 2001:db8:1::1/64     | kernel seg6local SIDs 2001:db8:5::N |        | 2001:db8:2::2/64
#   |                      | srv6d: policy queues 10..17,        |        | 192.0.2.2/24
#   |                      |        steer none (rules: the test) |        |             |
#   +-------------+        +-------------------------------------+        +-------------+
#
#   SID            action                               next hop the behavior looks up
#   2001:db8:5::1  End                                  2001:db8:2::2 (main, connected)
#   2001:db8:5::2  End.X nh6 fd00:77::1                 fd00:77::/64 via dst (main)
#   2001:db8:5::3  End.T table 100                      2001:db8:cc::/64 via dst (table 100)
#   2001:db8:5::4  End.DX6 nh6 fd00:77::1               fd00:77::/64 via dst
#   2001:db8:5::5  End.DX4 nh4 192.0.2.2                192.0.2.0/24 (connected)
#   2001:db8:5::6  End.DT6 table 100                    2001:db8:cc::/64 (table 100)
#   2001:db8:5::7  End.B6 srh segs 2001:db8:2::2        2001:db8:2::2
#   2001:db8:5::8  End.B6.Encaps srh segs 2001:db8:2::2 2001:db8:2::2
#
# srv6d's policy queues:
#   10 accept   11 hold   12 drop   13 repeat mark 0x10   14 repeat
#   15 requeue 10   16 delay 200ms   17 accept mark 0x20
#
# MACHINE STATE: net.netfilter.nf_hooks_lwtunnel is global and, once 1, can
# never be set back to 0 (the kernel refuses with EBUSY).  These tests set
# it; that is why they run last in CI (tests/check.sh, suite "reinject").
# Namespaces are named r13-*-PID-RANDOM.

. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../net/lib.sh"
RJ_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NS_SRC="r13-src-$$-$RANDOM"
NS_RTR="r13-rtr-$$-$RANDOM"
NS_DST="r13-dst-$$-$RANDOM"
SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}
SID=2001:db8:5:
DMESG_BASE=

# rj_require: require_env plus the sysctl and srv6d/srv6ctl built.  Every
# case here is a kernel seg6local behavior queued from its lwtunnel hook: on
# a kernel without seg6local or the hooks the script is one [SKIP] line
# naming the feature and exits 0 (tests/check.sh's "oracle" suite runs it
# in the kernel-oracle VM then: tests/vm/).
rj_require() {
	require_env
	local f
	for f in seg6local lwthooks; do
		kfeat "$f" && continue
		skip "$(basename "$0"): every case" "$(kfeat_why "$f")"
		rm -rf "$TMPD"; exit 0
	done
	[ -x "$SRV6D" ] && [ -x "$SRV6CTL" ] || { echo "SKIP: build srv6d and srv6ctl first"; exit $ksft_skip; }
	command -v dmesg >/dev/null || { echo "SKIP: dmesg not found"; exit $ksft_skip; }
}

ctl() { ip netns exec "$NS_RTR" timeout 20 "$SRV6CTL" -S "$TMPD/srv6d.sock" "$@"; }
# qget Q FIELD: a counter of `srv6ctl -j queue show Q`
qget() {
	ctl -j queue show "$1" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$2"
}
held_is() { [ "$(qget "$1" held_now)" = "$2" ]; }
qpackets_ge() { [ "$(qget "$1" packets)" -ge "$2" ]; }

# snmp6 NAME: a counter of rtr's /proc/net/snmp6 (0 when the kernel has none)
snmp6() { in_rtr awk -v n="$1" '$1 == n {v = $2} END {print v + 0}' /proc/net/snmp6; }
# rxs NS FILE: the hex of each packet rj_send.py captured at NS (its RX lines)
rxs() { sed -n "s/^RX $1 //p" "$2"; }
# ptb_mtu: " mtu=N" of an ICMPv6 Packet Too Big captured at src in
# $TMPD/held (the held cases' capture), else nothing
ptb_mtu() {
	local h
	h=$(rxs "$NS_SRC" "$TMPD/held" | head -1)
	[ "${h:80:2}" = 02 ] && echo " mtu=$((16#${h:88:8}))"
}
# sink_add / sink: count at dst's INPUT what src sends to dst's UDP port 5000
sink_add() { in_dst ip6tables -A INPUT -s $SRC_ADDR -d $DST_ADDR -p udp --dport 5000; }
sink() { in_dst ip6tables -L INPUT -v -x -n | awk '/udp dpt:5000/ {print $1}'; }
# churn_start [CMD]: in rtr, a loop that deletes and re-adds fd00:77::/64 via
# dst (then runs CMD, if given) until churn_stop, as $CHURN_PID; returns once
# its first round is done (false after 30 s without one), so that what the
# caller does next overlaps the churn instead of racing the loop's start
CHURN_PID=
churn_start() {
	rm -f "$TMPD/churned"
	ip netns exec "$NS_RTR" bash -c "while :; do ip -6 route del fd00:77::/64; \
		ip -6 route add fd00:77::/64 via $DST_ADDR dev $RTR_IF_DST; ${1:+$1; }: >$TMPD/churned; done" \
		>/dev/null 2>&1 &
	CHURN_PID=$!
	wait_until 30 test -e "$TMPD/churned"
}
# churn_stop: end the route churn running as $CHURN_PID, if any (EXIT traps too)
churn_stop() {
	[ -n "$CHURN_PID" ] && kill "$CHURN_PID" 2>/dev/null && wait "$CHURN_PID" 2>/dev/null
	CHURN_PID=
}
# rj_finish: how every script ends: its hook removed, the kernel log clean,
# srv6d stopped by SIGTERM, the namespaces gone without a reference left
# waiting, the log still clean; then the count line.
rj_finish() {
	hook off
	check "kernel log: no WARN/BUG/RCU/refcount line" dmesg_clean
	check "srv6d stops cleanly (SIGTERM)" srv6d_stop
	check "namespaces deleted: torn down completely (no reference left waiting)" rj_ns_teardown
	check "kernel log still clean after the teardown" dmesg_clean
	summary
}
# sidpkts SID: the seg6local route's packets counter (`count`)
sidpkts() { in_rtr ip -s -6 route show "$1" | sed -n 's/.* packets \([0-9]*\) .*/\1/p'; }

# hook CHAIN Q [MATCH...]: the only NFQUEUE rule of the test: mangle CHAIN
# (INPUT, FORWARD, POSTROUTING...) to queue Q; "hook off" removes it.
hook() {
	local c
	for c in PREROUTING INPUT FORWARD OUTPUT POSTROUTING; do in_rtr ip6tables -t mangle -F "$c"; done
	for c in PREROUTING FORWARD POSTROUTING; do in_rtr iptables -t mangle -F "$c"; done
	[ "$1" = off ] && return 0
	local chain=$1 q=$2; shift 2
	in_rtr ip6tables -t mangle -A "$chain" "$@" -j NFQUEUE --queue-num "$q"
}

# rj_hex CASE: RJ_HEX[CASE] set, every case's packet made by one
# rj_pkts.py --all the first time (false, with a message, for no such CASE)
declare -A RJ_HEX=()
rj_hex() {
	local n h
	if [ ${#RJ_HEX[@]} -eq 0 ]; then
		while read -r n h; do RJ_HEX[$n]=$h; done < <("$PY" "$RJ_DIR/rj_pkts.py" --all)
	fi
	[ -n "${RJ_HEX[$1]:-}" ] || { echo "rj_pkts.py has no case $1" >&2; return 1; }
}

# send CASE CAPS [WANT [TIMEOUT]]: send rj_pkts CASE from src, print RX/IC
# lines seen at CAPS ("dst", "src", "both").  RJ_READY=FILE: FILE made once
# sent; RJ_AFTER=FILE: the TIMEOUT counts from when FILE exists (rj_send.py).
send() {
	local caps
	case "$2" in
	dst) caps="$NS_DST:eth0" ;; src) caps="$NS_SRC:eth0" ;; both) caps="$NS_DST:eth0,$NS_SRC:eth0" ;;
	esac
	rj_hex "$1" || return 1
	"$PY" "$RJ_DIR/rj_send.py" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap "$caps" \
		--hex "${RJ_HEX[$1]}" --want "${3:-1}" --timeout "${4:-3}" \
		${RJ_READY:+--ready "$RJ_READY"} ${RJ_AFTER:+--after "$RJ_AFTER"}
}

# rj_conf: srv6d.conf of the suite (plus the lines of $RJ_EXTRA_CONF).
rj_conf() {
	cat <<EOC
queue 9
steer none
control-socket $TMPD/srv6d.sock
queue 10 policy accept
queue 11 policy hold
queue 12 policy drop
queue 13 policy repeat mark 0x10
queue 14 policy repeat
queue 15 policy requeue 10
queue 16 policy delay 200ms
queue 17 policy accept mark 0x20
EOC
	[ -z "${RJ_EXTRA_CONF:-}" ] || printf '%s\n' "$RJ_EXTRA_CONF"
}

# rj_sids: the kernel's seg6local routes of the table above (re)installed.
rj_sids() {
	local e
	for e in "1 End" "2 End.X nh6 fd00:77::1" "3 End.T table 100" "4 End.DX6 nh6 fd00:77::1" \
		 "5 End.DX4 nh4 192.0.2.2" "6 End.DT6 table 100" "7 End.B6 srh segs 2001:db8:2::2" \
		 "8 End.B6.Encaps srh segs 2001:db8:2::2"; do
		# shellcheck disable=SC2086
		in_rtr ip -6 route replace "$SID:${e%% *}/128" encap seg6local action ${e#* } count \
			dev "$RTR_IF_SRC" || return 1
	done
}

# rj_sids_del: the seg6local routes removed (before srv6d starts again).
rj_sids_del() {
	local n
	for n in 1 2 3 4 5 6 7 8; do in_rtr ip -6 route del "$SID:$n/128" 2>/dev/null; done
	return 0
}

# rj_routes: what the behaviors look up, (re)installed.
rj_routes() {
	in_rtr ip -6 route replace fd00:77::/64 via $DST_ADDR dev "$RTR_IF_DST" &&
	in_rtr ip -6 route replace 2001:db8:cc::/64 via $DST_ADDR dev "$RTR_IF_DST" table 100
}

# rj_setup: topology, IPv4 on rtr-dst, sysctls, srv6d, then the SIDs
# (srv6d starts before any seg6local route exists: see docs/REINJECTION.md,
# libnl's route dump fails on them).
rj_setup() {
	DMESG_BASE=$(dmesg | wc -l)
	topo_create || return 1
	in_rtr sysctl -qw net.netfilter.nf_hooks_lwtunnel=1 net.ipv4.conf.all.forwarding=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 >/dev/null || return 1
	ip -n "$NS_RTR" addr add 192.0.2.1/24 dev "$RTR_IF_DST"
	ip -n "$NS_DST" addr add 192.0.2.2/24 dev eth0
	ip -n "$NS_RTR" neigh replace 192.0.2.2 lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	ip -n "$NS_DST" route add default via 192.0.2.1
	# dst answers plain UDP with Port Unreachable (nothing listens): only
	# rtr's ICMP errors are outcomes of the tests
	in_dst ip6tables -A OUTPUT -p icmpv6 --icmpv6-type port-unreachable -j DROP
	in_dst iptables -A OUTPUT -p icmp --icmp-type port-unreachable -j DROP
	rj_routes || return 1
	rj_conf >"$TMPD/srv6d.conf"
	srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" || return 1
	wait_until 5 test -S "$TMPD/srv6d.sock" || return 1
	rj_hex end || return 1     # every case's packet, once (background sends share it)
	rj_sids
}

# dmesg_clean: no kernel report (KREPORT, kreport.sh: WARN/BUG/KASAN/lockdep
# and RCU/refcount/ref_tracker/"waiting for"...) since rj_setup (a debug
# kernel's checkers report through these).
. "$RJ_DIR/kreport.sh"
dmesg_clean() {
	local bad
	bad=$(dmesg | tail -n +"$((DMESG_BASE + 1))" | grep -E "$KREPORT" | head -5)
	[ -z "$bad" ] || { echo "$bad" | sed 's/^/#   /'; return 1; }
}

# rj_flood NAME: RJ_N End.X packets (rj_pkts end-x) from src at once, all
# to be held in queue 11 by the test's hook: a check named NAME
rj_flood() {
	rj_hex end-x || return 1
	"$PY" "$RJ_DIR/rj_send.py" --src-ns "$NS_SRC" --dmac "$RTR_MAC_SRC" --cap "$NS_DST:eth0" \
		--hex "${RJ_HEX[end-x]}" --count "$RJ_N" --want 0 --timeout 0 >/dev/null
	if wait_until 60 held_is 11 "$RJ_N"; then
		ok "$1: $RJ_N packets held in queue 11 (kernel waiting $(in_rtr awk '$1 == 11 {print $3}' /proc/net/netfilter/nfnetlink_queue))"
	else
		fail "$1: held $(qget 11 held_now) of $RJ_N"
	fi
}

# The drop monitor: the kernel's skb:kfree_skb tracepoint (each skb freed
# as a drop, with the function that freed it) in a tracing instance of the
# test's own, filtered on IPv6 and IPv4 packets.  It names the drops no
# counter does: a held packet whose route was freed meanwhile ends in
# dst_discard_out (FORWARD) or dst_discard (input).  dropmon_start sets
# DROPMON=1 when it runs (tracefs with the event), else says once why not and
# leaves DROPMON=0: the tests then assert what counters show only.  The
# instance goes at exit (CLEANUP_HOOKS).  Tracing is the machine's, not a
# namespace's: count only the functions a case is about.
DROPMON=0
DM_DIR=
DM_FN=dst_discard_out
dropmon_start() {
	local t=/sys/kernel/tracing i
	[ -d $t/instances ] || mount -t tracefs nodev $t 2>/dev/null
	[ -d $t/instances ] || t=/sys/kernel/debug/tracing
	# an instance a killed test left (its PID gone) keeps the event on: removed
	for i in "$t"/instances/srv6d-rj-*; do
		[ -d "$i" ] && ! kill -0 "${i##*-}" 2>/dev/null || continue
		echo 0 >"$i/events/skb/kfree_skb/enable" 2>/dev/null
		rmdir "$i" 2>/dev/null
	done
	DM_DIR=$t/instances/srv6d-rj-$$
	CLEANUP_HOOKS="${CLEANUP_HOOKS:-} dropmon_stop"   # before the mkdir: no window without it
	if mkdir "$DM_DIR" 2>/dev/null && [ -d "$DM_DIR/events/skb/kfree_skb" ] &&
	   echo 'protocol == 34525 || protocol == 2048' >"$DM_DIR/events/skb/kfree_skb/filter" &&
	   echo 2048 >"$DM_DIR/buffer_size_kb" && echo 1 >"$DM_DIR/events/skb/kfree_skb/enable"; then
		DROPMON=1
	else
		[ -d "$DM_DIR" ] && rmdir "$DM_DIR" 2>/dev/null
		DM_DIR=
		echo "# no drop monitor here (tracefs with skb:kfree_skb): drops no counter names are not asserted"
	fi
}
# dropmon_mark: forget the drops seen so far (and the last case's DM_N)
dropmon_mark() { DM_N=''; [ "$DROPMON" = 0 ] || : >"$DM_DIR/trace"; }
# dropmon_count FUNC: drops freed in FUNC since dropmon_mark
dropmon_count() { grep -c "location=$1+" "$DM_DIR/trace"; }
# dropmon_others FUNC: the other drops since dropmon_mark, "FUNC:N,..." (said, not asserted)
dropmon_others() {
	sed -n 's/.* location=\([A-Za-z0-9_.]*\)+.*/\1/p' "$DM_DIR/trace" | grep -vx "$1" |
		sort | uniq -c | awk '{printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1}'
}
# dropmon_take NAME [FUNC]: after a case, DM_N = the drops freed in FUNC
# (dst_discard_out) since dropmon_mark, and a "#" line naming NAME's other
# drops, if any (not asserted: tracing sees the whole machine)
dropmon_take() {
	DM_N='' DM_FN=${2:-dst_discard_out}
	[ "$DROPMON" = 1 ] || return 0
	DM_N=$(dropmon_count "$DM_FN")
	local o; o=$(dropmon_others "$DM_FN")
	[ -z "$o" ] || echo "# $1: other drops meanwhile: $o"
}
# dm_check NAME N: a check that the case's DM_N is N (nothing without a drop monitor)
dm_check() {
	[ "$DROPMON" = 1 ] || return 0
	check "$1: $2 freed in $DM_FN (drop monitor)" [ "$DM_N" = "$2" ]
}
dropmon_stop() {
	[ -n "$DM_DIR" ] && [ -d "$DM_DIR" ] || return 0
	echo 0 >"$DM_DIR/events/skb/kfree_skb/enable"
	rmdir "$DM_DIR" 2>/dev/null
	DM_DIR='' DROPMON=0
}

# rcu_barrier: a veth pair added and deleted in rtr: unregistering a device
# runs rcu_barrier() (netdev_run_todo), so routes deleted before it have
# been freed (their cached dsts "put": dst_dev_put, blackhole_netdev) and
# dsts released before it destroyed: outcomes and counters do not depend
# on how fast RCU callbacks run.
rcu_barrier() {
	in_rtr ip link add r13gp0 type veth peer name r13gp1 && in_rtr ip link del r13gp0
}

# rj_kstate: rtr's kernel counters that every case must leave as it found
# them.  From /proc/net/rt6_stats (per namespace): the entries of
# ip6_dst_ops (field 6: the dsts counted by this kernel, uncached clones
# such as FLOWI_FLAG_KNOWN_NH lookups and icmp6_dst_alloc, and route cache
# exceptions; per-CPU route dsts are DST_NOCOUNT), the exception entries
# (field 5) and the fib route entries (field 4); and the namespace's IPv6
# (global addresses: a link-local entry dst's own Neighbor Solicitation
# creates comes and goes with ND timing) and IPv4 neighbour entries.  The exception cache is flushed, then an RCU
# barrier: what stays counted is held by something.  Not usable here:
# field 3 (fib_rt_alloc) only ever grows on this kernel, and the neighbour
# table counters of /proc/net/stat/ndisc_cache exist in init_net only,
# shared by every namespace.  The per-CPU route dsts a queued skb holds are
# covered by rj_ns_teardown (a leaked one keeps its inet6_dev, hence its
# device, referenced).
rj_kstate() {
	in_rtr ip -6 route flush cache
	rcu_barrier
	# shellcheck disable=SC2046
	set -- $(in_rtr cat /proc/net/rt6_stats)
	echo "dst=$((16#$6)) rtcache=$((16#$5)) fib=$((16#$4))" \
	     "neigh6=$(in_rtr ip -6 neigh show | grep -vc '^fe80:') neigh4=$(in_rtr ip -4 neigh show | wc -l)"
}
# kbase: the baseline (rj_kstate) before a case, in KBASE.
kbase() { KBASE=$(rj_kstate); }
# kcheck NAME: check that rj_kstate is back to KBASE (dsts may still be on
# their way out through RCU: retried for up to 5 s).
kcheck() {
	local now
	kstate_back() { now=$(rj_kstate); [ "$now" = "$KBASE" ]; }
	if wait_until 5 kstate_back; then
		ok "$1: kernel dst/route/neighbour counters back to baseline ($now)"
	else
		fail "$1: kernel counters not back to baseline" "before: $KBASE" "after:  $now"
	fi
}

# rj_netns_drained: wait until every namespace whose cleanup has already
# started is torn down completely.  Namespace cleanup is one ordered work
# queue (cleanup_net), and its device unregistration waits
# (netdev_run_todo) until every reference to the devices is gone: a
# sentinel namespace A, deleted now, is cleaned up only after them; its
# veth peer in a second sentinel B disappears then.  A leaked dst, neighbour
# or skb reference keeps the queue waiting ("unregister_netdevice: waiting
# for ... to become free" after 10 s): fails after 20 s.  The queue is
# the machine's: a leak in a namespace someone else deleted just before
# fails it too (dmesg_clean then names the device).
rj_netns_drained() {
	local a="r13-wa-$$-$RANDOM" b="r13-wb-$$-$RANDOM" r=0
	ip netns add "$a" && ip netns add "$b" || return 1
	ip -n "$a" link add w0 type veth peer name w1 netns "$b" || r=1
	ip netns del "$a"
	gone() { ! ip -n "$b" link show "$1" >/dev/null 2>&1; }
	[ $r = 0 ] && { wait_until 20 gone w1 || { echo "# namespace cleanup still waiting after 20 s"; r=1; }; }
	ip netns del "$b"
	return $r
}

# rj_ns_teardown: delete the test's namespaces (srv6d stopped first) and
# wait until the kernel has torn them down completely: a witness veth from
# rtr into a namespace W shows that rtr's cleanup has started (nothing
# holds the namespace any more), then rj_netns_drained.
rj_ns_teardown() {
	local w="r13-ww-$$-$RANDOM" ns r=0
	ip netns add "$w" || return 1
	ip -n "$NS_RTR" link add r13wit type veth peer name wit netns "$w" || r=1
	for ns in "$NS_SRC" "$NS_RTR" "$NS_DST"; do ip netns del "$ns" || r=1; done
	if [ $r = 0 ] && wait_until 20 eval '! ip -n "$w" link show wit >/dev/null 2>&1'; then
		rj_netns_drained || r=1
	else
		echo "# rtr's namespace cleanup did not start (something holds it)"; r=1
	fi
	ip netns del "$w"
	return $r
}

# rj_unheld: after a case whose packet was not held in time (a loaded
# machine): no rule, and whatever queue 11 holds released, so that a late
# packet cannot pass for the next case's.
rj_unheld() {
	hook off
	ctl queue release 11 all >/dev/null
	wait_until 10 held_is 11 0
}
