#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_fanout.sh - issue 14: two workers for one PE pair.  All of a PE pair's
# SRv6 traffic has one outer source and destination, and NFQUEUE's
# --queue-balance hashes the addresses only: one queue, one worker, however
# many flows it carries.  `queue-cpu-fanout yes` picks the queue from the
# CPU that received the packet; with RPS spreading rtr's ingress over the
# CPUs by the kernel's flow hash (outer flow label, else the inner headers
# behind the SRH) the flows of one pair reach both workers, each flow always
# the same one (its order kept).
#
#   +-------------+        +--------------------------------------+        +-------------+
#   | src         |        | rtr  srv6d: queue 0-1, cpu-affinity  |        | dst         |
#   |        eth0 +--------+ eth0  0,1, sid 2001:db8:ff::1 End   eth1 +--------+ eth0        |
#   +-------------+        |  eth0 rx-0 rps_cpus = CPUs 0 and 1   |        +-------------+
#    one outer pair,       +--------------------------------------+         per-flow order
#    32 inner sources                                                       checked here
#
# Checks: the conf setting gives --queue-cpu-fanout; with it both queues get
# packets of the one pair, every packet arrives once, none behind a later one
# of its flow; without it (the default) one queue gets them all.
set -u
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

test_begin --cpus 2 --srv6d

SID=2001:db8:ff::1
N=1200
# RPS on rtr's ingress: the receive path runs on CPU 0 or 1 by flow hash
in_rtr sh -c "echo 3 > /sys/class/net/$RTR_IF_SRC/queues/rx-0/rps_cpus"

# per-queue packets queued so far (id_sequence in nfnetlink_queue)
queued() { in_rtr awk -v q="$1" '$1 == q { print $8 }' /proc/net/netfilter/nfnetlink_queue; }

run_case() { # run_case yes|no -> sets Q0 Q1 OUT
	cat >"$TMPD/srv6d.conf" <<-EOF
	queue 0-1
	queue-cpu-fanout $1
	cpu-affinity 0,1
	control-socket none
	sid $SID action End
	EOF
	conf_extra >>"$TMPD/srv6d.conf"
	if ! srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
		fail "srv6d starts with queue-cpu-fanout $1"; Q0=? Q1=? OUT= RULE=; return 1
	fi
	local a0 a1
	a0=$(queued 0) a1=$(queued 1)
	OUT=$(pkt --cap-ns "$NS_DST" --timeout 3 stream --dst $SID --count $N --rate 4000 --flows 32)
	Q0=$(( $(queued 0) - a0 )) Q1=$(( $(queued 1) - a1 ))
	RULE=$(in_rtr ip6tables -t raw -S SRV6D | grep -- "-d $SID/128")
	srv6d_stop
}

run_case yes
echo "# fanout yes: queue 0 $Q0, queue 1 $Q1; $OUT"
check "queue-cpu-fanout yes: the SID rule has --queue-cpu-fanout ($RULE)" \
	bash -c "grep -q -- '--queue-balance 0:1 --queue-cpu-fanout' <<<'$RULE'"
check "one PE pair, 32 flows: both workers' queues get packets (queue 0 $Q0, queue 1 $Q1)" \
	test "$Q0" -ge $((N / 10)) -a "$Q1" -ge $((N / 10))
check "every packet processed once ($OUT)" \
	bash -c "grep -q '^sent $N received $N dups 0 capdrops 0 unprocessed 0 ' <<<'$OUT'"
check "per-flow order kept ($OUT)" bash -c "grep -q ' reordered 0$' <<<'$OUT'"

run_case no
echo "# fanout no: queue 0 $Q0, queue 1 $Q1; $OUT"
check "default (address hash): one queue gets the whole pair (queue 0 $Q0, queue 1 $Q1)" \
	bash -c "[ '$Q0' -eq 0 -o '$Q1' -eq 0 ] && [ \$(( $Q0 + $Q1 )) -ge $N ]"

# the setting follows a reload (the steering rules are rewritten)
sed -i 's/^queue-cpu-fanout no$/queue-cpu-fanout yes/' "$TMPD/srv6d.conf"
if srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	sed -i 's/^queue-cpu-fanout yes$/queue-cpu-fanout no/' "$TMPD/srv6d.conf"
	kill -HUP "$SRV6D_PID"
	check "a reload to queue-cpu-fanout no drops --queue-cpu-fanout" wait_until 10 \
		eval "in_rtr ip6tables -t raw -S SRV6D | grep -- '-d $SID/128 .*--queue-balance 0:1' | grep -vq -- --queue-cpu-fanout"
	srv6d_stop
else
	fail "srv6d starts for the reload check"
fi

# with fail-open too, the rule srv6d writes is the one iptables-save prints
# (--queue-bypass before --queue-cpu-fanout): its 5 s steering check finds
# nothing to repair
sed -i 's/^queue-cpu-fanout no$/queue-cpu-fanout yes/' "$TMPD/srv6d.conf"
echo 'fail-open yes' >>"$TMPD/srv6d.conf"
if srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log"; then
	sleep 12
	check "fail-open + queue-cpu-fanout: no steering repair in 12 s ($(grep -c 'installing it again' "$TMPD/srv6d.log") logged)" \
		bash -c "! grep -q 'installing it again' '$TMPD/srv6d.log'"
	srv6d_stop
else
	fail "srv6d starts with fail-open and queue-cpu-fanout"
fi

summary
