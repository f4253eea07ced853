#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_burst.sh - every packet of an overload burst is accounted for, on both
# egress paths: offered = delivered + drops counted by name.
#
#   +-------------+        +-------------------------------------+        +-------------+
#   | src         |        | rtr: srv6d, queue-maxlen 64         |        | dst         |
#   |        eth0 +--------+ eth0                           eth1 +--------+ eth0        |
#   | srv6_blast  |        | sid 2001:db8:ff::1 action End       |        | raw DROP of |
#   | -r 0 (as    |        | egress verdict | egress inject      |        | -d aa::1,   |
#   | fast as it  |        | (srv6d0 <-veth-> srv6d0p)           |        | counted     |
#   | can)        |        +-------------------------------------+        +-------------+
#
# The burst is far larger than the queue (64) and than what one worker clears
# while it arrives, so the kernel drops at the queue.  Every drop point is read:
#   veth drops (each counted once, on the sending side; softnet backlog drops
#   are the same losses seen again and only reported), /proc/net/netfilter/nfnetlink_queue (queue_dropped, user_dropped:
#   read before srv6d unbinds), srv6d's per-SID errors and its injection
#   errors, srv6d0's device drops, rtr's and dst's Ip6 MIB discards, dst's
#   eth0 rx drops.
# and the sum with what dst counted must equal what srv6_blast sent, exactly.
# srv6d0 itself sends nothing (no MLD report: checked), so nothing of srv6d's
# own shows in the stack's discard counters.
# softnet_stat is host-wide: other traffic on the machine while this runs can
# only make the drop side larger, which fails the check rather than hiding a
# loss; CI runs tests one at a time.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
BLAST=$BUILD/bench/srv6_blast

test_begin --built "$BLAST"
in_dst ip6tables -t raw -A PREROUTING -d 2001:db8:aa::1 -j DROP

dst_count() { in_dst ip6tables -t raw -L PREROUTING -v -x -n | awk '/DROP/ {print $1; exit}'; }
linkstat() { # NS DEV FIELD (rx_dropped, tx_dropped...)
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3" 2>/dev/null || echo 0
}
softnet() { local s=0 a b r; while read -r a b r; do s=$((s + 0x$b)); done </proc/net/softnet_stat; echo $s; }
mib() { # NS NAME
	ip netns exec "$1" awk -v k="$2" '$1 == k {print $2}' /proc/net/snmp6
}
# sum of the drop counters of the rtr-side and dst-side stacks
stack_drops() {
	local s=0 k
	for k in Ip6InDiscards Ip6OutDiscards Ip6InNoRoutes Ip6OutNoRoutes Ip6InHdrErrors \
		 Ip6InAddrErrors Ip6InTooBigErrors; do
		s=$((s + $(mib "$NS_RTR" $k) + $(mib "$NS_DST" $k)))
	done
	echo $s
}
# A veth that cannot hand a frame to its peer's backlog counts it once on the
# sending side (tx_dropped); the same loss also shows in the receiver's
# rx_dropped and in softnet_stat, so only the sending side is added up.
veth_drops() {
	echo $(( $(linkstat "$NS_SRC" eth0 tx_dropped) + $(linkstat "$NS_RTR" "$RTR_IF_DST" tx_dropped) ))
}
# every per-device and global MIB counter of rtr and dst, "ns/file/key value"
mibs() {
	local ns f
	for ns in "$NS_RTR" "$NS_DST"; do
		for f in /proc/net/snmp6 /proc/net/dev_snmp6/*; do
			ip netns exec "$ns" awk -v p="${ns%%-*}${f#/proc/net}" '{print p "/" $1, $2}' "$f" 2>/dev/null
		done
	done | sort
}
qfield() { in_rtr awk -v c="$1" '{s += $c} END {print s + 0}' /proc/net/netfilter/nfnetlink_queue; }

run() { # EGRESS
	local eg=$1 conf=$TMPD/burst.$1.conf sent out v0 v1 s0 s1 m0 m1 d0 d1 qd ud
	local errs injerr devdrop delivered drops icmpout
	cat >"$conf" <<-EOF
	queue 0
	queue-maxlen 64
	steer auto
	egress $eg
	sid 2001:db8:ff::1 action End
	EOF
	if ! srv6d_start "$conf" "$TMPD/stats.$eg" "$TMPD/srv6d.$eg.log"; then
		fail "[$eg] srv6d starts"; return
	fi
	d0=$(dst_count) v0=$(veth_drops) s0=$(softnet) m0=$(stack_drops)
	mibs >"$TMPD/mib0.$eg"
	out=$(ip netns exec "$NS_SRC" "$BLAST" -i eth0 -M "$RTR_MAC_SRC" -s "$SRC_ADDR" \
		-S 2001:db8:ff::1,2001:db8:aa::1 -r 0 -t 0.2 -F 64 2>&1)
	sent=$(echo "$out" | awk '{for (i = 1; i < NF; i++) if ($i == "sent") print $(i + 1)}')
	# settled: nothing waiting in the queue and dst's count stable
	wait_until 10 sh -c "[ \"\$(ip netns exec $NS_RTR awk '{s += \$3} END {print s + 0}' /proc/net/netfilter/nfnetlink_queue)\" -eq 0 ]"
	sleep 0.5
	qd=$(qfield 6) ud=$(qfield 7)
	srv6d_stats
	d1=$(dst_count) v1=$(veth_drops) s1=$(softnet) m1=$(stack_drops)
	mibs >"$TMPD/mib1.$eg"
	errs=$(counter 2001:db8:ff::1 errors)
	injerr=$(awk '$1 == "queue" {for (i = 2; i <= NF; i++) if ($i ~ /^(inject-errors|lost-ids|fallback-drops)=/) {split($i, kv, "="); s += kv[2]}} END {print s + 0}' "$SRV6D_STATS")
	devdrop=$(awk '$1 == "egress" {for (i = 2; i <= NF; i++) if ($i ~ /^tx-dropped=/) {split($i, kv, "="); s += kv[2]}} END {print s + 0}' "$SRV6D_STATS")
	icmpout=$(ip netns exec "$NS_RTR" awk '$1 == "Icmp6OutMsgs" {print $2}' /proc/net/dev_snmp6/srv6d0 2>/dev/null)
	srv6d_stop
	delivered=$((d1 - d0))
	drops=$(( (v1 - v0) + (m1 - m0) + qd + ud + errs + injerr + devdrop ))
	echo "# [$eg] sent $sent: delivered $delivered; drops: veth $((v1 - v0)) softnet $((s1 - s0))" \
	     "ip6-mib $((m1 - m0)) queue-full $qd socket-full $ud srv6d-errors $errs" \
	     "inject/lost $injerr srv6d0 $devdrop"
	check "[$eg] the burst overloaded the queue (queue-full drops $qd > 0)" test "$qd" -gt 0
	check "[$eg] srv6d forwarded part of it (delivered $delivered > 0)" test "$delivered" -gt 0
	if [ "${sent:-0}" -gt 0 ] && [ "${sent:-0}" -eq $((delivered + drops)) ]; then
		ok "[$eg] offered $sent = delivered $delivered + counted drops $drops"
	else
		fail "[$eg] offered ${sent:-?} = delivered $delivered + counted drops $drops" \
			"MIB counters that changed (rtr, dst):" \
			"$(join "$TMPD/mib0.$eg" "$TMPD/mib1.$eg" | awk '$2 != $3 {print $1 ": " $2 " -> " $3}')"
	fi
	if [ "$eg" = inject ]; then
		check "[$eg] srv6d0 sent no packet of its own (Icmp6OutMsgs=${icmpout:-none})" \
			test "${icmpout:-x}" = 0
	fi
	check "[$eg] srv6d exits 0 (rc=$SRV6D_RC)" test "$SRV6D_RC" -eq 0
}

run verdict
run inject
summary
