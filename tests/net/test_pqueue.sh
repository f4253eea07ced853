#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_pqueue.sh - verdict-policy queues (docs/REINJECTION.md) against what
# the kernel does to queued packets on its own: requeue cycles refused, and a
# `hold` queue whose held list follows the kernel's queue.
#
#   +---------------+      +-------------------------------------+      +---------------+
#   | src           |      | rtr  srv6d: queue 10 policy hold,   |      | dst           |
#   |          eth0 +------+ eth0      queue-maxlen 4       eth1 +------+ eth0          |
#   | 2001:db8:1::1 |      | 2001:db8:1::2          2001:db8:2::1 |      | 2001:db8:2::2 |
#   | UDP to rtr's  |      | mangle PREROUTING: udp dport 9999   |      | UDP to rtr's  |
#   | eth0 address  |      |   -j NFQUEUE --queue-num 10         |      | eth1 address  |
#   +---------------+      | (6 only) tun7, TUN mode, up, no     |      +---------------+
#                          |   reader: 2001:db8:77::/64; mangle  |
#                          |   OUTPUT: udp dport 9999 -j NFQUEUE |
#                          +-------------------------------------+
#
# Every packet but case 6's is UDP to one of rtr's own addresses, port 9999
# (no socket): held at PREROUTING with its input device, and once released
# delivered locally, which rtr counts as Udp6NoPorts.  The kernel drops queued packets
# itself without telling srv6d: those of a device that goes down
# (nfqnl_dev_drop) and every one of the namespace when a netfilter hook is
# unregistered (nfqnl_nf_hook_drop; here conntrack's hooks, going with the
# last rule that needed them).  srv6d must notice (the kernel's queue_total,
# read every second) and release the stale records (the kernel refuses their
# NF_ACCEPT: ENOENT, counted kernel-dropped), and never hold more records
# than queue-maxlen (the kernel queues no more): a packet arriving while 4
# are held evicts a record of a down device, else the oldest.
#   1. conf: requeue cycles (2 and 3 queues) refused by --check and by a
#      reload, named at the line that closes them; a chain is fine
#   2. eth1 down with 3 held from dst: all reconciled, kernel-dropped 3
#   3. 2 held from src, 2 from dst, eth1 down: the 2 of eth1 reconciled, the
#      2 of eth0 still held; released: delivered
#   4. a hook unregistered while 2 are held: reconciled, kernel-dropped
#   5. 2 held from dst, 2 from src, eth1 flaps while srv6d is stopped
#      (SIGSTOP: no reconcile sees it down), 2 more from src: the 2 stale
#      records evicted (refused: kernel-dropped), 4 held = the kernel's 4
#   6. 3 held at OUTPUT to tun7 (a device without a link-layer address:
#      getifaddrs() has no AF_PACKET entry for it), 1 from dst, eth1 down:
#      only the one of eth1 reconciled, the 3 of tun7 still held; released:
#      out through tun7
#   7. 2 held from src, then 2 from dst (the stale ones the newer), eth1
#      down while srv6d is stopped, 2 more from src: the full list evicts
#      the records of the down eth1, not the oldest (live) ones
#   8. the same with an eth1 flap (down and up while srv6d is stopped): no
#      trace of it, so the 2 oldest (live) are evicted, released early and
#      delivered, and the 2 stale records stay (held_now 4, the kernel's 2;
#      the documented gap); release all: 2 delivered, 2 refused: every
#      packet got exactly one verdict
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --srv6d
SRV6CTL=${SRV6CTL:-$BUILD/srv6ctl}
[ -x "$SRV6CTL" ] || { echo "SKIP: $SRV6CTL not built"; exit $ksft_skip; }
SOCK=$TMPD/srv6d.sock
ctl() { in_rtr "$SRV6CTL" -S "$SOCK" "$@"; }
# qget FIELD: a member of `srv6ctl -j queue show 10`
qget() { ctl -j queue show 10 | "$PY" -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$1"; }
qis() { [ "$(qget "$1")" = "$2" ]; }
# kwaiting: packets the kernel holds in queue 10 (queue_total)
kwaiting() { in_rtr awk '$1 == 10 {print $3; f = 1} END {if (!f) print -1}' /proc/net/netfilter/nfnetlink_queue; }
noports() { in_rtr awk '$1 == "Udp6NoPorts" {print $2}' /proc/net/snmp6; }
# send NS ADDR COUNT: COUNT UDP datagrams from NS to ADDR port 9999
send() {
	ip netns exec "$1" "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"pq %d" % i, (sys.argv[1], 9999))' "$2" "$3"
}
# held N: srv6d holds N and the kernel queues N
held() { [ "$(kwaiting)" = "$1" ] && qis held_now "$1"; }
# dev_flap_restore: eth1 up again with what its down removed (neighbour, route)
dst_up() {
	in_rtr ip link set "$RTR_IF_DST" up
	ip -n "$NS_RTR" neigh replace $DST_ADDR lladdr "$DST_MAC" dev "$RTR_IF_DST" nud permanent
	ip -n "$NS_RTR" -6 route replace 2001:db8::/32 via $DST_ADDR dev "$RTR_IF_DST"
	wait_until 5 topo_up
}
# addresses stay on a device that goes down (IPv6 removes them by default)
in_rtr sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 \
	"net.ipv6.conf.$RTR_IF_SRC.keep_addr_on_down=1" "net.ipv6.conf.$RTR_IF_DST.keep_addr_on_down=1"

# ---- 1. requeue cycles ---------------------------------------------------------
conf=$TMPD/srv6d.conf
base() { printf 'queue 0\nqueue-maxlen 4\nsteer none\ncontrol-socket %s\n' "$SOCK"; conf_extra; }
cyc=$TMPD/cycle.conf
{ base; echo "queue 10 policy requeue 11"; echo "queue 11 policy requeue 10"; } >"$cyc"
out=$(in_rtr "$SRV6D" --check -c "$cyc" 2>&1); rc=$?
check "--check: queues 10 -> 11 -> 10 refused (rc $rc): $out" \
	test "$rc" -ne 0 -a "$out" = "$cyc:6: queue 11 requeue 10 -> 11 makes a cycle (every packet would loop forever)"
{ base; echo "queue 10 policy requeue 11"; echo "queue 11 policy requeue 12"; echo "queue 12 policy requeue 10"; } >"$cyc"
out=$(in_rtr "$SRV6D" --check -c "$cyc" 2>&1); rc=$?
check "--check: queues 10 -> 11 -> 12 -> 10 refused (rc $rc): $out" \
	test "$rc" -ne 0 -a "$out" = "$cyc:7: queue 12 requeue 10 -> 11 -> 12 makes a cycle (every packet would loop forever)"
{ base; echo "queue 10 policy requeue 11"; echo "queue 11 policy requeue 12"; echo "queue 12 policy accept"; } >"$cyc"
out=$(in_rtr "$SRV6D" --check -c "$cyc" 2>&1); rc=$?
check "--check: the chain 10 -> 11 -> 12 (accept) is fine (rc $rc)" test "$rc" -eq 0

{ base; echo "queue 10 policy hold"; } >"$conf"
in_rtr ip6tables -t mangle -A PREROUTING -p udp --dport 9999 -j NFQUEUE --queue-num 10
if ! srv6d_start "$conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	fail "srv6d starts with queue 10 policy hold"; summary; exit 1
fi
cp "$conf" "$TMPD/good.conf"
{ base; echo "queue 10 policy requeue 11"; echo "queue 11 policy requeue 10"; } >"$conf"
n0=$(grep -c 'reload' "$SRV6D_LOG")
kill -HUP "$SRV6D_PID"
check "reload with a requeue cycle: refused, the cycle named in the log" \
	wait_until 5 eval 'grep reload "$SRV6D_LOG" | tail -n +'"$((n0 + 1))"' | grep -q "queue 11 requeue 10 -> 11 makes a cycle"'
check "... srv6d runs on with queue 10 policy hold" eval 'srv6d_alive && qis policy hold'
cp "$TMPD/good.conf" "$conf"

# ---- 2. the input device of every held packet goes down ------------------------
send "$NS_DST" $RTR_ADDR_DST 3
check "3 held from dst (srv6d and the kernel hold 3)" wait_until 5 held 3
in_rtr ip link set "$RTR_IF_DST" down
check "eth1 down: the kernel flushed them (waiting $(kwaiting))" [ "$(kwaiting)" = 0 ]
check "eth1 down: srv6d's held list follows (held_now 0)" wait_until 5 qis held_now 0
check "... the 3 reconciled, their NF_ACCEPT refused: kernel_dropped 3, late 3" \
	wait_until 5 eval '[ "$(qget reconciled)/$(qget kernel_dropped)/$(qget late)" = 3/3/3 ]'
dst_up

# ---- 3. only some of them ------------------------------------------------------
u0=$(noports)
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 held from src" wait_until 5 held 2
send "$NS_DST" $RTR_ADDR_DST 2
check "2 more held from dst" wait_until 5 held 4
in_rtr ip link set "$RTR_IF_DST" down
check "eth1 down: the kernel flushed the 2 of eth1 (waiting $(kwaiting))" [ "$(kwaiting)" = 2 ]
check "eth1 down: srv6d released the 2 of eth1, holds the 2 of eth0" \
	wait_until 5 eval '[ "$(qget held_now)/$(qget reconciled)/$(qget kernel_dropped)" = 2/5/5 ]'
ids=$(ctl -j queue show 10 | "$PY" -c 'import json, sys; print(" ".join(h["indev"] for h in json.load(sys.stdin)[0]["held"]))')
check "... the records left are those of eth0 ($ids)" [ "$ids" = "$RTR_IF_SRC $RTR_IF_SRC" ]
R=$(ctl queue release 10 all)
check "release all: $R" [ "$R" = "queue 10: released 2" ]
check "... both delivered (Udp6NoPorts +2)" wait_until 5 eval '[ "$(noports)" -eq $((u0 + 2)) ]'
dst_up

# ---- 4. a netfilter hook goes away -----------------------------------------------
# conntrack's hooks are registered for the namespace's first rule that needs
# them and unregistered with its last one
in_rtr ip6tables -t filter -A INPUT -m conntrack --ctstate INVALID -j DROP
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 held from src" wait_until 5 held 2
in_rtr ip6tables -t filter -D INPUT -m conntrack --ctstate INVALID -j DROP
check "conntrack's hooks unregistered: the kernel flushed every queue (waiting $(kwaiting))" \
	[ "$(kwaiting)" = 0 ]
check "... srv6d's held list follows: held_now 0, kernel_dropped 7" \
	wait_until 5 eval '[ "$(qget held_now)/$(qget reconciled)/$(qget kernel_dropped)" = 0/7/7 ]'

# ---- 5. the bound: at most queue-maxlen (4) records ------------------------------
u0=$(noports)
send "$NS_DST" $RTR_ADDR_DST 2
check "2 held from dst" wait_until 5 held 2
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 held from src: 4 (queue-maxlen)" wait_until 5 held 4
kill -STOP "$SRV6D_PID"
in_rtr ip link set "$RTR_IF_DST" down
k=$(kwaiting)
dst_up
kill -CONT "$SRV6D_PID"
check "eth1 flapped while srv6d was stopped: the kernel flushed 2 (waiting $k)" [ "$k" = 2 ]
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 more from src: the 2 stale records evicted, 4 held = the kernel's 4" \
	wait_until 5 eval '[ "$(kwaiting)/$(qget held_now)/$(qget evicted)" = 4/4/2 ]'
check "... their NF_ACCEPT refused: kernel_dropped 9, reconciled still 7" \
	wait_until 5 eval '[ "$(qget kernel_dropped)/$(qget reconciled)" = 9/7 ]'
ids=$(ctl -j queue show 10 | "$PY" -c 'import json, sys; print(" ".join(h["indev"] for h in json.load(sys.stdin)[0]["held"]))')
check "... the records left are the 4 of eth0 ($ids)" \
	[ "$ids" = "$RTR_IF_SRC $RTR_IF_SRC $RTR_IF_SRC $RTR_IF_SRC" ]
check "queue show: the text names them (evicted 2, reconciled 7, kernel-dropped 9)" \
	eval 'ctl queue show 10 | grep -q "held 4 (total 15, released 11, evicted 2, reconciled 7) late 9 kernel-dropped 9 "'
R=$(ctl queue release 10 all)
check "release all: $R" [ "$R" = "queue 10: released 4" ]
check "... all 4 delivered (Udp6NoPorts +4)" wait_until 5 eval '[ "$(noports)" -eq $((u0 + 4)) ]'

# ---- 6. a device without a link-layer address -----------------------------------
# qd FIELD: FIELD now minus its value at the last `qmark`
qmark() { q0=$(ctl -j queue show 10); }
qd() {
	local now; now=$(qget "$1")
	echo $(( now - $(echo "$q0" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)[0][sys.argv[1]])' "$1") ))
}
# tunout: packets the POSTROUTING -o tun7 counting rule saw
tunout() { in_rtr ip6tables -t mangle -vS POSTROUTING | awk '/ -o tun7 / {print $(NF - 1); f = 1} END {if (!f) print -1}'; }
if [ ! -c /dev/net/tun ]; then
	skip "tun7 (TUN mode) held at OUTPUT survives an unrelated device down" "no /dev/net/tun"
else
	in_rtr ip tuntap add dev tun7 mode tun
	in_rtr ip link set tun7 up
	in_rtr ip -6 route add 2001:db8:77::/64 dev tun7
	in_rtr ip6tables -t mangle -A OUTPUT -p udp --dport 9999 -j NFQUEUE --queue-num 10
	in_rtr ip6tables -t mangle -A POSTROUTING -o tun7 -p udp --dport 9999
	qmark
	send "$NS_RTR" 2001:db8:77::1 3
	check "3 held at OUTPUT, output device tun7 (TUN mode, up)" wait_until 5 held 3
	send "$NS_DST" $RTR_ADDR_DST 1
	check "1 more held from dst" wait_until 5 held 4
	in_rtr ip link set "$RTR_IF_DST" down
	check "eth1 down: the kernel flushed the one of eth1 (waiting $(kwaiting))" [ "$(kwaiting)" = 3 ]
	check "... srv6d reconciled that one only, holds the 3 of tun7 (= the kernel's 3)" \
		wait_until 5 eval '[ "$(qd reconciled)/$(qd kernel_dropped)" = 1/1 ] && held 3'
	outs=$(ctl -j queue show 10 | "$PY" -c 'import json, sys; print(" ".join(h["outdev"] for h in json.load(sys.stdin)[0]["held"]))')
	check "... the records left are those of tun7 ($outs)" [ "$outs" = "tun7 tun7 tun7" ]
	R=$(ctl queue release 10 all)
	check "release all: $R" [ "$R" = "queue 10: released 3" ]
	check "... all 3 out through tun7 (POSTROUTING -o tun7: $(tunout))" wait_until 5 eval '[ "$(tunout)" = 3 ]'
	in_rtr ip6tables -t mangle -D OUTPUT -p udp --dport 9999 -j NFQUEUE --queue-num 10
	in_rtr ip6tables -t mangle -D POSTROUTING -o tun7 -p udp --dport 9999
	in_rtr ip tuntap del dev tun7 mode tun
	dst_up
fi

# ---- 7. at a full list, the records of a down device go first --------------------
u0=$(noports)
qmark
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 held from src (the oldest)" wait_until 5 held 2
send "$NS_DST" $RTR_ADDR_DST 2
check "2 held from dst: 4 (queue-maxlen)" wait_until 5 held 4
kill -STOP "$SRV6D_PID"
in_rtr ip link set "$RTR_IF_DST" down
k=$(kwaiting)
send "$NS_SRC" $RTR_ADDR_SRC 2
wait_until 5 eval '[ "$(kwaiting)" = 4 ]'
k2=$(kwaiting)
kill -CONT "$SRV6D_PID"
check "eth1 down while srv6d was stopped: the kernel flushed 2 (waiting $k), 2 more from src queued ($k2)" \
	[ "$k/$k2" = 2/4 ]
# the eviction (or a reconcile that got there first) releases the 2 of eth1
check "the 2 records of the down eth1 released, 4 held = the kernel's 4" \
	wait_until 5 eval '[ "$(( $(qd evicted) + $(qd reconciled) ))/$(qd kernel_dropped)" = 2/2 ] && held 4'
ids=$(ctl -j queue show 10 | "$PY" -c 'import json, sys; print(" ".join(h["indev"] for h in json.load(sys.stdin)[0]["held"]))')
check "... the records left are the 4 of eth0 ($ids)" \
	[ "$ids" = "$RTR_IF_SRC $RTR_IF_SRC $RTR_IF_SRC $RTR_IF_SRC" ]
check "... none of the live ones released early (Udp6NoPorts +$(( $(noports) - u0 )))" [ "$(noports)" -eq "$u0" ]
dst_up
R=$(ctl queue release 10 all)
check "release all: $R" [ "$R" = "queue 10: released 4" ]
check "... all 4 delivered (Udp6NoPorts +4)" wait_until 5 eval '[ "$(noports)" -eq $((u0 + 4)) ]'

# ---- 8. the gap: a flap between two reconciles, the stale records the newer -------
u0=$(noports)
qmark
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 held from src (the oldest)" wait_until 5 held 2
send "$NS_DST" $RTR_ADDR_DST 2
check "2 held from dst: 4 (queue-maxlen)" wait_until 5 held 4
kill -STOP "$SRV6D_PID"
in_rtr ip link set "$RTR_IF_DST" down
k=$(kwaiting)
dst_up
kill -CONT "$SRV6D_PID"
check "eth1 flapped while srv6d was stopped: the kernel flushed 2 (waiting $k)" [ "$k" = 2 ]
send "$NS_SRC" $RTR_ADDR_SRC 2
check "2 more from src: the 2 oldest evicted (documented: live, released early)" \
	wait_until 5 eval '[ "$(qd evicted)" = 2 ]'
check "... delivered (Udp6NoPorts +2), not refused (kernel_dropped +$(qd kernel_dropped))" \
	wait_until 5 eval '[ "$(noports)" -eq $((u0 + 2)) ] && [ "$(qd kernel_dropped)" = 0 ]'
ids=$(ctl -j queue show 10 | "$PY" -c 'import json, sys; print(" ".join(h["indev"] for h in json.load(sys.stdin)[0]["held"]))')
check "... the 2 stale records stay: held_now 4, the kernel's $(kwaiting) ($ids)" \
	[ "$(qget held_now)/$(kwaiting)/$ids" = "4/2/$RTR_IF_DST $RTR_IF_DST $RTR_IF_SRC $RTR_IF_SRC" ]
R=$(ctl queue release 10 all)
check "release all: $R" [ "$R" = "queue 10: released 4" ]
check "... the 2 live ones delivered, the 2 stale ones refused: one verdict each" \
	wait_until 5 eval '[ "$(( $(noports) - u0 ))/$(qd kernel_dropped)/$(qd released)/$(kwaiting)/$(qget held_now)" = 4/2/6/0/0 ]'

srv6d_stop TERM
check "srv6d exits 0 (rc=$SRV6D_RC)" [ "$SRV6D_RC" -eq 0 ]
L=$(awk '$1 == "pqueue" && $2 == 10' "$TMPD/stats")
# kernel-dropped: every stale record refused once (13, 14 with case 6);
# evicted + reconciled as many (case 8: 2 live evicted, its 2 stale by hand)
kd=13; [ -c /dev/net/tun ] && kd=14
stats_ok() {
	echo "$L" | awk -v kd="$kd" '{
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		exit !(v["held-now"] == 0 && v["kernel-dropped"] == kd && v["evicted"] + v["reconciled"] == kd)
	}'
}
check "stats file: $L" stats_ok
summary
