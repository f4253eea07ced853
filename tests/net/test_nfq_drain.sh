#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_nfq_drain.sh - issue 9.8: the shutdown drain goes on past ENOBUFS.
# The queue is filled beyond its socket's receive buffer while nobody reads
# (the kernel drops what it cannot deliver and flags ENOBUFS, which the next
# receive reports BEFORE the messages still buffered); the drain srv6d's
# worker runs at shutdown (tests/net/tools/nfq_drain.c, on src/datapath/nfq.c)
# must then verdict every packet still queued, leaving none for the unbind
# to drop.
#
#   +---------------+   mtu 9000   +------------------------------------+
#   | src           |              | rtr                                |
#   |          eth0 +--------------+ eth0   raw PREROUTING              |
#   | 2001:db8:1::1 |              |   -d 2001:db8:ff::1 -j NFQUEUE 0   |
#   | 600 UDP x 8000|              | nfq_drain 0 (reads nothing, then   |
#   | bytes         |              |   drains)                          |
#   +---------------+              +------------------------------------+
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

TOOL="$BUILD/tests/net/nfq_drain"
test_begin --built "$TOOL" --trap 'exec 3>&- 2>/dev/null'

N=600
in_src ip link set eth0 mtu 9000
in_rtr ip link set "$RTR_IF_SRC" mtu 9000
in_rtr ip6tables -t raw -A PREROUTING -d 2001:db8:ff::1 -j NFQUEUE --queue-num 0
# /proc/net/netfilter/nfnetlink_queue: queue portid total copy_mode range
# dropped user_dropped id_sequence 1
qfield() { in_rtr awk -v f="$1" '$1 == 0 {print $f}' /proc/net/netfilter/nfnetlink_queue; }

mkfifo "$TMPD/in"
in_rtr "$TOOL" 0 1024 <"$TMPD/in" >"$TMPD/out" 2>&1 &
pid=$!
exec 3>"$TMPD/in"
wait_until 5 grep -q ready "$TMPD/out" || { fail "nfq_drain ready" "$(cat "$TMPD/out")"; summary; exit; }

in_src "$PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])): s.sendto(b"d" * 8000, ("2001:db8:ff::1", 9))' $N
wait_until 10 eval '[ "$(qfield 8)" -ge $N ]'
queued=$(qfield 3) udrop=$(qfield 7) ids=$(qfield 8)
echo "# $ids packets to the queue: $queued queued, $udrop not delivered (ENOBUFS)"
check "every packet reached the queue ($ids of $N)" test "${ids:-0}" -eq $N
check "precondition: the receive buffer overflowed (ENOBUFS, $udrop packets)" test "${udrop:-0}" -gt 0
check "precondition: packets still queued behind the ENOBUFS ($queued)" test "${queued:-0}" -gt 0

echo go >&3
wait_until 10 grep -q drained "$TMPD/out"
read -r _ drained _ enobufs < <(grep drained "$TMPD/out")
left=$(qfield 3)
check "the drain saw the ENOBUFS ($enobufs reported)" test "${enobufs:-0}" -ge 1
check "the drain verdicted every queued packet ($drained of $queued)" test "${drained:-0}" -eq "$queued"
check "nothing left for the unbind to drop (queue_total $left)" test "${left:-1}" -eq 0
echo done >&3
exec 3>&-
wait "$pid"
check "nfq_drain exits 0" test $? -eq 0

summary
