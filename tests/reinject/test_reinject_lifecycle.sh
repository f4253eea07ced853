#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test_reinject_lifecycle.sh - a packet of the kernel's seg6local held in
# srv6d's policy queue 11 at IPv6 LOCAL_IN while what it depends on goes
# away (docs/REINJECTION.md):
#   1. kill -9 srv6d: the kernel drops what was held when the socket closes
#      (the behavior never runs, nothing is delivered, the queue is gone)
#   2. a reload with a packet held keeps it held (policy changes wait for
#      the next start); SIGTERM with a packet held: srv6d's final verdict
#      for held packets is NF_ACCEPT: the behavior runs, it is delivered
#   3. the input device goes down: the kernel flushes the entry (and the
#      SID's route goes with the device); srv6d's later verdict is refused
#      and counted as late, srv6d runs on
#   4. the namespace srv6d runs in is deleted: srv6d's sockets keep it alive;
#      SIGTERM releases the held packet (delivered), srv6d exits 0, then the namespace is
#      torn down (its veth peers disappear), completely (rj_netns_drained: no
#      reference left waiting) and the kernel log stays clean
#
# SETS net.netfilter.nf_hooks_lwtunnel=1, which is global and cannot be
# turned off again: run it last (tests/check.sh runs the suite "reinject"
# after every other one).  Topology and SIDs: tests/reinject/lib.sh.
#
#   src ---- rtr (seg6local End 2001:db8:5::1; mangle INPUT -> queue 11 hold) ---- dst
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"
rj_require
trap cleanup EXIT
rj_setup || { fail "setup"; exit 1; }

kq11() { in_rtr awk '$1 == 11' /proc/net/netfilter/nfnetlink_queue; }
# released: the held packet's fate is decided: hold_one's capture window starts
released() { : >"$TMPD/released"; }
# hold_one OUT: send End traffic in the background (3 s to arrive once
# "released" ran), wait until held
hold_one() {
	hook INPUT 11 -d $SID:1
	rm -f "$TMPD/released"
	RJ_AFTER=$TMPD/released send end dst 1 3 >"$1" &
	SPID=$!
	wait_until 30 held_is 11 1
}

# ---- 1. kill -9 -----------------------------------------------------------
p0=$(sidpkts $SID:1)
if hold_one "$TMPD/kill"; then
	srv6d_stop KILL
	released
	wait $SPID
	check "kill -9 while held: nothing delivered" [ -z "$(rxs "$NS_DST" "$TMPD/kill")" ]
	check "kill -9 while held: the behavior never ran (seg6local counter unchanged)" \
		[ "$(sidpkts $SID:1)" -eq "$p0" ]
	check "kill -9 while held: the kernel destroyed queue 11" [ -z "$(kq11)" ]
else
	fail "kill -9: packet not held"; released; wait $SPID
fi
hook off
# srv6d again (seg6local routes out of the way while it starts: lib.sh)
rj_sids_del
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" && rj_sids ||
	{ fail "srv6d restart"; exit 1; }

# ---- 2. reload, then SIGTERM: held packets get NF_ACCEPT ---------------------
hook off
send end dst >"$TMPD/base"
if hold_one "$TMPD/reload"; then
	sed -i 's/^queue 16 policy delay 200ms$/queue 16 policy delay 300ms/' "$TMPD/srv6d.conf"
	r=$(ctl reload)
	check "reload while held: reloaded ($r), the packet is still held" held_is 11 1
	check "reload: the policy change is deferred to the next start (logged)" \
		grep -q 'changes of .*"queue N policy".* take effect at the next start' "$SRV6D_LOG"
	sed -i 's/^queue 16 policy delay 300ms$/queue 16 policy delay 200ms/' "$TMPD/srv6d.conf"
	R=$(ctl queue release 11 all)
	released
	wait $SPID
	check "reload while held, then release: delivered unchanged ($R)" \
		[ "$(rxs "$NS_DST" "$TMPD/reload")" = "$(rxs "$NS_DST" "$TMPD/base")" ]
else
	fail "reload: packet not held"; released; wait $SPID
fi
p0=$(sidpkts $SID:1)
if hold_one "$TMPD/term"; then
	check "SIGTERM while held: srv6d exits 0" srv6d_stop TERM
	released
	wait $SPID
	check "SIGTERM while held: released with NF_ACCEPT, delivered unchanged" \
		[ "$(rxs "$NS_DST" "$TMPD/term")" = "$(rxs "$NS_DST" "$TMPD/base")" ]
	check "SIGTERM while held: the behavior ran once" [ "$(sidpkts $SID:1)" -eq $((p0 + 1)) ]
else
	fail "SIGTERM: packet not held"; released; wait $SPID
fi
hook off
rj_sids_del
srv6d_start "$TMPD/srv6d.conf" "$TMPD/stats" "$TMPD/srv6d.log" && rj_sids ||
	{ fail "srv6d restart"; exit 1; }

# ---- 3. the input device goes down --------------------------------------------
if hold_one "$TMPD/down"; then
	in_rtr ip link set "$RTR_IF_SRC" down
	check "device down: the kernel flushed the held entry (waiting 0)" \
		[ "$(kq11 | awk '{print $3}')" = 0 ]
	R=$(ctl queue release 11 all)
	released
	wait $SPID
	# the release, or srv6d's reconcile before it (once a second: the
	# kernel holds fewer than srv6d's list), gave it its verdict
	rec=$(qget 11 reconciled)
	check "device down: srv6d released it ($R, reconciled $rec)" \
		eval '[ "$R/$rec" = "queue 11: released 1/0" ] || [ "$R/$rec" = "queue 11: released 0/1" ]'
	check "device down: srv6d's late verdict refused by the kernel, counted" \
		wait_until 5 test "$(qget 11 late)" = 1
	check "device down: nothing delivered" [ -z "$(rxs "$NS_DST" "$TMPD/down")" ]
	# the seg6local route (dev $RTR_IF_SRC) went with the device
	check "device down: the SID's route went with its device" [ -z "$(sidpkts $SID:1)" ]
	check "device down: srv6d runs on" srv6d_alive
else
	fail "device down: packet not held"; released; wait $SPID
fi
hook off
in_rtr ip link set "$RTR_IF_SRC" up
ip -n "$NS_RTR" neigh replace $SRC_ADDR lladdr "$SRC_MAC" dev "$RTR_IF_SRC" nud permanent
wait_until 5 topo_up
rj_sids

# ---- 4. the namespace srv6d runs in is deleted -------------------------------
if hold_one "$TMPD/nsdel"; then
	ip netns del "$NS_RTR"
	check "namespace deleted while held: srv6d runs on (its sockets keep it)" srv6d_alive
	check "namespace deleted while held: srv6d exits 0 on SIGTERM" srv6d_stop TERM
	released
	wait $SPID
	check "namespace deleted while held: SIGTERM's NF_ACCEPT still delivered it (the namespace lived on)" \
		[ "$(rxs "$NS_DST" "$TMPD/nsdel" | wc -l)" = 1 ]
	check "namespace torn down after srv6d exited (the veth peers are gone)" \
		wait_until 30 eval '! ip -n "$NS_SRC" link show eth0 >/dev/null 2>&1 &&
			! ip -n "$NS_DST" link show eth0 >/dev/null 2>&1'
	check "namespace torn down completely (the netns work queue moved past it: no reference left waiting)" \
		rj_netns_drained
else
	fail "namespace deletion: packet not held"; released; wait $SPID
fi
check "kernel log: no WARN/BUG/RCU/refcount/waiting-for line" dmesg_clean
summary
